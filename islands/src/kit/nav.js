// Navigation rules of the runtime: which clicks are page navigations, which repeat
// the current URL (ignored), and when prefetching is allowed.
export const PREFETCH_IDLE_MS = 2000;
export const PREFETCH_MAX = 10;

/// A same-document click to the current URL (ignoring the hash only when the link has none).
export function isSameUrl(href, current) {
  const a = new URL(href, current);
  const b = new URL(current);
  if (a.hash && a.hash !== b.hash) return false;
  return a.origin === b.origin && a.pathname === b.pathname && a.search === b.search && !a.hash === !b.hash;
}

/// Whether a click on this link leaves the page for another page of the site.
export function isPageNavigation(link, event, current) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  if (!link.href || link.hasAttribute("download") || (link.target && link.target !== "_self")) return false;
  const url = new URL(link.href, current);
  if (url.origin !== new URL(current).origin) return false;
  if (url.hash && url.pathname === new URL(current).pathname && url.search === new URL(current).search) return false;
  return true;
}

/// Prefetching is skipped offline, on 2g and with Save-Data.
export function prefetchAllowed(nav) {
  if (nav.onLine === false) return false;
  const c = nav.connection;
  if (!c) return true;
  if (c.saveData) return false;
  return !String(c.effectiveType || "").includes("2g");
}

/// Links worth prefetching: same origin, public pages, not nofollow.
export function prefetchable(link, current) {
  if (!link.href || link.hasAttribute("download") || /(^|\s)nofollow(\s|$)/.test(link.rel || "")) return false;
  const url = new URL(link.href, current);
  if (url.origin !== new URL(current).origin) return false;
  if (/^\/(sys|api|space|actives\/loginAuth|dist|upload)(\/|$)/.test(url.pathname)) return false;
  return !isSameUrl(url.href, current);
}
