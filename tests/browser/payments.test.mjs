// Buying in Debian's Chromium against the sandbox cashier: a signed-out visitor on /vip signs in
// (once: the login codes a test run may ask for from one address are limited), then buys the
// seller plan on phone and desktop, JavaScript on and off, pays at the sandbox cashier, lands on
// /common/paysuccess saying it is paid, and finds the membership and the order in /space/vip.
// Phones pay with Alipay; desktops with WeChat Pay: its QR code, then the sandbox's WeChat cashier.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, signIn, useBrowser, variantOptions, VARIANTS } from "./browser.mjs";

const getBrowser = useBrowser();
const run = String(Date.now()).slice(-7);
const buyer = `16${run}00`.slice(0, 11);
let session = null;

for (const v of VARIANTS) {
  test(`a VIP plan bought through the sandbox cashier: ${v.name}`, async () => {
    const ctx = await getBrowser().newContext(variantOptions(v));
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(BASE + "/vip");
    assert.match(await page.locator(".sandbox-note").innerText(), /不会真实扣款/);
    const plan = page.locator("form.plan", { hasText: "卖车VIP月卡" });
    assert.match(await plan.innerText(), /29\.00/);
    if (session) {
      await ctx.addCookies(session);
      // The copied session is taken up by the first request of this context (its cookies are
      // renewed there); the page then shows the buyer's plans.
      await page.goto(BASE + "/vip");
    } else {
      // Signed out, paying asks for sign-in and comes back to /vip.
      await plan.locator("button", { hasText: "支付宝付款" }).click();
      await signIn(page, buyer);
      await page.waitForURL(BASE + "/vip");
      session = await ctx.cookies();
      await page.goto(BASE + "/vip");
    }
    const wechat = !v.mobile;
    if (session && v.n > 1) {
      assert.match(await page.locator("form.plan", { hasText: "卖车VIP月卡" }).innerText(), /续费：您已开通/, "a plan held is bought again as 续费");
    }
    await page.locator("form.plan", { hasText: "卖车VIP月卡" }).locator("button", { hasText: wechat ? "微信支付" : "支付宝付款" }).click();
    if (wechat) {
      // WeChat Pay on a desktop: a QR code to scan; the sandbox lets the demo open its cashier.
      await page.waitForURL(/\/pay\/wechat\?order=\d{20}/);
      assert.match(await page.locator(".pay-qr").innerText(), /微信扫一扫/);
      assert.equal(await page.locator(".pay-qr svg").count(), 1);
      await page.locator("a", { hasText: "打开沙箱收银台" }).click();
      await page.waitForURL(/\/pay\/sandbox\/wechat\?order=/);
    } else {
      await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
    }
    // The sandbox cashier, then 支付成功.
    assert.match(await page.locator(".sandbox-badge").innerText(), wechat ? /微信支付沙箱收银台/ : /沙箱收银台/);
    assert.match(await page.locator("h1").innerText(), /29\.00/);
    await page.locator("button", { hasText: "支付成功" }).click();
    await page.waitForURL(/\/common\/paysuccess\?order=\d{20}/);
    assert.match(await page.locator("h1").innerText(), /支付成功/);
    assert.match(await page.locator(".order-facts").innerText(), /卖车VIP月卡[\s\S]*29\.00元/);
    await page.goto(BASE + "/space/vip");
    assert.match(await page.locator("table").first().innerText(), /卖车VIP月卡/);
    assert.match(await page.locator(".orders").innerText(), /卖车VIP月卡[\s\S]*已支付/);
    await page.goto(BASE + "/vip");
    assert.match(await page.locator(".vip-mine").innerText(), /卖车VIP月卡 · 全国 · \d{4}-\d{2}-\d{2}到期/);
    assert.match(await page.locator(".vip-mine").innerText(), new RegExp(`(卖车VIP月卡[^\n]*\n?){${v.n}}`), "each purchase extends the membership");
    // The plan's benefit, explained where it applies.
    await page.goto(BASE + "/servicehall/vipequity");
    assert.match(await page.locator(".equity").innerText(), /每8小时可擦亮1次，即每天3次/);
    assert.deepEqual(errors, []);
    // The session as it stands now (it may have been renewed on the way) carries to the next
    // variant, which renews the plan from /vip's 续费.
    session = await ctx.cookies();
    await ctx.close();
  });
}
