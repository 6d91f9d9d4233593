// The site runtime, loaded by every page (small, no React): mounts islands over their
// server-rendered fallback and adds the navigation niceties — a top progress bar
// during navigation, ignoring a link to the current URL, prefetching visible links after 2000 ms
// idle (not offline, on 2g or with Save-Data), online/offline status, back-to-top, selects that
// follow another (`data-follows`), click guards (`data-guard`) and app-open links
// (`data-app-open`). Page transitions use the View Transitions API from CSS
// (`@view-transition`), so they need no script. Listing photos that fail to load say 加载失败
// (`data-fallback`, kit/fallback.js).
//
// Islands: each [data-island] element names its module (data-src) and carries JSON props
// (data-props). Modules load when the browser is idle, or when the element becomes visible
// (data-load="visible"). A module that fails to load forces one full page reload (chunk
// load failure); bad props are logged with the island name.
import { createProgress } from "./kit/progress.js";
import { isPageNavigation, isSameUrl, prefetchable, prefetchAllowed, PREFETCH_IDLE_MS, PREFETCH_MAX } from "./kit/nav.js";
import { toast } from "./kit/toast.js";
import { guard } from "./kit/guard.js";
import { openApp } from "./kit/appopen.js";
import { follow } from "./kit/follow.js";
import { watchFallbacks } from "./kit/fallback.js";

const started = new WeakSet();
const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 1));

function load(el) {
  if (started.has(el)) return;
  started.add(el);
  const name = el.dataset.island;
  let props;
  try {
    props = JSON.parse(el.dataset.props || "{}");
  } catch (err) {
    console.error(`[island ${name}] bad props JSON; keeping the server-rendered markup`, err);
    return;
  }
  import(el.dataset.src)
    .then((mod) => {
      mod.default(el, props);
      el.dataset.mounted = "1";
    })
    .catch((err) => {
      console.error(`[island ${name}] failed to load`, err);
      const key = "island-reload:" + location.pathname;
      try {
        if (sessionStorage.getItem(key)) return;
        sessionStorage.setItem(key, "1");
      } catch (_) {
        return;
      }
      location.reload();
    });
}

function schedule(el) {
  if (el.dataset.load === "visible" && "IntersectionObserver" in window) {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        io.disconnect();
        load(el);
      }
    });
    io.observe(el);
    return;
  }
  idle(() => load(el));
}

watchFallbacks(document);
document.querySelectorAll("[data-island]").forEach(schedule);

// Progress bar, same-URL clicks, guards and app-open links.
const progress = createProgress();
document.addEventListener("click", (e) => {
  const guarded = e.target.closest?.("[data-guard]");
  if (guarded && !guard(guarded, Number(guarded.dataset.guard) || undefined)) {
    e.preventDefault();
    return;
  }
  const app = e.target.closest?.("a[data-app-open]");
  if (app) {
    e.preventDefault();
    try {
      openApp(JSON.parse(app.dataset.appOpen));
    } catch (err) {
      console.error("[app-open] bad options", err);
    }
    return;
  }
  const link = e.target.closest?.("a[href]");
  if (!link || !isPageNavigation(link, e, location.href)) return;
  if (isSameUrl(link.href, location.href)) {
    e.preventDefault(); // repeated navigation to the same route is ignored
    return;
  }
  progress.start();
});
document.addEventListener("submit", (e) => {
  if (!e.defaultPrevented && (!e.target.target || e.target.target === "_self")) progress.start();
});
// Back from the bfcache: the bar of the page we left must not stay.
window.addEventListener("pageshow", () => progress.done());

// Online / offline status.
let banner;
function offline() {
  if (banner) return;
  banner = document.createElement("p");
  banner.className = "net-status";
  banner.setAttribute("role", "alert");
  banner.textContent = "网络已断开，请检查网络设置";
  document.body.prepend(banner);
}
window.addEventListener("offline", offline);
window.addEventListener("online", () => {
  banner?.remove();
  banner = null;
  toast("网络已恢复");
});
if (navigator.onLine === false) offline();

// Selects that follow another (车系 after 品牌).
for (const select of document.querySelectorAll("select[data-follows]")) {
  const lead = document.getElementById(select.dataset.follows);
  if (lead) follow(select, lead);
}

// A row of tabs wider than the screen (the dealer tools on a phone) starts with the current tab
// in view: the row scrolls, the page does not.
// After the load, once the fonts and styles have given the tabs their widths.
const showCurrentTab = () => {
  for (const row of document.querySelectorAll(".dealer-nav")) {
    const on = row.querySelector("[aria-current=page]");
    if (!on || row.scrollWidth <= row.clientWidth) continue;
    row.scrollLeft += on.getBoundingClientRect().left - row.getBoundingClientRect().left - (row.clientWidth - on.offsetWidth) / 2;
  }
};
if (document.readyState === "complete") showCurrentTab();
else window.addEventListener("load", showCurrentTab);

// Back to top: appears after one screen of scrolling, and steps aside while a control (a pager, a
// submit button, a date field, a card's 收藏) is under it, so it never stands in front of one.
// A link much larger than the button (a whole card) stays tappable around it and does not count.
const CONTROL = "a[href], button, input, select, textarea, summary, label";
function coversControl(button) {
  const r = button.getBoundingClientRect();
  const area = r.width * r.height;
  const points = [
    [r.left + 2, r.top + 2],
    [r.right - 2, r.top + 2],
    [r.left + 2, r.bottom - 2],
    [r.right - 2, r.bottom - 2],
    [(r.left + r.right) / 2, (r.top + r.bottom) / 2],
  ];
  return points.some(([x, y]) =>
    document.elementsFromPoint(x, y).some((el) => {
      if (button.contains(el)) return false;
      const control = el.closest(CONTROL);
      if (!control) return false;
      const c = control.getBoundingClientRect();
      return !(control.matches("a") && c.width * c.height > 6 * area);
    }),
  );
}
// A form answered with its errors is reached by its fragment (#ask), and browsers skip
// `autofocus` when the address has one: the field the server marked gets the focus here.
// After the load, when the browser has scrolled to the fragment (which would take it away).
const focusMarked = () => {
  const id = location.hash.slice(1).replace(/[^\w-]/g, "");
  const marked = id ? document.getElementById(id)?.querySelector("[autofocus]") : null;
  if (marked) marked.focus({ preventScroll: true });
};
if (document.readyState === "complete") setTimeout(focusMarked, 0);
else window.addEventListener("load", () => setTimeout(focusMarked, 0));

const top = document.createElement("button");
top.type = "button";
top.className = "back-top";
top.hidden = true;
top.textContent = "↑";
top.setAttribute("aria-label", "回到顶部");
top.addEventListener("click", () => {
  window.scrollTo({ top: 0, behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  document.getElementById("main")?.focus({ preventScroll: true });
});
document.body.appendChild(top);
let ticking = false;
window.addEventListener(
  "scroll",
  () => {
    if (ticking) return;
    ticking = true;
    requestAnimationFrame(() => {
      top.hidden = window.scrollY < window.innerHeight;
      // Measured while shown but invisible, so the test sees where it would be.
      if (!top.hidden) top.classList.toggle("aside", coversControl(top));
      ticking = false;
    });
  },
  { passive: true },
);

// Prefetch visible links once the page has been idle for 2000 ms.
function prefetchVisible() {
  if (!prefetchAllowed(navigator) || !("IntersectionObserver" in window)) return;
  const done = new Set([location.href]);
  let count = 0;
  const io = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      io.unobserve(entry.target);
      const href = entry.target.href.split("#")[0];
      if (done.has(href) || count >= PREFETCH_MAX || !prefetchAllowed(navigator)) continue;
      done.add(href);
      count += 1;
      const hint = document.createElement("link");
      hint.rel = "prefetch";
      hint.href = href;
      document.head.appendChild(hint);
    }
    if (count >= PREFETCH_MAX) io.disconnect();
  });
  document.querySelectorAll("a[href]").forEach((a) => prefetchable(a, location.href) && io.observe(a));
}
const afterLoad = () => setTimeout(() => idle(prefetchVisible), PREFETCH_IDLE_MS);
if (document.readyState === "complete") afterLoad();
else window.addEventListener("load", afterLoad);
