/**
 * @deprecated Price helpers from the pre-2023 storefront widget.
 *
 * Nothing imports this module any more (ui/format.ts replaced it); it is kept
 * only until the partner widget embed is retired.
 */
import { truncate } from "./strings";

export function legacyFormatPrice(cents: number, symbol = "$"): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (abs % 100).toString().padStart(2, "0");
  return `${sign}${symbol}${whole}.${fraction}`;
}

export function legacyProductLabel(title: string, cents: number): string {
  return `${truncate(title, 32)} — ${legacyFormatPrice(cents)}`;
}
