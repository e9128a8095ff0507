import { h } from "../h";
import type { VNode } from "../dom";

export interface ButtonProps {
  label: string;
  variant?: "primary" | "secondary" | "danger";
  type?: "button" | "submit";
  disabled?: boolean;
  onClick?: () => void;
}

export function Button({ label, variant = "primary", type = "button", disabled = false, onClick }: ButtonProps): VNode {
  return (
    <button class={`btn btn-${variant}`} type={type} disabled={disabled} onClick={onClick}>
      {label}
    </button>
  );
}
