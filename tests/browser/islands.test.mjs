// The islands kit in Debian's Chromium, on a phone and a desktop viewport: date picker (mouse and
// keyboard), region picker, text input, confirm box, share (copy, and WeChat's JS-SDK served by a
// local stand-in), gallery (autoplay, keys, zoom, Escape), login countdown, photo uploader with a
// failed upload retried, app-open, the runtime's navigation niceties, the per-page JavaScript
// budget, and axe-core on the pages that host islands.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { BASE, IPHONE, SITE, useBrowser } from "./browser.mjs";

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const PAGES = JSON.parse(fs.readFileSync(new URL("../../islands/pages.json", import.meta.url), "utf8"));
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36";
const WECHAT = IPHONE + " MicroMessenger/8.0.47";

const getBrowser = useBrowser();
const viewports = [
  { name: "phone", options: { userAgent: IPHONE, viewport: { width: 390, height: 844 }, hasTouch: true } },
  { name: "desktop", options: { viewport: { width: 1280, height: 900 } } },
];

async function open(options, path) {
  const context = await getBrowser().newContext({ reducedMotion: "no-preference", ...options });
  const page = await context.newPage();
  const errors = [];
  // Chromium reports a skipped cross-document view transition (here: a navigation delayed by the
  // test's request interception) as an error; the navigation itself is fine.
  page.on("pageerror", (e) => !/ViewTransition/.test(e.message) && errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && !/status of 40[14]|ViewTransition/.test(m.text()) && errors.push(m.text()));
  if (path) await gotoMounted(page, path);
  return { context, page, errors };
}

/// Goes to a page and waits until every island on it has mounted.
async function gotoMounted(page, path) {
  await page.goto(BASE + path);
  await allMounted(page);
}

/// Waits until every island on the page has mounted, scrolling to those that load only when
/// seen (`data-load="visible"`, such as the booking form's date picker), as a visitor would.
async function allMounted(page) {
  for (const el of await page.locator('[data-island][data-load="visible"]').all()) await el.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => [...document.querySelectorAll("[data-island]")].every((e) => e.dataset.mounted === "1"));
}

async function onlineCar(page) {
  await page.goto(BASE + "/carlist?sort=new");
  return new URL(await page.locator("li.card a").first().getAttribute("href"), BASE).pathname;
}

const parsed = (page, field) => page.locator(`[data-field="${field}"]`).innerText();

for (const { name, options } of viewports) {
  test(`${name}: date picker by mouse, by keyboard and typed; range with its limit`, async () => {
    const { context, page, errors } = await open(options, "/sys/kit");
    // Day by mouse: a disabled day (before today) does nothing; today is taken.
    const day = page.locator("#kit-day").locator("xpath=..");
    await day.getByRole("button", { name: "打开日历：日期" }).click();
    const dialog = page.getByRole("dialog", { name: "选择日期" });
    await dialog.waitFor();
    const todayLabel = await page.evaluate(() => {
      const d = new Date();
      return `${d.getFullYear()}年${d.getMonth() + 1}月${d.getDate()}日`;
    });
    await dialog.getByRole("button", { name: todayLabel, exact: true }).click();
    assert.equal(await dialog.count(), 0, "a day pick closes the calendar");
    // Keyboard: open from the toggle, move right, Enter.
    await day.getByRole("button", { name: "打开日历：日期" }).focus();
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await page.waitForFunction(() => document.activeElement.closest(".dp-pop"));
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Enter");
    const picked = await page.inputValue("#kit-day");
    assert.match(picked, /^\d{4}-\d{2}-\d{2}$/);
    // Range: two clicks in reverse order are swapped; more than 7 days cannot be confirmed.
    const range = page.locator("#kit-from").locator("xpath=../..");
    await range.getByRole("button", { name: "打开日历：日期范围" }).click();
    const rdialog = page.getByRole("dialog", { name: "选择日期范围" });
    const cells = rdialog.locator("tbody button:not(.other):not([disabled])");
    await cells.nth(14).click();
    await cells.nth(2).click();
    await rdialog.getByText("选择天数不能超过 7 天").waitFor();
    assert.equal(await rdialog.getByRole("button", { name: "确定" }).isDisabled(), true);
    await cells.nth(12).click();
    await cells.nth(10).click();
    await rdialog.getByRole("button", { name: "确定" }).click();
    // Typed: a month of the right length.
    await page.fill("#kit-month", "2026-05");
    await page.locator("form.kit-form button[type=submit]").click();
    await page.waitForURL(/\/sys\/kit\?/);
    assert.match(await parsed(page, "day"), /服务器解析：\d{4}年\d+月\d+日/);
    assert.match(await parsed(page, "from"), /服务器解析：\d{4}年\d+月11日 至 \d{4}年\d+月13日/);
    assert.equal(await parsed(page, "month"), "服务器解析：2026年5月");
    assert.equal(new URL(page.url()).searchParams.get("day"), picked);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test(`${name}: region picker fills the form field; text input counts and marks the excess`, async () => {
    const { context, page, errors } = await open(options, "/sys/kit");
    const field = page.locator("#kit-city").locator("xpath=..");
    await page.locator(".kit-form .cc-trigger").click();
    const dialog = page.getByRole("dialog", { name: "选择城市" });
    await dialog.locator(".cc-index button").nth(25).waitFor(); // after the region list has loaded
    assert.equal(await dialog.locator(".cc-index button").count(), 26, "A–Z index bar");
    await page.getByLabel("搜索城市").fill("zhuz");
    await dialog.locator(".cc-list button", { hasText: "株洲" }).click();
    assert.equal(await page.locator(".kit-form input[type=hidden][name=city]").inputValue(), "zhuzhou");
    assert.equal(await field.count(), 0, "the plain input was replaced");
    // Keyboard: Escape closes the dialog and gives the focus back.
    await page.locator(".kit-form .cc-trigger").focus();
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await page.waitForFunction(() => document.activeElement.closest("[role=dialog]"));
    await page.keyboard.press("Escape");
    assert.equal(await dialog.count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement.className), "cc-trigger");
    await page.fill("#kit-note", "二".repeat(21));
    assert.equal(await page.locator(".ti-count").innerText(), "已超出1字 · 21/20");
    await page.locator("form.kit-form button[type=submit]").click();
    await page.waitForURL(/city=zhuzhou/);
    assert.equal(await parsed(page, "city"), "服务器解析：zhuzhou");
    assert.deepEqual(errors, []);
    await context.close();
  });

  test(`${name}: confirm box, gallery viewer and the login countdown`, async () => {
    const { context, page, errors } = await open(options, "/sys/kit");
    // Confirm: Escape cancels, 确定 submits.
    await page.getByRole("button", { name: "需要确认的操作" }).click();
    await page.getByRole("dialog", { name: "提示" }).getByText("确定提交这个演示表单吗？").waitFor();
    await page.keyboard.press("Escape");
    assert.equal(page.url(), BASE + "/sys/kit");
    await page.getByRole("button", { name: "需要确认的操作" }).click();
    await page.getByRole("dialog", { name: "提示" }).getByRole("button", { name: "确定" }).click();
    await page.waitForURL(/confirmed=1/);
    await page.locator('[data-field="confirmed"]').waitFor();
    await allMounted(page);

    // Gallery: keys, autoplay, viewer with zoom, 加载失败 on the broken third photo.
    const gallery = page.getByRole("region", { name: /车辆图片/ });
    await gallery.focus();
    const count = gallery.locator(".count");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    assert.equal(await count.innerText(), "3/3");
    await gallery.locator(".img-broken", { hasText: "加载失败" }).waitFor();
    await page.keyboard.press("ArrowRight");
    await gallery.blur();
    await page.mouse.move(0, 0);
    await page.waitForFunction(() => document.querySelector(".gallery .count").textContent === "2/3", null, { timeout: 5000 });
    await gallery.getByRole("button", { name: /查看大图/ }).click();
    const viewer = page.getByRole("dialog", { name: "查看大图" });
    await viewer.waitFor();
    // The photos come from the list the island replaced: the viewer shows the widest size.
    assert.equal(await viewer.locator(".g-zoom img").getAttribute("src"), "/upload/demo/sedan-white-2_w960.webp");
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).overflow), "hidden", "the page behind does not scroll");
    const zIndex = await page.evaluate(() => Number(getComputedStyle(document.querySelector(".modal-mask")).zIndex));
    assert.ok(zIndex > 2000, `z-index from 2000 up: ${zIndex}`);
    for (let i = 0; i < 5; i++) await viewer.getByRole("button", { name: "放大" }).click({ force: true });
    assert.equal(await viewer.locator(".g-zoom").evaluate((e) => e.style.transform), "scale(3)");
    assert.equal(await viewer.getByRole("button", { name: "放大" }).isDisabled(), true);
    await page.keyboard.press("Escape");
    assert.equal(await viewer.count(), 0);
    // Scrolling comes back once the viewer's closing animation ends (200 ms).
    await page.waitForFunction(() => getComputedStyle(document.documentElement).overflow !== "hidden", null, { timeout: 2000 });

    // Login: the mobile-kit messages, then the 60 s countdown after a code is sent.
    const login = page.locator(".login-form").last();
    await login.locator("button.send-code").click();
    assert.equal(await login.locator("#login-mobile-error").innerText(), "请填写手机号");
    await login.locator("#login-mobile").fill("1381234");
    await login.locator("button.send-code").click();
    assert.equal(await login.locator("#login-mobile-error").innerText(), "请输入正确的手机号");
    const run = String(Date.now()).slice(-8);
    await login.locator("#login-mobile").fill(`13${name === "phone" ? 6 : 7}${run}`);
    await login.locator("button.send-code").click();
    await login.locator(".sandbox-code").waitFor();
    assert.match(await login.locator("button.send-code").innerText(), /^(60|59)秒后重新获取$/);
    assert.equal(await login.locator("button.send-code").isDisabled(), true);
    await login.locator("#login-code").fill((await login.locator(".sandbox-code").innerText()).trim());
    await login.getByRole("button", { name: "登录", exact: true }).click();
    await page.waitForURL(BASE + "/sys/kit");
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test("the city filter of /carlist picks a city by pinyin and keeps the other filters", async () => {
  const { context, page, errors } = await open(viewports[0].options, "/carlist?price=5-8&sort=price_asc");
  // On a phone the filter panel starts folded, so the first car stays above the fold.
  const box = page.locator("details.filters-box");
  if ((await box.getAttribute("open")) === null) await box.locator(":scope > summary").click();
  await page.locator(".filters .cc-trigger").click();
  await page.getByLabel("搜索城市").fill("changsha");
  await page.getByRole("dialog", { name: "选择城市" }).locator(".cc-list button", { hasText: "长沙" }).click();
  await page.waitForURL(/city=changsha/);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("price"), "5-8");
  assert.equal(url.searchParams.get("sort"), "price_asc");
  assert.match(await page.locator("h1").innerText(), /长沙/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("photo uploader: three photos with progress, a failed one retried, reordered and removed", async () => {
  const { context, page, errors } = await open(viewports[1].options, "/sys/kit");
  let calls = 0;
  await page.route("**/sys/kit/upload", async (route) => {
    calls += 1;
    if (calls === 2) return route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ success: false, code: "CM003", msg: "上传服务繁忙，请重试" }) });
    return route.continue();
  });
  // Three small PNGs made by the browser itself.
  const files = await page.evaluate(async () => {
    const out = [];
    for (const [i, colour] of ["red", "green", "blue"].entries()) {
      const c = document.createElement("canvas");
      c.width = 64;
      c.height = 48;
      const g = c.getContext("2d");
      g.fillStyle = colour;
      g.fillRect(0, 0, 64, 48);
      out.push({ name: `car-${i + 1}.png`, mimeType: "image/png", data: c.toDataURL("image/png").split(",")[1] });
    }
    return out;
  });
  await page.locator(".up-add input").first().setInputFiles(files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: Buffer.from(f.data, "base64") })));
  await page.locator(".up-item").nth(2).waitFor();
  await page.locator(".up-failed").getByText("上传服务繁忙，请重试").waitFor();
  await page.waitForFunction(() => document.querySelectorAll("input[type=hidden][name=photos]").length === 2);
  assert.equal(await page.locator(".up-item progress, .up-item.up-done").count() >= 2, true);
  await page.locator(".up-failed").getByRole("button", { name: "重试" }).click();
  await page.waitForFunction(() => document.querySelectorAll("input[type=hidden][name=photos]").length === 3);
  const ids = () => page.locator("input[type=hidden][name=photos]").evaluateAll((els) => els.map((e) => e.value));
  const before = await ids();
  await page.getByRole("button", { name: "第3张左移" }).click();
  assert.deepEqual(await ids(), [before[0], before[2], before[1]]);
  await page.getByRole("button", { name: "删除第1张" }).click();
  assert.deepEqual(await ids(), [before[2], before[1]]);
  assert.match(await page.locator(".uploader legend").innerText(), /2\/30/);
  assert.deepEqual(errors.filter((e) => !e.includes("503")), []);
  await context.close();
});

test("share: copies the link with the sharer on the detail page; WeChat gets the JS-SDK configured", async () => {
  const { context, page } = await open(viewports[1].options);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE });
  const path = await onlineCar(page);
  await gotoMounted(page, path);
  await page.evaluate(() => {
    navigator.share = undefined;
  });
  await page.locator(".share button", { hasText: "分享" }).click();
  await page.locator(".toast.show", { hasText: "链接已复制" }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), SITE + path);
  await context.close();

  // Inside WeChat: the JS-SDK (a local stand-in answering for res.wx.qq.com) is configured with
  // the server's signature for this URL, and both shares carry the payload.
  const wx = await open({ userAgent: WECHAT, viewport: { width: 390, height: 844 } });
  await wx.context.route("https://res.wx.qq.com/**", (route) =>
    route.fulfill({
      contentType: "application/javascript",
      body: `window.__wx = {}; window.wx = { config(c) { __wx.config = c; }, ready(f) { f(); }, updateAppMessageShareData(d) { __wx.friend = d; }, updateTimelineShareData(d) { __wx.timeline = d; } };`,
    }),
  );
  await gotoMounted(wx.page, path + "#photos");
  await wx.page.waitForFunction(() => window.__wx && window.__wx.timeline);
  const calls = await wx.page.evaluate(() => window.__wx);
  assert.equal(calls.config.appId.length > 0, true);
  assert.match(calls.config.signature, /^[0-9a-f]{40}$/);
  assert.equal(calls.friend.link, SITE + path);
  assert.match(calls.friend.title, /万$/);
  await wx.page.locator(".share button", { hasText: "分享" }).click();
  await wx.page.getByText("点击右上角「···」，分享给朋友或朋友圈").waitFor();
  await wx.context.close();
});

test("detail page: book a viewing with the date picker, on a phone", async () => {
  const { context, page, errors } = await open(viewports[0].options);
  const path = await onlineCar(page);
  await gotoMounted(page, path);
  const form = page.locator("form.lead-form").nth(1);
  await form.getByRole("button", { name: "打开日历：看车日期" }).click();
  await page.waitForFunction(() => document.activeElement.closest(".dp-pop"));
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  const date = await form.locator("input[type=hidden][name=date]").inputValue();
  assert.match(date, /^\d{4}-\d{2}-\d{2}$/);
  await form.locator("input[name=mobile]").fill("13912340000");
  await form.getByRole("button", { name: "预约看车" }).click();
  await page.waitForURL(/lead=(ok|again)/);
  await page.getByText(/提交成功|无需重复提交/).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test("app-open tries the app and falls back to the store after 1.5 s", async () => {
  const { context, page } = await open({ userAgent: ANDROID, viewport: { width: 390, height: 844 } }, "/sys/kit");
  await page.getByRole("link", { name: "App内打开" }).click();
  await page.waitForURL(/#app-opened$/);
  const t0 = Date.now();
  await page.waitForURL(/#android-store$/, { timeout: 4000 });
  assert.ok(Date.now() - t0 > 1000, "waits about 1.5 s before the store");
  await context.close();
});

test("runtime: progress bar, same-URL clicks ignored, back-to-top, offline banner, prefetch", async () => {
  const { context, page, errors } = await open(viewports[1].options, "/carlist");
  // A link to the current URL does not navigate.
  let navigations = 0;
  page.on("framenavigated", () => (navigations += 1));
  await page.evaluate(() => {
    const a = document.createElement("a");
    a.href = location.href;
    a.id = "same";
    a.textContent = "本页";
    document.querySelector("main").prepend(a);
    // Registered after the runtime's own listener, so it sees what the runtime decided.
    document.addEventListener("click", (e) => {
      if (e.target.id === "same") window.__sameClick = e.defaultPrevented;
    });
  });
  await page.click("#same");
  await page.waitForFunction(() => window.__sameClick !== undefined);
  assert.equal(await page.evaluate(() => window.__sameClick), true, "the runtime cancels a click to the page itself");
  assert.equal(navigations, 0);
  // Prefetch after 2000 ms idle: visible public links get <link rel=prefetch>.
  await page.waitForFunction(() => document.querySelectorAll("link[rel=prefetch]").length > 0, null, { timeout: 6000 });
  const hints = await page.locator("link[rel=prefetch]").evaluateAll((l) => l.map((e) => new URL(e.href).pathname));
  assert.ok(hints.length <= 10 && hints.every((p) => !p.startsWith("/space") && !p.startsWith("/sys")), hints.join(" "));
  // Back-to-top after a screen of scrolling, usable from the keyboard.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const top = page.getByRole("button", { name: "回到顶部" });
  await top.waitFor();
  await top.focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.scrollY === 0);
  // Offline and back.
  await context.setOffline(true);
  await page.getByText("网络已断开，请检查网络设置").waitFor();
  await context.setOffline(false);
  await page.locator(".toast.show", { hasText: "网络已恢复" }).waitFor();
  assert.equal(await page.getByText("网络已断开，请检查网络设置").count(), 0);
  // The progress bar shows while the next page is on its way.
  await page.goto(BASE + "/news");
  await page.route("**/news/*", async (route) => {
    await new Promise((r) => setTimeout(r, 800));
    await route.continue();
  });
  const shown = await page.evaluate(() => {
    document.querySelector("main a[href^='/news/']").click();
    const bar = document.querySelector(".nprogress.on > div");
    return bar && bar.style.transform;
  });
  assert.equal(shown, "translate3d(-92%, 0px, 0px)", "the bar starts at the 0.08 minimum");
  await page.waitForURL(/\/news\/\d+/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("each page loads at most 15 KB gzip of island code, pages without islands none", async () => {
  const { context, page } = await open(viewports[0].options);
  const car = await onlineCar(page);
  const scriptsOf = () => page.evaluate(() => performance.getEntriesByType("resource").filter((e) => e.name.endsWith(".js")).map((e) => e.name));
  const gz = async (url) => zlib.gzipSync(Buffer.from(await (await page.request.get(url)).body()), { level: 9 }).length;
  // The runtime: what a page without islands loads.
  await page.goto(BASE + "/news");
  await page.waitForLoadState("networkidle");
  const runtime = new Set(await scriptsOf());
  assert.ok([...runtime].some((u) => /_loader-/.test(u)), "the runtime is on every page");
  const report = [];
  for (const [route, declared] of Object.entries(PAGES)) {
    const path = route.replace("{id}", car.split("/").pop());
    const res = await page.goto(BASE + path);
    assert.ok(res.status() < 500, path);
    await allMounted(page);
    const names = await page.evaluate(() => [...new Set([...document.querySelectorAll("[data-island]")].map((e) => e.dataset.island))]);
    assert.ok(names.every((n) => declared.includes(n)), `${path} hosts ${names} but pages.json declares ${declared}`);
    let island = 0;
    let all = 0;
    for (const url of await scriptsOf()) {
      const size = await gz(url);
      all += size;
      if (!runtime.has(url)) island += size;
    }
    if (!names.length) assert.equal(island, 0, `${path} has no islands but loads island code`);
    report.push(`${path.padEnd(20)} ${(names.join(",") || "-").padEnd(36)} island code ${(island / 1024).toFixed(1)} KB, all JS ${(all / 1024).toFixed(1)} KB gzip`);
    assert.ok(island <= 15 * 1024, `${path}: ${island} B of island code`);
  }
  console.log(report.join("\n"));
  await context.close();
});

test("axe-core finds no serious or critical violation on the pages hosting islands", async () => {
  const context = await getBrowser().newContext({ bypassCSP: true, viewport: { width: 390, height: 844 }, userAgent: IPHONE });
  const page = await context.newPage();
  const car = await onlineCar(page);
  for (const path of ["/", car, "/sys/login", "/space", "/sys/kit"]) {
    await gotoMounted(page, path);
    await page.addScriptTag({ content: AXE });
    const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`));
    assert.deepEqual(found, [], path);
  }
  await context.close();
});
