import "./util/polyfills";
import createLogger, { setLogLevel } from "@infra/logger";
import { loadConfig } from "@infra/config";
import { HttpClient } from "@infra/http";
import { JsonFileStore } from "@infra/storage";
import * as services from "./services";
import { addItem, emptyCart, parseRegion } from "./domain";
import { loadAdminPage, renderCatalogPage, renderToString } from "./ui";

export async function main(argv: readonly string[] = []): Promise<void> {
  const config = loadConfig();
  setLogLevel(config.logLevel);
  const log = createLogger("shop");

  const http = new HttpClient(config.apiBaseUrl, { timeoutMs: config.requestTimeoutMs });
  const catalog = new services.CatalogService(http);
  const inventory = new services.InventoryService(new JsonFileStore<services.StockLevel>(config.dataDir, "stock"));
  const checkout = services.CheckoutService.create(config, inventory);

  if (argv.includes("--admin")) {
    const renderAdminPage = await loadAdminPage();
    console.log(renderToString(await renderAdminPage(inventory)));
    return;
  }

  const page = await renderCatalogPage(catalog, { sort: "price-asc" });
  console.log(renderToString(page));

  const [first] = await catalog.list();
  if (first) {
    const cart = addItem(emptyCart("cart_demo", config.currency), first, 2);
    const session = checkout.quote(cart, parseRegion(config.region), "standard");
    log.info("demo quote", { total: session.pricing.total.amount, currency: session.pricing.total.currency });
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
