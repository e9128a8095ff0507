import { capitalize, escape } from "lodash-es";

export function slugify(input: string): string {
  return input
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

export function truncate(input: string, max: number, ellipsis = "…"): string {
  if (input.length <= max) return input;
  return input.slice(0, Math.max(0, max - ellipsis.length)).trimEnd() + ellipsis;
}

export function escapeHtml(input: string): string {
  return escape(input);
}

export function titleCase(input: string): string {
  return input.split(/\s+/).filter(Boolean).map(capitalize).join(" ");
}
