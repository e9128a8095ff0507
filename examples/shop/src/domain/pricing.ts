import * as M from "./money";
import { subtotal, type Cart } from "./cart";
import { applyDiscounts, totalDiscount, type AppliedDiscount, type DiscountRule } from "./discounts";
import { computeTax, isTaxInclusive, type Region } from "./tax";
import { isDigital } from "./product";

export type ShippingMethod = "standard" | "express" | "pickup";

/** Orders at or above this (in minor units) ship free with standard shipping. */
export const FREE_SHIPPING_THRESHOLD = 5_000;

const SHIPPING_RATES: Record<ShippingMethod, number> = { standard: 499, express: 1_499, pickup: 0 };

export interface PriceBreakdown {
  readonly subtotal: M.Money;
  readonly discounts: readonly AppliedDiscount[];
  readonly discountTotal: M.Money;
  readonly shipping: M.Money;
  readonly tax: M.Money;
  readonly total: M.Money;
  readonly taxInclusive: boolean;
}

export interface PricingOptions {
  readonly rules: readonly DiscountRule[];
  readonly region: Region;
  readonly shipping: ShippingMethod;
}

export function shippingFor(cart: Cart, method: ShippingMethod, afterDiscounts: M.Money): M.Money {
  if (cart.lines.every((l) => isDigital(l.product))) return M.zero(cart.currency);
  if (method === "standard" && afterDiscounts.amount >= FREE_SHIPPING_THRESHOLD) {
    return M.zero(cart.currency);
  }
  return M.money(SHIPPING_RATES[method], cart.currency);
}

export function priceCart(cart: Cart, options: PricingOptions): PriceBreakdown {
  const gross = subtotal(cart);
  const discounts = applyDiscounts(options.rules, cart);
  const discountTotal = totalDiscount(discounts, cart);
  const net = M.max(M.subtract(gross, discountTotal), M.zero(cart.currency));
  const shipping = shippingFor(cart, options.shipping, net);
  const taxInclusive = isTaxInclusive(options.region);
  const tax = computeTax(M.add(net, shipping), options.region);
  const total = taxInclusive ? M.add(net, shipping) : M.sum([net, shipping, tax], cart.currency);
  return { subtotal: gross, discounts, discountTotal, shipping, tax, total, taxInclusive };
}
