let counter = 0;

/**
 * Short, roughly time-ordered identifiers such as `ord_lq2x9k1a0f3`.
 * Not cryptographically secure; good enough for carts, orders and reservations.
 */
export function newId(prefix: string): string {
  counter = (counter + 1) % 0x10000;
  const time = Date.now().toString(36);
  const seq = counter.toString(36).padStart(3, "0");
  const rand = Math.floor(Math.random() * 0x100000)
    .toString(36)
    .padStart(4, "0");
  return `${prefix}_${time}${seq}${rand}`;
}

export function hasPrefix(id: string, prefix: string): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
