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
    assert.match(told, /已由您的另一笔订单支付[\s\S]*款项已原路退回/);
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

// One plan, one purchase, whatever the buyer does: 支付宝 first, then back to /vip and 微信支付 —
// the Alipay order closes and only the WeChat Pay one is paid. Staff refund the year; the Alipay
// cashier still open in a tab is paid afterwards: the money goes back at once and the page says
// why. A pending order is cancelled from 我的订单. Phone and desktop.
const PLAN_CASES = [
  { name: "phone", options: { userAgent: IPHONE, viewport: { width: 390, height: 844 } }, mobile: "13700005201" },
  { name: "desktop", options: { viewport: { width: 1280, height: 900 } }, mobile: "13700005202" },
];
let staffCookies = null;

for (const c of PLAN_CASES) {
  test(`a plan is one purchase, a payment after its refund comes back, a pending order is cancelled: ${c.name}`, async () => {
    const ctx = await getBrowser().newContext({ ...c.options, locale: "zh-CN" });
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${BASE}/sys/login?return=${encodeURIComponent("/vip")}`);
    await signIn(page, c.mobile);
    await page.waitForURL(BASE + "/vip");
    const plan = () => page.locator("form.plan", { hasText: "买车VIP年卡" });

    // 支付宝 first; the cashier is kept, as a tab left open would be. Back, and 微信支付.
    await plan().locator("button", { hasText: "支付宝付款" }).click();
    await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
    const alipayCashier = page.url();
    await page.goto(BASE + "/vip");
    await plan().locator("button", { hasText: "微信支付" }).click();
    if (c.name === "desktop") {
      await page.waitForURL(/\/pay\/wechat\?order=\d{20}/);
      await page.locator("a", { hasText: "打开沙箱收银台" }).click();
    }
    await page.waitForURL(/\/pay\/sandbox\/wechat\?order=\d{20}/);
    const paidNo = new URL(page.url()).searchParams.get("order");
    await page.locator("button", { hasText: "支付成功" }).click();
    await page.waitForURL(/\/common\/paysuccess\?order=\d{20}/);
    assert.match(await page.locator("h1").innerText(), /支付成功/);
    await page.goto(BASE + "/space/vip");
    const orders = await page.locator(".orders").innerText();
    assert.match(orders, /买车VIP年卡[\s\S]*已支付/);
    assert.match(orders, /买车VIP年卡[\s\S]*已关闭/, "the Alipay order closed when WeChat Pay was chosen");
    assert.equal((orders.match(/买车VIP年卡/g) || []).length, 2, "two orders of one purchase, no third");

    // Staff refund the paid order.
    const desk = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
    const staff = await desk.newPage();
    if (staffCookies) {
      await desk.addCookies(staffCookies);
    } else {
      await staff.goto(`${BASE}/sys/login?return=${encodeURIComponent("/staff/orders")}`);
      // The orders desk (the reviewer's phone is the other tests').
      await signIn(staff, "19000000002");
      await staff.waitForURL(BASE + "/staff/orders");
      staffCookies = await desk.cookies();
    }
    await staff.goto(`${BASE}/staff/orders?q=${paidNo}`);
    const row = staff.locator(`#order-${paidNo}`);
    await row.locator("input[name=reason]").fill("用户申请退款");
    await row.locator("button", { hasText: "全额退款" }).click();
    await staff.waitForLoadState();
    assert.match(await staff.locator(`#order-${paidNo}`).innerText(), /已退款/);
    await desk.close();

    // The Alipay cashier, still open, is paid now: the money comes back at once, and the page says
    // the plan was refunded, not 支付成功.
    await page.goto(alipayCashier);
    await page.locator("button", { hasText: "支付成功" }).click();
    await page.waitForURL(/\/common\/paysuccess\?order=\d{20}/);
    assert.match(await page.locator("h1").innerText(), /订单已退款|正在自动退款/);
    const told = await page.locator("main").innerText();
    assert.match(told, /该项目此前已退款[\s\S]*原路退回/);
    assert.doesNotMatch(told, /支付成功|权益已生效/);

    // Ordered again and left pending: 我的订单 cancels it, and says so where the buyer is looking.
    await page.goto(BASE + "/vip");
    await plan().locator("button", { hasText: "支付宝付款" }).click();
    await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
    await page.goto(BASE + "/space/vip");
    await page.locator(".order-cancel button", { hasText: "取消订单" }).first().click();
    await page.waitForURL(/\/space\/vip\?done=cancelled/);
    await assert.doesNotReject(page.getByText("订单已取消，不会扣款").waitFor());
    assert.equal(await page.locator(".order-cancel").count(), 0, "nothing left to pay");
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}
