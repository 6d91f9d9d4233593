// Selling end to end in Debian's Chromium: a private seller signs in on /personalsell, fills the
// form with the price suggestion showing, adds three photos from files through the uploader
// island, submits; a reviewer approves it; a buyer finds it in /carlist by its city and price and
// asks the price; the seller sees the lead on the car. Also: the form without JavaScript.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const PHONE = { userAgent: IPHONE, viewport: { width: 390, height: 844 }, hasTouch: true };
const STAFF = "19000000001";

async function mounted(page) {
  await page.waitForFunction(() => [...document.querySelectorAll("[data-island]")].every((e) => e.dataset.mounted === "1"));
}

/// Three different photos as files, taken from the demo photo server (WebP, 960×720).
async function photoFiles(page) {
  const files = [];
  for (const [i, colour] of ["red", "blue", "white"].entries()) {
    const res = await page.request.get(`${BASE}/upload/demo/suv-${colour}-${i + 1}_w960.webp`);
    assert.equal(res.status(), 200);
    files.push({ name: `car-${i + 1}.webp`, mimeType: "image/webp", buffer: await res.body() });
  }
  return files;
}

async function fillCar(page, mobileSuffix) {
  const series = await page.locator("#s-series option").nth(5).getAttribute("value");
  await page.selectOption("#s-series", series);
  await page.fill("#s-reg", "2021-03");
  await page.fill("#s-mileage", "3.2");
  await page.fill("#s-price", "9.6");
  await page.selectOption("#s-city", "changsha");
  await page.selectOption("#s-colour", "red");
  await page.fill("#s-description", `浏览器测试车源${mobileSuffix}，一手车，按时保养`);
  return series;
}

test("a seller posts a car with three photos, staff approve it, a buyer finds it and asks the price", async () => {
  const seller = await getBrowser().newContext(PHONE);
  const page = await seller.newPage();
  const errors = [];
  page.on("pageerror", (e) => !/ViewTransition/.test(e.message) && errors.push(e.message));
  await page.goto(BASE + "/personalsell");
  await page.locator("a", { hasText: "登录后自己发布" }).click();
  await signIn(page, "13700001111");
  await page.waitForURL(/\/personalsell$/);
  await mounted(page);
  await fillCar(page, "A");
  // The live suggestion appears without submitting.
  await page.locator(".suggestion-live .suggestion").waitFor();
  assert.match(await page.locator(".suggestion-live").innerText(), /参考售价 [\d.]+–[\d.]+万/);
  // Three photos from files, uploaded one by one.
  await page.locator(".uploader input[type=file]").first().setInputFiles(await photoFiles(page));
  await page.waitForFunction(() => document.querySelectorAll('#sell-form input[type=hidden][name=photos]').length === 3, null, { timeout: 20000 });
  await page.locator("#sell-form button.btn-block").click();
  await page.waitForURL(/\/space\/personcarlist\?posted=/);
  const item = page.locator(".mine-item").filter({ hasText: "审核中" }).first();
  const id = (await item.getAttribute("id")).replace("listing-", "");
  assert.equal((await page.request.get(`${BASE}/details/${id}`)).status(), 404, "not public while in review");

  // A reviewer approves it.
  const staffCtx = await getBrowser().newContext({ viewport: { width: 1280, height: 900 } });
  const staff = await staffCtx.newPage();
  await staff.goto(BASE + "/staff/review");
  await signIn(staff, STAFF);
  await staff.waitForURL(/\/staff\/review$/);
  await staff.fill("#find-id", id);
  await staff.locator("button", { hasText: "查找" }).click();
  await staff.waitForURL(/id=/);
  const row = staff.locator(`#review-${id}`);
  assert.match(await row.innerText(), /浏览器测试车源A/);
  await row.locator("button", { hasText: "通过" }).click();
  await staff.waitForURL(/done=approve/);

  // A buyer finds it by city and price, newest first, and asks the price.
  const buyerCtx = await getBrowser().newContext(PHONE);
  const buyer = await buyerCtx.newPage();
  await buyer.goto(BASE + "/carlist?city=changsha");
  // On a phone the filter panel starts folded: open it.
  await buyer.locator("details.filters-box > summary").click();
  await buyer.locator(".filters a", { hasText: "8-12万" }).first().click();
  await buyer.waitForURL(/price=8-12/);
  await buyer.locator("a", { hasText: "最新" }).first().click();
  await buyer.waitForURL(/sort=new/);
  assert.match(buyer.url(), /city=changsha/);
  await buyer.locator(`li.card a[href="/details/${id}"]`).click();
  await buyer.waitForURL(new RegExp(`/details/${id}`));
  assert.match(await buyer.locator("main").innerText(), /9\.6/);
  const ask = buyer.locator("form.lead-form").first();
  await ask.locator("input[name=mobile]").fill("13600002222");
  await ask.locator("button", { hasText: "获取底价" }).click();
  await buyer.waitForURL(/lead=ok/);
  assert.match(await buyer.locator("main").innerText(), /提交成功/);

  // The seller sees the lead on the car.
  await page.goto(BASE + "/space/personcarlist");
  assert.match(await page.locator(`#listing-${id}`).innerText(), /在售[\s\S]*收到询价 1 条/);
  assert.deepEqual(errors, []);
  await Promise.all([seller.close(), staffCtx.close(), buyerCtx.close()]);
});

test("without JavaScript the form keeps what was typed and takes photos with the post", async () => {
  const context = await getBrowser().newContext({ ...PHONE, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(BASE + "/personalsell");
  await page.locator("a", { hasText: "登录后自己发布" }).click();
  await signIn(page, "13700003333");
  await page.waitForURL(/\/personalsell$/);
  await fillCar(page, "B");
  await page.fill("#s-contact", "123");
  const files = await photoFiles(page);
  await page.locator("input[name=photo_files]").setInputFiles(files.slice(0, 2));
  await page.locator("#sell-form button.btn-block").click();
  await page.waitForLoadState();
  assert.match(await page.locator("#s-contact-error").innerText(), /请输入正确的手机号/);
  assert.match(await page.locator("#s-photos-error").innerText(), /请至少上传3张照片，当前2张/);
  assert.equal(await page.inputValue("#s-price"), "9.6");
  assert.match(await page.inputValue("#s-description"), /浏览器测试车源B/);
  assert.equal(await page.locator("input[type=hidden][name=photos]").count(), 2, "both photos kept");
  // Fix the phone, add the third photo, submit: in review.
  await page.fill("#s-contact", "13700003333");
  await page.locator("input[name=photo_files]").setInputFiles(files.slice(2));
  await page.locator("#sell-form button.btn-block").click();
  await page.waitForURL(/\/space\/personcarlist\?posted=/);
  assert.match(await page.locator(".mine-item").first().innerText(), /审核中/);
  await context.close();
});
