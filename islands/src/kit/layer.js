// Stacking and scroll locking for modals: z-index starts at 2000 and each open layer
// sits above the previous; the body stops scrolling while a layer is open and is released 200 ms
// after the last one closes (so a closing animation does not jump the page).
export const Z_BASE = 2000;
export const SCROLL_RESTORE_MS = 200;

let z = Z_BASE;
let open = 0;
let release;

/// Opens a layer: returns its z-index and a function that closes it.
export function openLayer(doc = document) {
  clearTimeout(release);
  open += 1;
  doc.documentElement.classList.add("scroll-locked");
  z += 1;
  const mine = z;
  let closed = false;
  return {
    z: mine,
    close() {
      if (closed) return;
      closed = true;
      open -= 1;
      if (open === 0) {
        release = setTimeout(() => {
          if (open === 0) {
            doc.documentElement.classList.remove("scroll-locked");
            z = Z_BASE;
          }
        }, SCROLL_RESTORE_MS);
      }
    },
  };
}

export function openLayers() {
  return open;
}
