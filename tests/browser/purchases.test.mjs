// One purchase across orders, as a buyer sees it: a history report paid by WeChat Pay after the
// Alipay order was switched (in WeChat) or abandoned (on a desktop) is delivered; the Alipay
// cashier left open in another tab and paid as well gives the money back and says so; asking for
// the same report again leads to it, with no payment offered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();

const CASES = [
  { name: "phone in WeChat", userAgent: IPHONE + " MicroMessenger/8.0.47", viewport: { width: 390, height: 844 }, mobile: "13700005101", vin: "LFV2A21K6F3073519" },
  { name: "desktop", userAgent: undefined, viewport: { width: 1280, height: 900 }, mobile: "13700005102", vin: "LSVAM4180C2184821" },
];

for (const c of CASES) {
  test(`a report's order switched to WeChat Pay delivers it once, and a second payment comes back: ${c.name}`, async () => {
    const ctx = await getBrowser().newContext({ userAgent: c.userAgent, viewport: c.viewport, locale: "zh-CN" });
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const confirm = `${BASE}/servicehall/fourquery/fourorder?vin=${c.vin}&product=full`;
    await page.goto(`${BASE}/sys/login?return=${encodeURIComponent("/servicehall/fourquery/fourorder?vin=" + c.vin + "&product=full")}`);
    await signIn(page, c.mobile);
    await page.waitForURL(confirm);
    assert.match(await page.locator(".order-facts").innerText(), /车况四项全查/);

    // Alipay first: in WeChat its hand-off page (Alipay does not open inside WeChat), on a desktop
    // the cashier itself. Either way the cashier's address is kept, as a tab left open would be.
    await page.locator("button.pay-alipay").click();
    let alipayCashier;
    if (c.userAgent) {
      await page.waitForURL(/\/servicehall\/alipay\?order=\d{20}/);
      alipayCashier = await page.locator("a", { hasText: "前往支付宝付款" }).getAttribute("href");
      await page.locator("button", { hasText: "改用微信支付" }).click();
    } else {
      await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
      alipayCashier = page.url();
      await page.goBack();
      await page.waitForURL(confirm);
      assert.match(await page.locator(".notice").innerText(), /待支付的订单，继续付款不会重复收费/);
      await page.locator("button.pay-wechat").click();
    }
    await page.waitForURL(/\/pay\/wechat\?order=\d{20}/);
    const wechatOrder = new URL(page.url()).searchParams.get("order");
    assert.ok(!alipayCashier.includes(wechatOrder), "WeChat Pay has an order of its own");
    await page.locator("a", { hasText: "打开沙箱收银台" }).click();
    await page.locator("button", { hasText: "支付成功" }).click();
    await page.waitForURL(/\/servicehall\/fourquery\/fousresults\?/);
    await page.locator("h1", { hasText: "报告已生成" }).waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await page.locator("main").innerText(), /重复支付/);

    // The Alipay cashier, still open, is paid too: the report is not bought twice, the money goes
    // back at once and the page says so.
    await page.goto(alipayCashier.startsWith("http") ? alipayCashier : BASE + alipayCashier);
    await page.locator("button", { hasText: "支付成功" }).click();
    await page.waitForURL(/\/servicehall\/fourquery\/fousresults\?/);
    const told = await page.locator("main").innerText();
    assert.match(told, /重复支付，已自动原路退回/);
    assert.match(told, /报告已生成/);

    // Asked for again: the report, no payment. 查看报告 is the page's main button (44 px tall on a
    // phone), not bare text.
    await page.goto(confirm);
    assert.match(await page.locator(".notice").innerText(), /无需再付费/);
    assert.equal(await page.locator("button.pay-alipay, button.pay-wechat, button[name=method]").count(), 0, "no payment offered");
    const open = page.locator("a.btn", { hasText: "查看报告" });
    const look = await open.evaluate((a) => {
      const s = getComputedStyle(a);
      const r = a.getBoundingClientRect();
      return { background: s.backgroundColor, color: s.color, height: r.height, width: r.width };
    });
    assert.notEqual(look.background, "rgba(0, 0, 0, 0)", "a filled button");
    assert.notEqual(look.background, look.color);
    assert.ok(look.height >= (c.userAgent ? 44 : 32) && look.width >= 200, JSON.stringify(look));
    await open.click();
    await page.waitForURL(/\/servicehall\/report\/\d+/);
    assert.match(await page.locator("h1").innerText(), /车况报告/);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}
