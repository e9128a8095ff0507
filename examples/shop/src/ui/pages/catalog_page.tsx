import { h } from "../h";
import type { VNode } from "../dom";
import { ProductGrid } from "../components";
import { pluralize } from "@ui/format";
import type { CatalogQuery, CatalogService } from "@services/catalog";

export async function renderCatalogPage(catalog: CatalogService, query: CatalogQuery = {}): Promise<VNode> {
  const products = await catalog.list(query);
  return (
    <main class="catalog">
      <header>
        <h1>{query.tag ? `Shop: ${query.tag}` : "All products"}</h1>
        <p class="count">{pluralize(products.length, "product")}</p>
        <form method="get" action="/search">
          <input name="q" type="search" value={query.search ?? ""} placeholder="Search products" />
        </form>
      </header>
      <ProductGrid products={products} />
    </main>
  );
}
