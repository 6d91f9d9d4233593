// Messages in Debian's Chromium: a buyer on a phone in WeChat's browser (JavaScript on, then off)
// asks a dealer's car's seller from the car's page — signing in on the way — with their number
// in the question; the dealer (desktop) finds the thread in 我的消息 with the number hidden and
// answers; the buyer sees the answer arrive (JavaScript) and reads it on reload.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, appSignIn, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const DEALER = "13100000000"; // the seed's first shop's owner
const WECHAT = `${IPHONE} MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN`;

for (const js of [true, false]) {
  test(`a buyer in WeChat asks a dealer about a car and reads the answer (JavaScript ${js ? "on" : "off"})`, async () => {
    const dealer = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
    const desk = await dealer.newPage();
    await desk.goto(appSignIn("/space/personcarlist", DEALER));
    const row = desk.locator("tr[id^=listing-]").filter({ has: desk.locator('a[href^="/details/"]') }).nth(js ? 1 : 2);
    const id = (await row.getAttribute("id")).replace("listing-", "");

    const ctx = await getBrowser().newContext({ userAgent: WECHAT, viewport: { width: 390, height: 844 }, javaScriptEnabled: js, locale: "zh-CN" });
    const page = await ctx.newPage();
    await page.goto(`${BASE}/details/${id}`);
    await page.locator(".seller a", { hasText: "在线咨询" }).click();
    // Not signed in: the sign-in form, then the question's page.
    await signIn(page, js ? "13700007101" : "13700007102");
    await page.waitForURL(new RegExp(`/space/messages/ask/${id}$`));
    await page.locator("button", { hasText: "发送" }).click();
    await page.waitForLoadState();
    assert.match(await page.locator(".msg-form .error").innerText(), /请输入消息内容/);
    const question = `车还在吗？有没有出过事故？我电话1381234567${js ? 1 : 2}`;
    await page.fill("#msg-body", question);
    await page.locator("button", { hasText: "发送" }).click();
    await page.waitForURL(/\/space\/messages\/\d+#latest$/);
    assert.equal(await page.locator(".msg-item.mine .msg-body").last().innerText(), question);
    const thread = new URL(page.url()).pathname;

    // The dealer: the thread unread in 我的消息, the number hidden until both have written.
    await desk.goto(`${BASE}/space/messages`);
    const line = desk.locator(`.msg-list a[href="${thread}"]`);
    assert.match(await line.innerText(), /买家咨询[\s\S]*［联系方式已隐藏］/);
    assert.equal(await line.locator(".msg-unread").innerText(), "1");
    await line.click();
    await desk.waitForURL(new RegExp(`${thread}$`));
    const asked = await desk.locator(".msg-item .msg-body").last().innerText();
    assert.ok(asked.includes("［联系方式已隐藏］") && !asked.includes("1381234567"), asked);
    await desk.fill("#msg-body", "在的，无事故，保养记录齐全。周六上午可以来看车。");
    await desk.locator("form.msg-form button").click();
    await desk.waitForURL(/#latest$/);
    assert.match(await desk.locator(".msg-item .msg-body").first().innerText(), /1381234567/, "both have written: the number shows");
    await dealer.close();

    if (js) {
      // With JavaScript the answer arrives while the buyer's page is open, and the question reads 已读.
      await page.locator(".msg-live .msg-body", { hasText: "周六上午可以来看车" }).waitFor({ timeout: 30000 });
      assert.equal(await page.locator(".msg-item.mine .msg-read").first().innerText(), "已读");
    }
    // The buyer reads the answer on reload.
    await page.goto(`${BASE}${thread}`);
    assert.match(await page.locator(".msg-item:not(.mine) .msg-body").last().innerText(), /周六上午可以来看车/);
    await ctx.close();
  });
}
