import { h, Fragment } from "../h";
import { formatPrice, pluralize } from "../format";
import type { PriceBreakdown } from "@domain/pricing";

export interface CartSummaryProps {
  pricing: PriceBreakdown;
  itemCount: number;
}

const price = (m: { amount: number; currency: string }) => formatPrice(m.amount, m.currency);

export function CartSummary({ pricing, itemCount }: CartSummaryProps) {
  return (
    <aside class="cart-summary">
      <h2>Order summary</h2>
      <dl>
        <dt>Subtotal ({pluralize(itemCount, "item")})</dt>
        <dd>{price(pricing.subtotal)}</dd>
        {pricing.discounts.map((d) => (
          <>
            <dt>
              {d.description} <code>{d.code}</code>
            </dt>
            <dd class="discount">−{price(d.amount)}</dd>
          </>
        ))}
        <dt>Shipping</dt>
        <dd>{pricing.shipping.amount === 0 ? "Free" : price(pricing.shipping)}</dd>
        <dt>{pricing.taxInclusive ? "Includes VAT" : "Tax"}</dt>
        <dd>{price(pricing.tax)}</dd>
        <dt class="total">Total</dt>
        <dd class="total">{price(pricing.total)}</dd>
      </dl>
    </aside>
  );
}
