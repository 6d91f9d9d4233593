// Click guard: after a click the element ignores pointer events for 2000 ms (or a
// custom time), then accepts them again. Used against double submission.
export const GUARD_MS = 2000;

export function guard(el, ms = GUARD_MS) {
  if (el.dataset.guarded) return false;
  el.dataset.guarded = "1";
  el.style.pointerEvents = "none";
  el.setAttribute("aria-busy", "true");
  setTimeout(() => {
    delete el.dataset.guarded;
    el.style.pointerEvents = "";
    el.removeAttribute("aria-busy");
  }, ms);
  return true;
}
