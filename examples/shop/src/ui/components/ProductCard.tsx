import { h } from "../h";
import { formatPrice } from "../format";
import { Button } from "./Button";
import type { Product } from "@domain/product";
import { truncate } from "@util/strings";

export interface ProductCardProps {
  product: Product;
  compact?: boolean;
  onAdd?: (product: Product) => void;
}

export function ProductCard({ product, compact = false, onAdd }: ProductCardProps) {
  return (
    <article class="product-card" data-sku={product.sku}>
      <a href={`/products/${product.slug}`}>
        <h3>{product.title}</h3>
      </a>
      {compact ? null : <p class="description">{truncate(product.description, 140)}</p>}
      <span class="price">{formatPrice(product.price.amount, product.price.currency)}</span>
      <Button label="Add to cart" onClick={() => onAdd?.(product)} />
    </article>
  );
}

export function ProductGrid({ products, onAdd }: { products: readonly Product[]; onAdd?: (product: Product) => void }) {
  if (products.length === 0) {
    return <p class="empty">No products match your search.</p>;
  }
  return (
    <section class="product-grid">
      {products.map((p) => (
        <ProductCard product={p} onAdd={onAdd} compact={products.length > 24} />
      ))}
    </section>
  );
}
