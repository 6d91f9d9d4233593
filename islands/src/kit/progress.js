// The top progress bar: NProgress's rules with minimum 0.08, speed 200 ms and a
// trickle of 0.02 every 800 ms; no spinner. The status math is pure for the unit tests.
export const MINIMUM = 0.08;
export const SPEED = 200;
export const TRICKLE_RATE = 0.02;
export const TRICKLE_SPEED = 800;

export const clamp = (n, lo, hi) => Math.min(hi, Math.max(lo, n));

/// The status after set(n): never below the minimum.
export const setStatus = (n) => clamp(n, MINIMUM, 1);

/// The status after a trickle: +0.02, stopping short of the end.
export function trickle(n) {
  if (n == null) return MINIMUM;
  if (n >= 1) return n;
  return clamp(n + TRICKLE_RATE, 0, 0.994);
}

export function createProgress(doc = document) {
  let status = null;
  let timer;
  let bar;
  const render = () => {
    if (!bar) {
      bar = doc.createElement("div");
      bar.className = "nprogress";
      bar.setAttribute("aria-hidden", "true");
      bar.appendChild(doc.createElement("div"));
      doc.body.appendChild(bar);
    }
    bar.classList.add("on");
    bar.firstChild.style.transform = `translate3d(${(-1 + status) * 100}%,0,0)`;
  };
  return {
    get status() {
      return status;
    },
    start() {
      status = setStatus(0);
      render();
      clearInterval(timer);
      timer = setInterval(() => {
        status = trickle(status);
        render();
      }, TRICKLE_SPEED);
    },
    done() {
      if (status == null) return;
      clearInterval(timer);
      status = 1;
      render();
      setTimeout(() => {
        bar?.classList.remove("on");
        status = null;
      }, SPEED);
    },
  };
}
