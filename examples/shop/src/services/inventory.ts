import { createLogger } from "@infra/logger";
import { MemoryStore, type KeyValueStore } from "@infra/storage";
import type { Sku } from "@domain/product";
import type { Cart } from "@domain/cart";
import { newId } from "@util/ids";
// Inventory listens to checkout so that a failed payment releases held stock.
// (checkout.ts in turn calls reserve/commit here: a known import cycle.)
import { onCheckoutEvent, type CheckoutEvent } from "./checkout";

const log = createLogger("inventory");

/** Reservations older than this are considered abandoned. */
export const RESERVATION_TTL_MS = 15 * 60 * 1000;

export interface StockLevel {
  readonly sku: Sku;
  readonly onHand: number;
  readonly reserved: number;
}

export interface Reservation {
  readonly id: string;
  readonly cartId: string;
  readonly items: ReadonlyArray<{ sku: Sku; quantity: number }>;
  readonly expiresAt: number;
}

export class OutOfStockError extends Error {
  constructor(
    readonly sku: Sku,
    readonly requested: number,
    readonly available: number,
  ) {
    super(`only ${available} of ${sku} available, ${requested} requested`);
    this.name = "OutOfStockError";
  }
}

export class InventoryService {
  private readonly reservations = new Map<string, Reservation>();
  private readonly unsubscribe: () => void;

  constructor(private readonly store: KeyValueStore<StockLevel> = new MemoryStore<StockLevel>()) {
    this.unsubscribe = onCheckoutEvent((event) => this.handleCheckoutEvent(event));
  }

  private async handleCheckoutEvent(event: CheckoutEvent): Promise<void> {
    if (event.type === "failed") {
      await this.release(event.cart.id);
    }
  }

  private async level(sku: Sku): Promise<StockLevel> {
    return (await this.store.get(sku)) ?? { sku, onHand: 0, reserved: 0 };
  }

  async available(sku: Sku): Promise<number> {
    const l = await this.level(sku);
    return l.onHand - l.reserved;
  }

  async reserve(cart: Cart): Promise<Reservation> {
    await this.release(cart.id);
    for (const line of cart.lines) {
      const free = await this.available(line.product.sku);
      if (free < line.quantity) throw new OutOfStockError(line.product.sku, line.quantity, free);
    }
    const items = cart.lines.map((l) => ({ sku: l.product.sku, quantity: l.quantity }));
    for (const item of items) {
      const l = await this.level(item.sku);
      await this.store.set(item.sku, { ...l, reserved: l.reserved + item.quantity });
    }
    const reservation = { id: newId("res"), cartId: cart.id, items, expiresAt: Date.now() + RESERVATION_TTL_MS };
    this.reservations.set(cart.id, reservation);
    log.debug("reserved", { cartId: cart.id, items: items.length });
    return reservation;
  }

  /** Turns a reservation into a real stock decrement once payment succeeded. */
  async commit(cartId: string): Promise<void> {
    const r = this.reservations.get(cartId);
    if (!r) throw new Error(`no reservation for cart ${cartId}`);
    for (const item of r.items) {
      const l = await this.level(item.sku);
      await this.store.set(item.sku, {
        ...l,
        onHand: l.onHand - item.quantity,
        reserved: Math.max(0, l.reserved - item.quantity),
      });
    }
    this.reservations.delete(cartId);
  }

  async release(cartId: string): Promise<void> {
    const r = this.reservations.get(cartId);
    if (!r) return;
    for (const item of r.items) {
      const l = await this.level(item.sku);
      await this.store.set(item.sku, { ...l, reserved: Math.max(0, l.reserved - item.quantity) });
    }
    this.reservations.delete(cartId);
    log.info("released reservation", { cartId });
  }

  async releaseExpired(now = Date.now()): Promise<number> {
    const expired = [...this.reservations.values()].filter((r) => r.expiresAt <= now);
    for (const r of expired) await this.release(r.cartId);
    return expired.length;
  }

  async restock(sku: Sku, quantity: number): Promise<void> {
    const l = await this.level(sku);
    await this.store.set(sku, { ...l, onHand: l.onHand + quantity });
  }

  async levels(): Promise<StockLevel[]> {
    const keys = await this.store.keys();
    return Promise.all(keys.map((k) => this.level(k as Sku)));
  }

  dispose(): void {
    this.unsubscribe();
  }
}
