// WeChat's JS-SDK: loading its script once, and asking our server for the signature of the page
// URL without its hash (answered as "timestamp,nonce,signature,appId").
import { parseSign, signedUrl } from "./share.js";

/// Loads the JS-SDK script (once); resolves to `window.wx`.
export function loadScript(src) {
  return new Promise((resolve, reject) => {
    if (window.wx) return resolve(window.wx);
    const s = document.createElement("script");
    s.src = src;
    s.onload = () => (window.wx ? resolve(window.wx) : reject(new Error("wx missing")));
    s.onerror = () => reject(new Error("JS-SDK failed to load"));
    document.head.appendChild(s);
  });
}

/// The JS-SDK and the page's signature, fetched together.
export async function wxAndSign({ jssdkUrl, signUrl }, env = { href: window.location.href, fetch: window.fetch.bind(window), load: loadScript }) {
  const [wx, res] = await Promise.all([
    env.load(jssdkUrl),
    env.fetch(signUrl, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: signedUrl(env.href) }), credentials: "same-origin" }),
  ]);
  const body = await res.json();
  const sign = body.success ? parseSign(body.data) : null;
  if (!sign) throw new Error(body.msg || "sign refused");
  return { wx, sign };
}
