// Public surface of the domain layer.
export * from "./money";
export * from "./product";
export {
  emptyCart,
  addItem,
  removeItem,
  setQuantity,
  applyCoupon,
  subtotal,
  itemCount,
  type Cart,
  type CartLine,
} from "./cart";
export { priceCart, type PriceBreakdown, type ShippingMethod } from "./pricing";
export type { DiscountRule, AppliedDiscount } from "./discounts";
export { parseRegion, REGIONS, type Region } from "./tax";
export { createOrder, describeOrder, transition, type Order, type OrderStatus, type Address } from "./order";
