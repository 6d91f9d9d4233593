// The hand-off pages in Debian's Chromium with an iPhone's, an Android phone's and WeChat's
// User-Agent and on a desktop: the app link with the store after 1.5 s (the store answered in
// the browser, never reached), WeChat told how to leave for the browser, the mini program by
// its URL scheme on a phone, by WeChat's open tag inside WeChat (the JS-SDK answered by a stub in
// the browser) with its fallback when WeChat refuses, and QR codes on a desktop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36";
const WECHAT = `${IPHONE} MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN`;
const ITUNES = "https://apps.apple.com/cn/app/id1234567890";
const APK = "https://download.usedcar.example/app/usedcar.apk";

async function phone(ua, { wx = null } = {}) {
  const ctx = await getBrowser().newContext({ userAgent: ua, viewport: { width: 390, height: 844 } });
  // Nothing leaves the machine: the stores and WeChat's script are answered here.
  await ctx.route(/^https:\/\/(apps\.apple\.com|download\.usedcar\.example)\//, (route) =>
    route.fulfill({ contentType: "text/html; charset=utf-8", body: "<title>store</title><h1>应用商店</h1>" }),
  );
  await ctx.route(/^https:\/\/res\.wx\.qq\.com\//, (route) => route.fulfill({ contentType: "text/javascript", body: wx || "" }));
  return ctx;
}

for (const [name, ua, store] of [
  ["iPhone", IPHONE, ITUNES],
  ["Android", ANDROID, APK],
]) {
  test(`toapp on an ${name}: the app link, then the store after 1.5 s`, async () => {
    const ctx = await phone(ua);
    const page = await ctx.newPage();
    await page.goto(`${BASE}/actives/toapp?plan=h1`);
    const button = page.getByRole("link", { name: "打开App" });
    assert.equal(await button.getAttribute("href"), store, "without JavaScript the button is this phone's store");
    assert.match(await button.getAttribute("data-app-open"), /usedcar:\/\/home\?plan=h1/);
    const t0 = Date.now();
    await button.click();
    await page.waitForURL(store, { timeout: 5000 });
    assert.ok(Date.now() - t0 >= 1000, "waits about 1.5 s for the app before the store");
    await ctx.close();
  });
}

test("toapp inside WeChat: how to open the page in the browser, the store links kept", async () => {
  const ctx = await phone(WECHAT);
  const page = await ctx.newPage();
  await page.goto(`${BASE}/actives/toapp`);
  assert.equal(await page.locator("[data-app-open]").count(), 0, "WeChat blocks app links");
  assert.match(await page.locator(".handoff-wechat").innerText(), /在浏览器打开/);
  assert.equal(await page.getByRole("link", { name: /App Store 下载/ }).getAttribute("href"), ITUNES);
  await ctx.close();
});

test("openmini on a phone browser: WeChat's URL scheme as a plain link", async () => {
  const ctx = await phone(ANDROID);
  const page = await ctx.newPage();
  await page.goto(`${BASE}/actives/openmini`);
  assert.match(await page.getByRole("link", { name: "打开微信小程序" }).getAttribute("href"), /^weixin:\/\/dl\/business\/\?t=/);
  await ctx.close();
});

test("openmini inside WeChat: the wx-open-launch-weapp tag, and the way by hand when WeChat refuses", async () => {
  const stub = (ok) => `window.wx = { config: function (c) { window.__wxConfig = c; }, ready: function (f) { ${ok ? "setTimeout(f, 0);" : ""} }, error: function (f) { ${ok ? "" : "setTimeout(function () { f({ errMsg: 'config:fail' }); }, 0);"} } };`;
  const ctx = await phone(WECHAT, { wx: stub(true) });
  const page = await ctx.newPage();
  await page.goto(`${BASE}/actives/openmini?plan=h2`);
  const tag = page.locator("wx-open-launch-weapp");
  await tag.waitFor({ state: "attached" });
  assert.match(await tag.getAttribute("username"), /^gh_/);
  assert.equal(await tag.getAttribute("path"), "pages/index/index.html?plan=h2");
  // wx.config runs once the signed configuration has been fetched, after the tag is in the page.
  const config = await (await page.waitForFunction(() => window.__wxConfig)).jsonValue();
  assert.deepEqual(config.openTagList, ["wx-open-launch-weapp"]);
  assert.ok(config.signature && config.appId, "signed by the server for this page");
  await page.waitForFunction(() => document.querySelector(".wx-open")?.dataset.state === "ready");
  await ctx.close();

  const refused = await phone(WECHAT, { wx: stub(false) });
  const p2 = await refused.newPage();
  await p2.goto(`${BASE}/actives/openmini`);
  await p2.waitForFunction(() => document.querySelector(".wx-open")?.dataset.state === "failed");
  assert.match(await p2.locator(".wx-open").innerText(), /搜索「二手车网」/);
  assert.equal(await p2.locator("wx-open-launch-weapp").count(), 0);
  await refused.close();
});

test("on a desktop the app and the mini program pages show a QR code to scan", async () => {
  const ctx = await getBrowser().newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  for (const [path, text] of [
    ["/actives/toapp", "用手机扫码"],
    ["/actives/openmini", "用微信扫一扫"],
  ]) {
    await page.goto(BASE + path);
    assert.ok(await page.locator(".handoff-qr svg").isVisible(), path);
    assert.match(await page.locator(".handoff-qr").innerText(), new RegExp(text));
  }
  await ctx.close();
});
