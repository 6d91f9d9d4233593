// Renders an island component over its server-rendered fallback (Astro's client:only approach:
// Askama made the markup, so we replace rather than hydrate). Whatever the visitor already typed
// into the fallback's fields is handed over as `typed` ({field name: value}), and the field that
// had the focus keeps it, so an island that loads late on a slow phone loses nothing.
import { createElement, render } from "react";

export function typedValues(el) {
  const typed = {};
  el.querySelectorAll("input[name], textarea[name], select[name]").forEach((f) => {
    if (f.type === "hidden" || f.type === "file" || f.type === "submit" || !f.value) return;
    typed[f.name] = f.value;
    if (f.tagName === "SELECT") typed[f.name + ":label"] = f.selectedOptions[0]?.textContent.trim() || "";
  });
  return typed;
}

export function mount(Component, el, props) {
  const typed = typedValues(el);
  const active = el.contains(document.activeElement) ? document.activeElement.getAttribute("name") || document.activeElement.id : null;
  el.textContent = "";
  render(createElement(Component, { ...props, typed }), el);
  if (active) el.querySelector(`[name="${active}"]:not([type=hidden]), [id="${active}"]`)?.focus();
}
