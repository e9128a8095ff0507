import { assert } from "@util/assert";

export type CurrencyCode = "USD" | "EUR" | "GBP" | "JPY";

export const CURRENCIES: readonly CurrencyCode[] = ["USD", "EUR", "GBP", "JPY"];

const MINOR_UNITS: Record<CurrencyCode, number> = { USD: 2, EUR: 2, GBP: 2, JPY: 0 };

/** An amount of money in integer minor units (cents, pence, yen) of one currency. */
export interface Money {
  readonly amount: number;
  readonly currency: CurrencyCode;
}

export function money(amount: number, currency: CurrencyCode): Money {
  assert(Number.isSafeInteger(amount), `money amount must be integer minor units, got ${amount}`);
  return Object.freeze({ amount, currency });
}

export function minorUnits(currency: CurrencyCode): number {
  return MINOR_UNITS[currency];
}

export function fromMajor(major: number, currency: CurrencyCode): Money {
  return money(Math.round(major * 10 ** minorUnits(currency)), currency);
}

export function toMajor(value: Money): number {
  return value.amount / 10 ** minorUnits(value.currency);
}

export function zero(currency: CurrencyCode): Money {
  return money(0, currency);
}

function assertSameCurrency(a: Money, b: Money): void {
  assert(a.currency === b.currency, `currency mismatch: ${a.currency} vs ${b.currency}`);
}

export function add(a: Money, b: Money): Money {
  assertSameCurrency(a, b);
  return money(a.amount + b.amount, a.currency);
}

export function subtract(a: Money, b: Money): Money {
  assertSameCurrency(a, b);
  return money(a.amount - b.amount, a.currency);
}

/** Multiplies by a (possibly fractional) factor, rounding half away from zero. */
export function multiply(value: Money, factor: number): Money {
  const raw = value.amount * factor;
  return money(Math.sign(raw) * Math.round(Math.abs(raw)), value.currency);
}

export function percentage(value: Money, percent: number): Money {
  return multiply(value, percent / 100);
}

export function sum(values: readonly Money[], currency: CurrencyCode): Money {
  return values.reduce((acc, v) => add(acc, v), zero(currency));
}

export function compare(a: Money, b: Money): -1 | 0 | 1 {
  assertSameCurrency(a, b);
  return a.amount === b.amount ? 0 : a.amount < b.amount ? -1 : 1;
}

export function min(a: Money, b: Money): Money {
  return compare(a, b) <= 0 ? a : b;
}

export function max(a: Money, b: Money): Money {
  return compare(a, b) >= 0 ? a : b;
}

export function isZero(value: Money): boolean {
  return value.amount === 0;
}

export function isNegative(value: Money): boolean {
  return value.amount < 0;
}

/**
 * Splits `value` according to `ratios` without losing a cent: remainders go to
 * the parts with the largest fractional share (largest-remainder method).
 */
export function allocate(value: Money, ratios: readonly number[]): Money[] {
  const total = ratios.reduce((a, b) => a + b, 0);
  assert(total > 0, "allocate: ratios must sum to a positive number");
  const exact = ratios.map((r) => (value.amount * r) / total);
  const floors = exact.map(Math.floor);
  let remainder = value.amount - floors.reduce((a, b) => a + b, 0);
  const order = exact
    .map((e, i) => ({ i, frac: e - Math.floor(e) }))
    .sort((x, y) => y.frac - x.frac);
  for (const { i } of order) {
    if (remainder <= 0) break;
    floors[i] = (floors[i] ?? 0) + 1;
    remainder -= 1;
  }
  return floors.map((amount) => money(amount, value.currency));
}
