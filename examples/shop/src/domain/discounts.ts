import { z } from "zod";
import { add, min, money, multiply, percentage, zero, type Money } from "./money";
import { lineTotal, subtotal, type Cart } from "./cart";
import { assertNever } from "@util/assert";

export const DiscountRuleSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("percent"),
    code: z.string(),
    percent: z.number().min(0).max(100),
    minSubtotal: z.number().int().nonnegative().default(0),
  }),
  z.object({
    kind: z.literal("fixed"),
    code: z.string(),
    amount: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal("bogo"),
    code: z.string(),
    sku: z.string(),
    buy: z.number().int().positive(),
    free: z.number().int().positive(),
  }),
]);

export type DiscountRule = z.infer<typeof DiscountRuleSchema>;

export interface AppliedDiscount {
  readonly code: string;
  readonly description: string;
  readonly amount: Money;
}

export function evaluateDiscount(rule: DiscountRule, cart: Cart): AppliedDiscount | null {
  const base = subtotal(cart);
  switch (rule.kind) {
    case "percent": {
      if (base.amount < rule.minSubtotal) return null;
      return { code: rule.code, description: `${rule.percent}% off`, amount: percentage(base, rule.percent) };
    }
    case "fixed":
      return {
        code: rule.code,
        description: "Gift voucher",
        amount: min(money(rule.amount, cart.currency), base),
      };
    case "bogo": {
      const line = cart.lines.find((l) => l.product.sku === rule.sku);
      if (!line) return null;
      const groups = Math.floor(line.quantity / (rule.buy + rule.free));
      if (groups === 0) return null;
      const unit = multiply(lineTotal(line), 1 / line.quantity);
      return {
        code: rule.code,
        description: `Buy ${rule.buy} get ${rule.free} free`,
        amount: multiply(unit, groups * rule.free),
      };
    }
    default:
      return assertNever(rule);
  }
}

/**
 * Applies every rule whose code is on the cart. Discounts stack, but never take
 * the total below zero.
 */
export function applyDiscounts(rules: readonly DiscountRule[], cart: Cart): AppliedDiscount[] {
  const base = subtotal(cart);
  let remaining = base;
  const applied: AppliedDiscount[] = [];
  for (const rule of rules) {
    if (!cart.couponCodes.includes(rule.code)) continue;
    const hit = evaluateDiscount(rule, cart);
    if (!hit || hit.amount.amount <= 0) continue;
    const capped = min(hit.amount, remaining);
    remaining = money(remaining.amount - capped.amount, remaining.currency);
    applied.push({ ...hit, amount: capped });
  }
  return applied;
}

export function totalDiscount(applied: readonly AppliedDiscount[], cart: Cart): Money {
  return applied.reduce((acc, d) => add(acc, d.amount), zero(cart.currency));
}
