import { money, percentage, type Money } from "./money";

export const REGIONS = ["US-CA", "US-NY", "US-TX", "EU-DE", "EU-FR", "UK"] as const;
export type Region = (typeof REGIONS)[number];

const RATES: Record<Region, number> = {
  "US-CA": 7.25,
  "US-NY": 4,
  "US-TX": 6.25,
  "EU-DE": 19,
  "EU-FR": 20,
  UK: 20,
};

export function parseRegion(value: string): Region {
  const match = REGIONS.find((r) => r === value.toUpperCase());
  if (!match) {
    throw new Error(`unsupported region: ${value}`);
  }
  return match;
}

export function taxRate(region: Region): number {
  return RATES[region];
}

/** EU and UK shelf prices already include VAT; US sales tax is added at checkout. */
export function isTaxInclusive(region: Region): boolean {
  return region.startsWith("EU-") || region === "UK";
}

export function computeTax(taxable: Money, region: Region): Money {
  const rate = taxRate(region);
  if (isTaxInclusive(region)) {
    // Portion of a gross amount that is tax: gross * rate / (100 + rate).
    return money(Math.round((taxable.amount * rate) / (100 + rate)), taxable.currency);
  }
  return percentage(taxable, rate);
}
