// Real-browser tests of the home page in Debian's Chromium: the city chooser island mounts over
// its fallback and switches city; with JavaScript off the server-rendered chooser does the same.
// BASE_URL is the server started by `cargo xtask test`; only 127.0.0.1 is contacted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();

test("on a phone, the city chooser island switches the city", async () => {
  const context = await getBrowser().newContext({ userAgent: IPHONE, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(BASE + "/");
  assert.equal(await page.getAttribute("html", "data-device"), "mobile");
  const fontSize = await page.evaluate(() => getComputedStyle(document.documentElement).fontSize);
  assert.ok(Math.abs(parseFloat(fontSize) - 390 / 12.42) < 0.1, `mobile root font size ${fontSize}`);
  assert.ok((await page.locator("li.card").count()) >= 10, "ten or more listing cards");

  await page.locator("button.cc-trigger").click();
  await page.getByRole("dialog", { name: "选择城市" }).waitFor();
  await page.getByLabel("搜索城市").fill("changs");
  await page.locator(".cc-list button", { hasText: "长沙" }).click();
  await page.waitForURL(/\?city=changsha$/);
  assert.match(await page.locator(".total").innerText(), /长沙在售/);
  const cookies = await context.cookies();
  assert.ok(cookies.some((c) => c.name === "hx_city" && c.value === "changsha"), "the choice is remembered in a cookie");
  await page.goto(BASE + "/");
  assert.match(await page.title(), /长沙二手车/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("without JavaScript, the server-rendered chooser works by links", async () => {
  const context = await getBrowser().newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(BASE + "/");
  assert.equal(await page.getAttribute("html", "data-device"), "pc");
  await page.locator("details.city-chooser summary").click();
  await page.locator(".chooser-panel a", { hasText: "湖南" }).click();
  await page.locator(".province-cities a", { hasText: "株洲" }).click();
  await page.waitForURL(/\?city=zhuzhou$/);
  assert.match(await page.locator(".total").innerText(), /株洲在售/);
  // 买车 keeps the chosen city; 全国 is one tap away on the list.
  await page.locator(".nav a", { hasText: "买车" }).click();
  await page.waitForURL(/\/carlist\?city=zhuzhou$/);
  assert.match(await page.locator("h1").innerText(), /株洲/);
  await page.locator(".frow", { hasText: "地区" }).locator("a", { hasText: "全国" }).click();
  await page.waitForURL(/\/carlist$/);
  await context.close();
});

test("an unknown page is a 404 with a link home", async () => {
  const context = await getBrowser().newContext();
  const page = await context.newPage();
  const res = await page.goto(BASE + "/no-such-page");
  assert.equal(res.status(), 404);
  await page.getByText("This page could not be found").waitFor();
  await page.getByRole("link", { name: "返回首页" }).click();
  await page.waitForURL(BASE + "/");
  await context.close();
});
