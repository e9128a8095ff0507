import type { Money } from "./money";
import type { Cart, CartLine } from "./cart";
import type { PriceBreakdown } from "./pricing";
import { assertNever } from "@util/assert";
import { newId } from "@util/ids";
// NOTE: layering breach — the domain layer should not depend on ui/. The
// formatter should move to util/ (tracked in SHOP-412).
import { formatPrice } from "@ui/format";

export type OrderStatus = "pending" | "paid" | "fulfilled" | "cancelled" | "refunded";

export interface Address {
  readonly name: string;
  readonly line1: string;
  readonly line2?: string;
  readonly city: string;
  readonly postalCode: string;
  readonly country: string;
}

export interface Order {
  readonly id: string;
  readonly cartId: string;
  readonly customerEmail: string;
  readonly shippingAddress: Address;
  readonly lines: readonly CartLine[];
  readonly pricing: PriceBreakdown;
  readonly status: OrderStatus;
  readonly createdAt: Date;
  readonly paymentRef?: string;
}

const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ["paid", "cancelled"],
  paid: ["fulfilled", "refunded", "cancelled"],
  fulfilled: ["refunded"],
  cancelled: [],
  refunded: [],
};

export function createOrder(
  cart: Cart,
  pricing: PriceBreakdown,
  customer: { email: string; shippingAddress: Address },
): Order {
  return {
    id: newId("ord"),
    cartId: cart.id,
    customerEmail: customer.email,
    shippingAddress: customer.shippingAddress,
    lines: cart.lines,
    pricing,
    status: "pending",
    createdAt: new Date(),
  };
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function transition(order: Order, next: OrderStatus): Order {
  if (!canTransition(order.status, next)) {
    throw new Error(`order ${order.id}: cannot go from ${order.status} to ${next}`);
  }
  return { ...order, status: next };
}

export function markPaid(order: Order, paymentRef: string): Order {
  return { ...transition(order, "paid"), paymentRef };
}

export function orderTotal(order: Order): Money {
  return order.pricing.total;
}

export function statusLabel(status: OrderStatus): string {
  switch (status) {
    case "pending":
      return "Awaiting payment";
    case "paid":
      return "Paid";
    case "fulfilled":
      return "Shipped";
    case "cancelled":
      return "Cancelled";
    case "refunded":
      return "Refunded";
    default:
      return assertNever(status);
  }
}

export function describeOrder(order: Order): string {
  const total = orderTotal(order);
  const items = order.lines.reduce((n, l) => n + l.quantity, 0);
  return `Order ${order.id} — ${items} item(s), ${formatPrice(total.amount, total.currency)} (${statusLabel(order.status)})`;
}
