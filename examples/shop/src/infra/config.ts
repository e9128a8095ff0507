import { z } from "zod";
import env = require("./env");

const ConfigSchema = z.object({
  apiBaseUrl: z.string().url(),
  paymentGatewayUrl: z.string().url(),
  paymentApiKey: z.string().min(1),
  currency: z.enum(["USD", "EUR", "GBP", "JPY"]),
  region: z.string().min(2),
  dataDir: z.string().min(1),
  logLevel: z.enum(["debug", "info", "warn", "error"]),
  requestTimeoutMs: z.coerce.number().int().positive(),
});

export type AppConfig = z.infer<typeof ConfigSchema>;

let cached: AppConfig | undefined;

export class ConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n  ${issues.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  if (cached && Object.keys(overrides).length === 0) return cached;
  const parsed = ConfigSchema.safeParse({ ...env.readEnv(), ...overrides });
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  cached = parsed.data;
  return cached;
}

export function resetConfigForTests(): void {
  cached = undefined;
}
