import { groupBy, sortBy } from "lodash-es";
import { HttpClient } from "@infra/http";
import { parseProduct, type Product, type Sku } from "@domain/product";

export interface CatalogQuery {
  readonly tag?: string;
  readonly search?: string;
  readonly sort?: "price-asc" | "price-desc" | "title";
}

export class CatalogService {
  static readonly PAGE_SIZE = 48;
  private readonly cache = new Map<Sku, Product>();

  constructor(private readonly http: HttpClient) {}

  async refresh(): Promise<Product[]> {
    const raw = await this.http.get<unknown[]>("/products", { retries: 3 });
    const products = raw.map(parseProduct);
    this.cache.clear();
    for (const p of products) this.cache.set(p.sku, p);
    return products;
  }

  async list(query: CatalogQuery = {}): Promise<Product[]> {
    const all = this.cache.size > 0 ? [...this.cache.values()] : await this.refresh();
    const needle = query.search?.trim().toLowerCase();
    const filtered = all.filter(
      (p) =>
        (!query.tag || p.tags.includes(query.tag)) &&
        (!needle || p.title.toLowerCase().includes(needle) || p.description.toLowerCase().includes(needle)),
    );
    const sorted =
      query.sort === "title"
        ? sortBy(filtered, (p) => p.title.toLowerCase())
        : query.sort === "price-desc"
          ? sortBy(filtered, (p) => -p.price.amount)
          : sortBy(filtered, (p) => p.price.amount);
    return sorted.slice(0, CatalogService.PAGE_SIZE);
  }

  async get(sku: Sku): Promise<Product | undefined> {
    if (this.cache.size === 0) await this.refresh();
    return this.cache.get(sku);
  }

  async byTag(): Promise<Record<string, Product[]>> {
    const all = await this.list();
    const pairs = all.flatMap((p) => p.tags.map((tag) => ({ tag, product: p })));
    const grouped = groupBy(pairs, (x) => x.tag);
    return Object.fromEntries(Object.entries(grouped).map(([tag, xs]) => [tag, xs.map((x) => x.product)]));
  }
}
