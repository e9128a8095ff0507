export class AssertionError extends Error {
  override name = "AssertionError";
}

/** Throws when `condition` is falsy; narrows the type for the rest of the block. */
export function assert(condition: unknown, message = "Assertion failed"): asserts condition {
  if (!condition) {
    throw new AssertionError(message);
  }
}

/** Exhaustiveness check for discriminated unions. */
export function assertNever(value: never, message?: string): never {
  throw new AssertionError(message ?? `Unexpected value: ${JSON.stringify(value)}`);
}

/** Returns `value` if it is present, otherwise throws with `message`. */
export function invariant<T>(value: T | null | undefined, message: string): T {
  if (value === null || value === undefined) {
    throw new AssertionError(message);
  }
  return value;
}
