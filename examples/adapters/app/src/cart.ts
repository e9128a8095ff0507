import { price } from "./price";

export function total(items: { sku: string; cents: number; qty: number }[]): number {
  return items.reduce((sum, item) => sum + price(item.cents, item.qty), 0);
}
