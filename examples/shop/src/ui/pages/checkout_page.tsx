import { h } from "../h";
import { CartSummary } from "@ui/components/CartSummary";
import { Button } from "@ui/components/Button";
import {
  CheckoutError,
  type CheckoutRequest,
  type CheckoutService,
  type CheckoutSession,
} from "@services/checkout";

export interface CheckoutPageProps {
  session: CheckoutSession;
  error?: string;
  submitting?: boolean;
}

export function CheckoutPage({ session, error, submitting = false }: CheckoutPageProps) {
  const items = session.cart.lines.reduce((n, l) => n + l.quantity, 0);
  return (
    <main class="checkout">
      <h1>Checkout</h1>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <form method="post" action="/checkout">
        <fieldset>
          <legend>Contact</legend>
          <input name="email" type="email" required={true} />
        </fieldset>
        <fieldset>
          <legend>Shipping</legend>
          <select name="shipping" value={session.shipping}>
            <option value="standard">Standard (3–5 days)</option>
            <option value="express">Express (next day)</option>
            <option value="pickup">Pick up in store</option>
          </select>
        </fieldset>
        <Button label={submitting ? "Placing order…" : "Place order"} type="submit" disabled={submitting} />
      </form>
      <CartSummary pricing={session.pricing} itemCount={items} />
    </main>
  );
}

export type SubmitResult = { ok: true; orderId: string } | { ok: false; error: string };

export async function submitCheckout(service: CheckoutService, request: CheckoutRequest): Promise<SubmitResult> {
  try {
    const order = await service.placeOrder(request);
    return { ok: true, orderId: order.id };
  } catch (err) {
    if (err instanceof CheckoutError) {
      return { ok: false, error: err.code === "payment_declined" ? "Your card was declined." : err.message };
    }
    throw err;
  }
}
