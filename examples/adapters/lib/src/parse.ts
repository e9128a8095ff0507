export function parse(text: string): number {
  return Math.round(Number(text) * 100);
}
