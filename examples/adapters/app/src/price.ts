export function price(cents: number, qty: number): number {
  return cents * qty;
}
