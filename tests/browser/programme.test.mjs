// The incubation programme's fee as an applicant sees it: asked for twice the same way it is one
// order (the cashier shows the same order number), paid another way it opens the shop once, and
// the first way's cashier, left open and paid as well, gives the money back and says so. Staff
// and the applicant sign in through the app's token, so no SMS code is spent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, appSignIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const STAFF = "19000000001";
const APPLICANT = "13700005103";
const SHOP = "湘江好车二手车行";

/// The order number the sandbox cashier shows.
async function cashierOrder(page) {
  const meta = await page.locator(".meta", { hasText: "订单号" }).first().innerText();
  return meta.match(/订单号\s*(\d{20})/)[1];
}

test("the programme fee asked for twice is one order, and paid twice is refunded once", async () => {
  const ctx = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));

  // The application.
  await page.goto(appSignIn("/actives/fh2021/apply", APPLICANT));
  await page.fill("#fh-name", "王建国");
  await page.selectOption("#fh-city", "changsha");
  await page.fill("#fh-shop", SHOP);
  await page.locator("label.pick", { hasText: "1-3年" }).click();
  await page.locator("label.pick", { hasText: "二手车市场" }).first().click();
  await page.fill("#fh-address", "雨花区二手车市场");
  await page.locator("button", { hasText: "提交申请" }).click();
  await page.waitForURL(BASE + "/actives/fh2021/user");
  assert.match(await page.locator("main").innerText(), /审核中/);

  // Staff approve it, in a browser of their own.
  const desk = await (await getBrowser().newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await desk.goto(appSignIn("/staff/programme", STAFF));
  const item = desk.locator("li.mine-item", { hasText: SHOP });
  await item.locator("button", { hasText: "通过" }).click();
  await desk.waitForLoadState();
  await desk.context().close();

  // The fee, asked for by Alipay twice: the same order both times.
  await page.goto(BASE + "/actives/fh2021/fhpay");
  await page.locator("button.pay-alipay").click();
  await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
  const alipayCashier = page.url();
  const first = await cashierOrder(page);
  await page.goto(BASE + "/actives/fh2021/fhpay");
  await page.locator("button.pay-alipay").click();
  await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
  assert.equal(await cashierOrder(page), first, "asked again the same way: the same order");

  // Paid by WeChat Pay instead: the shop opens.
  await page.goto(BASE + "/actives/fh2021/fhpay");
  await page.locator("button.pay-wechat").click();
  await page.waitForURL(/\/pay\/wechat\?order=\d{20}/);
  assert.notEqual(new URL(page.url()).searchParams.get("order"), first);
  await page.locator("a", { hasText: "打开沙箱收银台" }).click();
  await page.locator("button", { hasText: "支付成功" }).click();
  await page.waitForURL(/\/common\/paysuccess\?order=\d{20}/);
  await page.locator("h1", { hasText: "支付成功" }).waitFor();
  await page.goto(BASE + "/actives/fh2021/user");
  assert.match(await page.locator("main").innerText(), new RegExp(`进入商家中心[\\s\\S]*查看店铺「${SHOP}」`));

  // The Alipay cashier left open is paid too: that payment goes back, and the page says so.
  await page.goto(alipayCashier);
  await page.locator("button", { hasText: "支付成功" }).click();
  await page.waitForURL(/\/common\/paysuccess\?order=\d{20}/);
  // Refunded at once (正在自动退款 while the provider is still being asked).
  assert.match(await page.locator("h1").innerText(), /订单已退款|正在自动退款/);
  assert.match(await page.locator("main").innerText(), /另一笔订单支付[\s\S]*原路退回/);
  await page.goto(BASE + "/actives/fh2021/user");
  assert.match(await page.locator("main").innerText(), new RegExp(`查看店铺「${SHOP}」`), "the shop stays open, granted once");
  assert.deepEqual(errors, []);
  await ctx.close();
});
