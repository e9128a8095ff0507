import { checkout } from "./checkout";

export const formatted = checkout([{ sku: "a", cents: 199, qty: 1 }]) === "1.99";
