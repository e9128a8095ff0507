import { round } from "./round";

export function format(cents: number): string {
  return (round(cents) / 100).toFixed(2);
}
