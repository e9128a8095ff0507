// Locale-aware display helpers for the storefront.

const priceFormats = new Map<string, Intl.NumberFormat>();

function priceFormat(currency: string, locale: string): Intl.NumberFormat {
  const key = `${locale}:${currency}`;
  let fmt = priceFormats.get(key);
  if (!fmt) {
    fmt = new Intl.NumberFormat(locale, { style: "currency", currency });
    priceFormats.set(key, fmt);
  }
  return fmt;
}

/** Formats an amount given in minor units (e.g. cents): formatPrice(1999, "USD") === "$19.99". */
export function formatPrice(amountMinor: number, currency: string, locale = "en-US"): string {
  const fmt = priceFormat(currency, locale);
  const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
  return fmt.format(amountMinor / 10 ** digits);
}

export function formatDate(date: Date, locale = "en-US"): string {
  return new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric" }).format(date);
}

export function pluralize(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

export function formatPercent(value: number, locale = "en-US"): string {
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(value / 100);
}
