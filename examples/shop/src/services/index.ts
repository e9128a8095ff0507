export { CheckoutService, CheckoutError, onCheckoutEvent } from "./checkout";
export type { CheckoutEvent, CheckoutHook, CheckoutRequest, CheckoutSession } from "./checkout";
export { InventoryService, OutOfStockError, type StockLevel } from "./inventory";
export * from "./catalog";
export { default as HttpPaymentGateway, FakePaymentGateway } from "./payment";
export type { PaymentGateway, PaymentResult } from "./payment";
export { Notifier, LogChannel, type NotificationChannel } from "./notifications";
