export function report(line: string): string {
  return `total: ${line}`;
}
