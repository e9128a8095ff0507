import type { Child, Component, Props, VNode } from "./dom";

const VOID_TAGS = new Set(["br", "hr", "img", "input", "meta", "link"]);

function flatten(children: readonly Child[], out: Child[] = []): Child[] {
  for (const c of children) {
    if (Array.isArray(c)) flatten(c as readonly Child[], out);
    else out.push(c);
  }
  return out;
}

/** JSX factory (configured as `jsxFactory` in tsconfig.json). */
export function h(tag: string | Component<any>, props: Props | null, ...children: Child[]): VNode {
  return { tag, props: props ?? {}, children: flatten(children) };
}

export function Fragment(props: { children?: readonly Child[] }): VNode {
  return { tag: "", props: {}, children: props.children ?? [] };
}

const escapeText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, "&quot;");

function renderAttrs(props: Props): string {
  return Object.entries(props)
    .filter(([name, value]) => !name.startsWith("on") && value !== false && value != null)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escapeAttr(String(value))}"`))
    .join("");
}

export function renderToString(node: Child): string {
  if (node === null || node === undefined || typeof node === "boolean") return "";
  if (typeof node === "string" || typeof node === "number") return escapeText(String(node));
  if (Array.isArray(node)) return (node as readonly Child[]).map(renderToString).join("");
  const vnode = node as VNode;
  if (typeof vnode.tag === "function") {
    return renderToString(vnode.tag({ ...vnode.props, children: vnode.children }));
  }
  const inner = vnode.children.map(renderToString).join("");
  if (vnode.tag === "") return inner;
  if (VOID_TAGS.has(vnode.tag)) return `<${vnode.tag}${renderAttrs(vnode.props)}>`;
  return `<${vnode.tag}${renderAttrs(vnode.props)}>${inner}</${vnode.tag}>`;
}
