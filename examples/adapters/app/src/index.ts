import { checkout } from "./checkout";
import { report } from "./report";

export function main(): string {
  return report(checkout([{ sku: "tea", cents: 450, qty: 2 }]));
}
