export { Button, type ButtonProps } from "./Button";
export * from "./ProductCard";
export { CartSummary } from "./CartSummary";
export type { CartSummaryProps } from "./CartSummary";
