// Type declarations for the tiny virtual-DOM runtime in h.ts (the shop renders
// server-side to HTML strings; no React).

export type Child = VNode | string | number | boolean | null | undefined | readonly Child[];

export interface Props {
  readonly [attribute: string]: unknown;
}

export type Component<P = Record<string, unknown>> = (props: P) => VNode;

export interface VNode {
  readonly tag: string | Component<any>;
  readonly props: Props;
  readonly children: readonly Child[];
}

declare global {
  namespace JSX {
    interface Element extends VNode {}
    interface IntrinsicElements {
      [tag: string]: Record<string, unknown>;
    }
  }
}
