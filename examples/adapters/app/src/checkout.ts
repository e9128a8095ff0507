import { total } from "./cart";
import { format } from "money-lib";

export function checkout(items: { sku: string; cents: number; qty: number }[]): string {
  return format(total(items));
}
