import { z } from "zod";
import { HttpClient, HttpError } from "@infra/http";
import type { AppConfig } from "@infra/config";
import type { Money } from "@domain/money";

export interface AuthorizeRequest {
  readonly amount: Money;
  readonly token: string;
  readonly reference: string;
  readonly email: string;
}

export type PaymentResult =
  | { readonly ok: true; readonly authorizationId: string }
  | { readonly ok: false; readonly reason: string };

export interface PaymentGateway {
  authorize(request: AuthorizeRequest): Promise<PaymentResult>;
  capture(authorizationId: string): Promise<void>;
  refund(authorizationId: string, amount: Money): Promise<void>;
}

const AuthorizeResponse = z.object({
  id: z.string(),
  status: z.enum(["authorized", "declined", "requires_action"]),
  decline_code: z.string().optional(),
});

/** Talks to the card processor's REST API. */
export default class HttpPaymentGateway implements PaymentGateway {
  private readonly http: HttpClient;

  constructor(config: Pick<AppConfig, "paymentGatewayUrl" | "paymentApiKey" | "requestTimeoutMs">) {
    this.http = new HttpClient(config.paymentGatewayUrl, {
      headers: { authorization: `Bearer ${config.paymentApiKey}` },
      timeoutMs: config.requestTimeoutMs,
    });
  }

  async authorize(request: AuthorizeRequest): Promise<PaymentResult> {
    try {
      const raw = await this.http.post<unknown>("/authorizations", {
        amount: request.amount.amount,
        currency: request.amount.currency.toLowerCase(),
        source: request.token,
        reference: request.reference,
        receipt_email: request.email,
      });
      const res = AuthorizeResponse.parse(raw);
      if (res.status === "authorized") return { ok: true, authorizationId: res.id };
      return { ok: false, reason: res.decline_code ?? res.status };
    } catch (err) {
      if (err instanceof HttpError && err.status === 402) {
        return { ok: false, reason: "card_declined" };
      }
      throw err;
    }
  }

  async capture(authorizationId: string): Promise<void> {
    await this.http.post(`/authorizations/${encodeURIComponent(authorizationId)}/capture`, {});
  }

  async refund(authorizationId: string, amount: Money): Promise<void> {
    await this.http.post("/refunds", { authorization: authorizationId, amount: amount.amount });
  }
}

/** Deterministic gateway for local runs and tests: declines tokens starting with "tok_decline". */
export class FakePaymentGateway implements PaymentGateway {
  readonly captured: string[] = [];
  private seq = 0;

  async authorize(request: AuthorizeRequest): Promise<PaymentResult> {
    if (request.token.startsWith("tok_decline")) return { ok: false, reason: "card_declined" };
    this.seq += 1;
    return { ok: true, authorizationId: `auth_fake_${this.seq}` };
  }

  async capture(authorizationId: string): Promise<void> {
    this.captured.push(authorizationId);
  }

  async refund(): Promise<void> {}
}
