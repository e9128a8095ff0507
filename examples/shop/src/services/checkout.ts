import { createLogger } from "@infra/logger";
import type { AppConfig } from "@infra/config";
import { isEmpty, itemCount, type Cart } from "@domain/cart";
import { createOrder, markPaid, transition, type Address, type Order } from "@domain/order";
import { priceCart, type PriceBreakdown, type ShippingMethod } from "@domain/pricing";
import type { DiscountRule } from "@domain/discounts";
import type { Region } from "@domain/tax";
import HttpPaymentGateway, { type PaymentGateway } from "./payment";
import { Notifier } from "./notifications";
import { InventoryService, OutOfStockError } from "./inventory";

const log = createLogger("checkout");

export type CheckoutEvent =
  | { readonly type: "started"; readonly cart: Cart }
  | { readonly type: "completed"; readonly order: Order }
  | { readonly type: "failed"; readonly cart: Cart; readonly reason: string };

export type CheckoutHook = (event: CheckoutEvent) => void | Promise<void>;

const hooks = new Set<CheckoutHook>();

/** Subscribe to checkout lifecycle events; returns an unsubscribe function. */
export function onCheckoutEvent(hook: CheckoutHook): () => void {
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}

async function emit(event: CheckoutEvent): Promise<void> {
  for (const hook of hooks) {
    try {
      await hook(event);
    } catch (err) {
      log.error("checkout hook threw", { event: event.type, error: String(err) });
    }
  }
}

export class CheckoutError extends Error {
  constructor(
    message: string,
    readonly code: "empty_cart" | "out_of_stock" | "payment_declined",
  ) {
    super(message);
    this.name = "CheckoutError";
  }
}

export interface CheckoutSession {
  readonly cart: Cart;
  readonly pricing: PriceBreakdown;
  readonly region: Region;
  readonly shipping: ShippingMethod;
}

export interface CheckoutRequest {
  readonly cart: Cart;
  readonly email: string;
  readonly shippingAddress: Address;
  readonly region: Region;
  readonly shipping: ShippingMethod;
  readonly paymentToken: string;
}

export interface CheckoutDeps {
  readonly payments: PaymentGateway;
  readonly inventory: InventoryService;
  readonly notifier: Notifier;
  readonly discountRules: readonly DiscountRule[];
}

export class CheckoutService {
  constructor(private readonly deps: CheckoutDeps) {}

  static create(
    config: Pick<AppConfig, "paymentGatewayUrl" | "paymentApiKey" | "requestTimeoutMs">,
    inventory = new InventoryService(),
    discountRules: readonly DiscountRule[] = [],
  ): CheckoutService {
    return new CheckoutService({
      payments: new HttpPaymentGateway(config),
      inventory,
      notifier: new Notifier(),
      discountRules,
    });
  }

  quote(cart: Cart, region: Region, shipping: ShippingMethod): CheckoutSession {
    const pricing = priceCart(cart, { rules: this.deps.discountRules, region, shipping });
    return { cart, pricing, region, shipping };
  }

  async placeOrder(request: CheckoutRequest): Promise<Order> {
    const { cart } = request;
    if (isEmpty(cart)) throw new CheckoutError("cart is empty", "empty_cart");
    await emit({ type: "started", cart });

    try {
      await this.deps.inventory.reserve(cart);
    } catch (err) {
      if (err instanceof OutOfStockError) {
        await emit({ type: "failed", cart, reason: err.message });
        throw new CheckoutError(err.message, "out_of_stock");
      }
      throw err;
    }

    const session = this.quote(cart, request.region, request.shipping);
    let order = createOrder(cart, session.pricing, {
      email: request.email,
      shippingAddress: request.shippingAddress,
    });

    const auth = await this.deps.payments.authorize({
      amount: session.pricing.total,
      token: request.paymentToken,
      reference: order.id,
      email: request.email,
    });
    if (!auth.ok) {
      order = transition(order, "cancelled");
      await emit({ type: "failed", cart, reason: auth.reason });
      throw new CheckoutError(`payment declined: ${auth.reason}`, "payment_declined");
    }

    await this.deps.payments.capture(auth.authorizationId);
    await this.deps.inventory.commit(cart.id);
    order = markPaid(order, auth.authorizationId);
    log.info("order placed", { orderId: order.id, items: itemCount(cart), total: order.pricing.total.amount });

    await emit({ type: "completed", order });
    await this.deps.notifier.orderConfirmed(order);
    return order;
  }
}
