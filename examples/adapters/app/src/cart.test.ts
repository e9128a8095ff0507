import { total } from "./cart";

export const cartTotal = total([{ sku: "a", cents: 100, qty: 3 }]) === 300;
