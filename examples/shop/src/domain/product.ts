import { z } from "zod";
import { fromMajor, CURRENCIES, type CurrencyCode, type Money } from "./money";
import { slugify } from "@util/strings";

export type Sku = string & { readonly __brand: "Sku" };

export const ProductSchema = z.object({
  sku: z.string().regex(/^[A-Z0-9-]{3,32}$/, "SKU must be upper-case alphanumeric"),
  title: z.string().min(1),
  description: z.string().default(""),
  price: z.number().nonnegative(),
  currency: z.enum(CURRENCIES as [CurrencyCode, ...CurrencyCode[]]),
  tags: z.array(z.string()).default([]),
  weightGrams: z.number().int().positive().optional(),
});

export type ProductInput = z.input<typeof ProductSchema>;

export interface Product {
  readonly sku: Sku;
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly price: Money;
  readonly tags: readonly string[];
  /** Undefined for digital goods, which never ship. */
  readonly weightGrams?: number;
}

export function asSku(value: string): Sku {
  const normalized = value.trim().toUpperCase();
  if (!/^[A-Z0-9-]{3,32}$/.test(normalized)) {
    throw new Error(`invalid SKU: ${value}`);
  }
  return normalized as Sku;
}

/** Validates an API/catalog payload and converts the major-unit price to Money. */
export function parseProduct(raw: unknown): Product {
  const data = ProductSchema.parse(raw);
  return {
    sku: asSku(data.sku),
    slug: slugify(data.title),
    title: data.title,
    description: data.description,
    price: fromMajor(data.price, data.currency),
    tags: data.tags,
    weightGrams: data.weightGrams,
  };
}

export function isDigital(product: Product): boolean {
  return product.weightGrams === undefined;
}
