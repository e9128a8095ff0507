// Runtime shims for the older embedded browsers some storefront partners still
// run (Safari 14, Android WebView 88). Imported once for its side effects.

if (typeof Object.hasOwn !== "function") {
  Object.defineProperty(Object, "hasOwn", {
    value: (target: object, key: PropertyKey): boolean =>
      Object.prototype.hasOwnProperty.call(target, key),
    configurable: true,
    writable: true,
  });
}

if (typeof globalThis.queueMicrotask !== "function") {
  Object.defineProperty(globalThis, "queueMicrotask", {
    value: (callback: () => void): void => {
      void Promise.resolve().then(callback);
    },
    configurable: true,
    writable: true,
  });
}

export {};
