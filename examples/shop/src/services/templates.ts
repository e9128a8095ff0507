import { describeOrder, type Order } from "@domain/order";
import { escapeHtml, truncate } from "@util/strings";

export interface RenderedMessage {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

function lineItems(order: Order): string[] {
  return order.lines.map((l) => `${l.quantity} × ${truncate(l.product.title, 40)}`);
}

export function renderOrderConfirmation(order: Order): RenderedMessage {
  const summary = describeOrder(order);
  const items = lineItems(order);
  return {
    subject: `Thanks for your order ${order.id}`,
    text: [summary, "", ...items].join("\n"),
    html: `<p>${escapeHtml(summary)}</p><ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>`,
  };
}

export function renderShipmentNotice(order: Order, trackingNumber: string): RenderedMessage {
  const text = `Your order ${order.id} is on its way. Tracking number: ${trackingNumber}`;
  return { subject: `Order ${order.id} has shipped`, text, html: `<p>${escapeHtml(text)}</p>` };
}
