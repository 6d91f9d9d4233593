// Mounts islands over their server-rendered fallback. Each [data-island] element names its
// module (data-src) and carries JSON props (data-props). Modules load when the browser is idle,
// or when the element becomes visible (data-load="visible"). A module that fails to load forces
// one full page reload (seed §2: chunk load failure); bad props are logged with the island name.
const started = new WeakSet();

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
    .then((mod) => mod.default(el, props))
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
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 1));
  idle(() => load(el));
}

document.querySelectorAll("[data-island]").forEach(schedule);
