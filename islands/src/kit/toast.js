// Toast (2000 ms): one polite live region at the bottom of the page, reused. No React, so
// the runtime and every island can show one.
export const TOAST_MS = 2000;

let region;
let timer;

export function toast(message, ms = TOAST_MS) {
  if (!region || !region.isConnected) {
    region = document.createElement("div");
    region.className = "toast";
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    document.body.appendChild(region);
  }
  region.textContent = message;
  region.classList.add("show");
  clearTimeout(timer);
  timer = setTimeout(() => region.classList.remove("show"), ms);
  return region;
}
