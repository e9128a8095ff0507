export { h, Fragment, renderToString } from "./h";
export type { VNode, Child } from "./dom";
export * from "./format";
export { renderCatalogPage } from "./pages/catalog_page";
export { CheckoutPage, submitCheckout, type SubmitResult } from "./pages/checkout_page";

/** The admin screens are rarely used; load them lazily to keep startup fast. */
export async function loadAdminPage() {
  const mod = await import("./pages/admin_page");
  return mod.default;
}
