// A listing photo that fails to load keeps its frame and says 加载失败 (the image-failure
// label). Photos opt in with `data-fallback`: the server writes no inline handler, so the page's
// Content-Security-Policy allows no inline script at all. Without JavaScript a failed photo
// shows the browser's own broken image, as it did with an inline handler.

export const FAILED_LABEL = "加载失败";

/// Marks `img` as failed: its other widths dropped (the browser does not try them one by one),
/// the `broken` frame, the label as its text. Once per image.
export function markFailed(img) {
  if (!img || img.tagName !== "IMG" || !img.hasAttribute("data-fallback") || img.classList.contains("broken")) return false;
  img.removeAttribute("srcset");
  img.classList.add("broken");
  img.alt = FAILED_LABEL;
  return true;
}

/// Whether `img` has already failed: loading finished without a picture. A lazy photo not yet
/// requested is not complete.
export function hasFailed(img) {
  return img.complete && img.naturalWidth === 0 && Boolean(img.getAttribute("src"));
}

/// Watches `doc` for failing photos (an image's `error` does not bubble: it is caught on the
/// way down) and marks those that failed before this ran.
export function watchFallbacks(doc) {
  doc.addEventListener("error", (e) => markFailed(e.target), true);
  for (const img of doc.querySelectorAll("img[data-fallback]")) if (hasFailed(img)) markFailed(img);
}
