import { add, multiply, zero, type CurrencyCode, type Money } from "./money";
import type { Product, Sku } from "./product";
import { assert } from "@util/assert";

export const MAX_QUANTITY_PER_LINE = 99;

export interface CartLine {
  readonly product: Product;
  readonly quantity: number;
}

export interface Cart {
  readonly id: string;
  readonly currency: CurrencyCode;
  readonly lines: readonly CartLine[];
  readonly couponCodes: readonly string[];
}

export function emptyCart(id: string, currency: CurrencyCode = "USD"): Cart {
  return { id, currency, lines: [], couponCodes: [] };
}

export function addItem(cart: Cart, product: Product, quantity = 1): Cart {
  assert(quantity > 0, "quantity must be positive");
  assert(
    product.price.currency === cart.currency,
    `cannot add ${product.price.currency} item to ${cart.currency} cart`,
  );
  const existing = cart.lines.find((l) => l.product.sku === product.sku);
  if (existing) {
    return setQuantity(cart, product.sku, existing.quantity + quantity);
  }
  const line = { product, quantity: Math.min(quantity, MAX_QUANTITY_PER_LINE) };
  return { ...cart, lines: [...cart.lines, line] };
}

export function setQuantity(cart: Cart, sku: Sku, quantity: number): Cart {
  if (quantity <= 0) {
    return removeItem(cart, sku);
  }
  const clamped = Math.min(quantity, MAX_QUANTITY_PER_LINE);
  return {
    ...cart,
    lines: cart.lines.map((l) => (l.product.sku === sku ? { ...l, quantity: clamped } : l)),
  };
}

export function removeItem(cart: Cart, sku: Sku): Cart {
  return { ...cart, lines: cart.lines.filter((l) => l.product.sku !== sku) };
}

export function applyCoupon(cart: Cart, code: string): Cart {
  const normalized = code.trim().toUpperCase();
  if (!normalized || cart.couponCodes.includes(normalized)) return cart;
  return { ...cart, couponCodes: [...cart.couponCodes, normalized] };
}

export function lineTotal(line: CartLine): Money {
  return multiply(line.product.price, line.quantity);
}

export function subtotal(cart: Cart): Money {
  return cart.lines.reduce((acc, line) => add(acc, lineTotal(line)), zero(cart.currency));
}

export function itemCount(cart: Cart): number {
  return cart.lines.reduce((n, l) => n + l.quantity, 0);
}

export function isEmpty(cart: Cart): boolean {
  return cart.lines.length === 0;
}
