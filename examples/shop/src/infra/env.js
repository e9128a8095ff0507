"use strict";

const defaults = require("./defaults");

function pick(name, fallback) {
  const value = typeof process !== "undefined" && process.env ? process.env[name] : undefined;
  return value === undefined || value === "" ? fallback : value;
}

/** Raw, unvalidated settings; config.ts validates and types them. */
function readEnv() {
  return {
    apiBaseUrl: pick("SHOP_API_URL", defaults.API_BASE_URL),
    paymentGatewayUrl: pick("SHOP_PAYMENT_URL", defaults.PAYMENT_GATEWAY_URL),
    paymentApiKey: pick("SHOP_PAYMENT_KEY", defaults.PAYMENT_API_KEY),
    currency: pick("SHOP_CURRENCY", defaults.CURRENCY),
    region: pick("SHOP_REGION", defaults.REGION),
    dataDir: pick("SHOP_DATA_DIR", defaults.DATA_DIR),
    logLevel: pick("SHOP_LOG_LEVEL", defaults.LOG_LEVEL),
    requestTimeoutMs: pick("SHOP_TIMEOUT_MS", defaults.REQUEST_TIMEOUT_MS),
  };
}

module.exports = { readEnv };
