export function round(cents: number): number {
  return Math.round(cents);
}
