import { createLogger } from "@infra/logger";
import type { Order } from "@domain/order";
import { renderOrderConfirmation, renderShipmentNotice, type RenderedMessage } from "./templates.js";

const log = createLogger("notifications");

export interface NotificationChannel {
  send(to: string, message: RenderedMessage): Promise<void>;
}

/** Development channel: writes messages to the log instead of sending mail. */
export class LogChannel implements NotificationChannel {
  readonly sent: Array<{ to: string; subject: string }> = [];

  async send(to: string, message: RenderedMessage): Promise<void> {
    this.sent.push({ to, subject: message.subject });
    log.info("email", { to, subject: message.subject });
  }
}

export class Notifier {
  constructor(private readonly channel: NotificationChannel = new LogChannel()) {}

  async orderConfirmed(order: Order): Promise<void> {
    await this.safeSend(order.customerEmail, renderOrderConfirmation(order));
  }

  async orderShipped(order: Order, trackingNumber: string): Promise<void> {
    await this.safeSend(order.customerEmail, renderShipmentNotice(order, trackingNumber));
  }

  /** Notification failures must never fail the checkout that triggered them. */
  private async safeSend(to: string, message: RenderedMessage): Promise<void> {
    try {
      await this.channel.send(to, message);
    } catch (err) {
      log.error("notification failed", { to, subject: message.subject, error: String(err) });
    }
  }
}
