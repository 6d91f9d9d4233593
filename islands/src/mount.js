// Renders an island component over its server-rendered fallback (Astro's client:only approach:
// Askama made the markup, so we replace rather than hydrate).
import { createElement } from "react";
import { render } from "react-dom";

export function mount(Component, el, props) {
  el.textContent = "";
  render(createElement(Component, props), el);
}
