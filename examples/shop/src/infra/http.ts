import { createLogger } from "./logger";

const log = createLogger("http");

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly body: string,
  ) {
    super(`HTTP ${status} for ${url}`);
    this.name = "HttpError";
  }

  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

export interface RequestOptions {
  readonly method?: "GET" | "POST" | "PUT" | "DELETE";
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly timeoutMs?: number;
  readonly retries?: number;
}

export interface HttpClientOptions {
  readonly headers?: Record<string, string>;
  readonly timeoutMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class HttpClient {
  constructor(
    private readonly baseUrl: string,
    private readonly options: HttpClientOptions = {},
  ) {}

  get<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>(path, { ...opts, method: "GET" });
  }

  post<T>(path: string, body: unknown, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>(path, { ...opts, method: "POST", body });
  }

  async request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const url = new URL(path.replace(/^\//, ""), this.baseUrl.endsWith("/") ? this.baseUrl : `${this.baseUrl}/`);
    const retries = opts.retries ?? (opts.method === "GET" ? 2 : 0);
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? this.options.timeoutMs ?? 5_000);
      try {
        const res = await fetch(url, {
          method: opts.method ?? "GET",
          headers: { "content-type": "application/json", ...this.options.headers, ...opts.headers },
          body: opts.body === undefined ? null : JSON.stringify(opts.body),
          signal: controller.signal,
        });
        if (!res.ok) {
          throw new HttpError(res.status, url.toString(), await res.text());
        }
        return (res.status === 204 ? undefined : await res.json()) as T;
      } catch (err) {
        const retryable = err instanceof HttpError ? err.retryable : true;
        if (!retryable || attempt >= retries) throw err;
        const backoff = 200 * 2 ** attempt;
        log.warn("request failed, retrying", { url: url.toString(), attempt, backoff });
        await sleep(backoff);
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
