// Test helpers: render a component into the document and drive it like a visitor.
import { render } from "preact";
import { act } from "preact/test-utils";

export async function show(vnode) {
  const el = document.createElement("div");
  document.body.appendChild(el);
  await act(() => render(vnode, el));
  return el;
}

export const flush = () => act(() => new Promise((r) => setTimeout(r, 0)));

export function button(el, text) {
  const btn = [...el.querySelectorAll("button")].find((b) => b.textContent.trim().startsWith(text) || b.getAttribute("aria-label") === text);
  if (!btn) throw new Error(`no button ${text}: ${el.innerHTML}`);
  return btn;
}

export async function click(el, text) {
  await act(() => button(el, text).click());
  await flush();
}

export async function type(input, value) {
  await act(() => {
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export async function key(target, k, extra = {}) {
  await act(() => target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...extra })));
}
