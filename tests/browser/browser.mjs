// Shared set-up of the browser tests: Debian's Chromium with the flags our guide requires (never
// a downloaded browser), the server under test (BASE_URL, started by `cargo xtask test`; only
// 127.0.0.1 is contacted), the China time zone, and the phone User-Agent.
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readdirSync } from "node:fs";
import { connect, createServer } from "node:net";
import { basename, dirname } from "node:path";
import { chromium } from "playwright-core";

/// The server under test.
const SERVER = new URL(process.env.BASE_URL || "http://127.0.0.1:8080");

/// The loopback address this test file reaches the server from: 127.0.0.(10 + its place among
/// the files), so each file has the per-address limits (SMS codes, sign-in tickets) to itself and
/// a new file never uses up another's. `node --test` runs each file in a process of its own.
function sourceAddress() {
  const file = process.argv[1] || "";
  const files = readdirSync(dirname(file) || ".").filter((f) => f.endsWith(".test.mjs")).sort();
  const i = files.indexOf(basename(file));
  return i < 0 ? null : `127.0.0.${10 + i}`;
}

/// A local relay to the server whose outgoing connections come from `from`; its origin.
async function relay(from) {
  const server = createServer((inbound) => {
    const outbound = connect({ host: SERVER.hostname, port: Number(SERVER.port), localAddress: from });
    inbound.pipe(outbound).pipe(inbound);
    const close = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on("error", close);
    outbound.on("error", close);
  });
  server.unref();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

/// The site's own address (its configured URL), which links made for other devices and for
/// sharing carry.
export const SITE = SERVER.origin;

const FROM = sourceAddress();
/// Where the tests open pages: the server, through this file's own source address.
export const BASE = FROM ? await relay(FROM) : SERVER.origin;
/// The development server's secret for the app's sign-in links.
export const DEV_APP_TOKEN_SECRET = "development-only-app-token-secret";

/// The address that signs the app's user in (`?mobile=&appToken=`), as the app's server makes
/// it: five minutes, signed with the server's secret.
export function appSignIn(path, mobile, { base = BASE, secret = DEV_APP_TOKEN_SECRET } = {}) {
  const expiry = Math.floor(Date.now() / 1000) + 300;
  const sig = createHmac("sha256", secret).update(`app\x1f${mobile}\x1f${expiry}`).digest("hex");
  return `${base}${path}?mobile=${mobile}&appToken=${expiry}.${sig}`;
}

export const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

/// The four ways a visitor comes: phone or desktop, JavaScript on or off (`n` numbers them, for
/// a distinct phone per variant).
export const VARIANTS = [
  { name: "phone, JavaScript on", mobile: true, js: true, n: 1 },
  { name: "phone, JavaScript off", mobile: true, js: false, n: 2 },
  { name: "desktop, JavaScript on", mobile: false, js: true, n: 3 },
  { name: "desktop, JavaScript off", mobile: false, js: false, n: 4 },
];

/// The browser context options of a variant: a phone (the iPhone's User-Agent, 390×844) or a
/// desktop (1280×900), JavaScript as the variant says.
export function variantOptions(v) {
  return {
    javaScriptEnabled: v.js,
    ...(v.mobile ? { userAgent: IPHONE, viewport: { width: 390, height: 844 } } : { viewport: { width: 1280, height: 900 } }),
  };
}

/// Launches Chromium before the file's tests and closes it after; returns a getter.
export function useBrowser() {
  let browser;
  before(async () => {
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
      // Our visitors' clocks are on China time, as the server's calendar days are: a machine on
      // UTC would otherwise see "today" a day behind the site's for eight hours of the day.
      env: { ...process.env, TZ: "Asia/Shanghai" },
    });
  });
  after(async () => {
    await browser?.close();
  });
  return () => browser;
}

/// Fills the login form on the current page: phone, 获取验证码, the sandbox code (kept beside the
/// form in the sandbox), 登录. Each call spends one of the codes this address may ask for in an hour.
export async function signIn(page, mobile) {
  // With scripts on, the Login island mounts over the server-rendered form; a click that lands
  // while it swaps the markup is lost, so the form is used once its island has mounted.
  if (await page.evaluate(() => matchMedia("(scripting: enabled)").matches)) {
    await page.waitForFunction(() => {
      const island = document.querySelector("#login-mobile")?.closest("[data-island]");
      return !island || island.dataset.mounted === "1";
    });
  }
  await page.fill("#login-mobile", mobile);
  await page.locator("button", { hasText: "获取验证码" }).click();
  const code = (await page.locator(".sandbox-code").innerText()).trim();
  assert.match(code, /^\d{6}$/);
  assert.equal(await page.inputValue("#login-mobile"), mobile, "the phone is kept");
  await page.fill("#login-code", code);
  await page.locator("form.login-form button.btn", { hasText: "登录" }).click();
}
