// Fallback settings for local development. Production overrides every one of
// these through SHOP_* environment variables (see env.js).
module.exports = {
  API_BASE_URL: "https://api.shop.example.com/v1",
  PAYMENT_GATEWAY_URL: "https://payments.example.com/v2",
  PAYMENT_API_KEY: "sk_test_local",
  CURRENCY: "USD",
  REGION: "US-CA",
  DATA_DIR: ".data",
  LOG_LEVEL: "info",
  REQUEST_TIMEOUT_MS: "5000",
};
