// Reviews in Debian's Chromium: a buyer on a phone in WeChat's browser (JavaScript on, then off)
// signs in, books a viewing of a dealer's car for today; the dealer (desktop) marks the lead
// contacted; the buyer finds the viewing under 待评价, rates the shop and sees the review with
// the shop's rating on its 评价 page; the dealer answers it from the dealer centre, and the
// answer shows under the review.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, appSignIn, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const DEALER = "13100000000"; // the seed's first shop's owner
const WECHAT = `${IPHONE} MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN`;

/// Today in China, as the viewing's date field takes it.
const today = () => new Date(Date.now() + 8 * 3600 * 1000).toISOString().slice(0, 10);

for (const js of [true, false]) {
  test(`a buyer in WeChat reviews a shop after a viewing and the dealer answers (JavaScript ${js ? "on" : "off"})`, async () => {
    const mobile = js ? "13700007201" : "13700007202";
    const dealer = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
    const desk = await dealer.newPage();
    await desk.goto(appSignIn("/space/personcarlist", DEALER));
    const row = desk.locator("tr[id^=listing-]").filter({ has: desk.locator('a[href^="/details/"]') }).nth(js ? 3 : 4);
    const id = (await row.getAttribute("id")).replace("listing-", "");

    const ctx = await getBrowser().newContext({ userAgent: WECHAT, viewport: { width: 390, height: 844 }, javaScriptEnabled: js, locale: "zh-CN" });
    const page = await ctx.newPage();
    await page.goto(`${BASE}/space/reviews`);
    await signIn(page, mobile);
    await page.waitForURL(/\/space\/reviews$/);
    assert.match(await page.locator("main").innerText(), /暂时没有可以评价的交易/);

    // The viewing, booked for today from the car's page.
    await page.goto(`${BASE}/details/${id}#book`);
    const date = page.locator(js ? "#book input[type=text]" : "#book-date");
    await date.scrollIntoViewIfNeeded();
    await date.fill(today());
    await page.locator("#book button[type=submit]").click();
    await page.waitForURL(/lead=ok/);

    // The dealer marks it contacted.
    await desk.goto(`${BASE}/actives/zhikeclues`);
    const lead = desk.locator("li[id^=lead-]").filter({ hasText: "预约看车" }).filter({ hasText: mobile.slice(-4) }).first();
    await lead.locator("select[name=status]").selectOption("contacted");
    await lead.locator("button[value=save]").click();
    await desk.waitForLoadState();

    // The buyer reviews the shop: a required aspect left out is said beside it, the rest kept.
    await page.goto(`${BASE}/space/reviews`);
    await page.locator(".msg-list a", { hasText: "预约看车 · 商家已联系" }).first().click();
    await page.waitForURL(/\/space\/reviews\/new\?basis=lead/);
    await page.locator("#f-price label", { hasText: "4星" }).click();
    await page.locator("#f-service label", { hasText: "5星" }).click();
    const text = `看车准时，车况和描述一致（${js ? "甲" : "乙"}）`;
    await page.fill("#rv-body", text);
    await page.locator("button", { hasText: "发布评价" }).click();
    await page.waitForLoadState();
    assert.match(await page.locator("#f-honesty .error").innerText(), /请为这一项打分/);
    assert.equal(await page.inputValue("#rv-body"), text);
    assert.equal(await page.locator("#f-price input:checked").getAttribute("value"), "4");
    await page.locator("#f-honesty label", { hasText: "5星" }).click();
    await page.locator("button", { hasText: "发布评价" }).click();
    await page.waitForURL(/\/shop\/[^/]+\/reviews\?written=1$/);
    const item = page.locator(".rv-item", { hasText: text });
    assert.match(await item.innerText(), /4\.7分[\s\S]*已核实 · 询价或看车后/);
    assert.match(await page.locator(".rv-rating").innerText(), /\d\.\d分 · \d+条评价/);
    assert.match(await page.locator(".shop-head .shop-rating").innerText(), /★\d\.\d · \d+条评价/);
    const reviewId = (await item.getAttribute("id")).replace("review-", "");

    // The dealer answers it once, in public.
    await desk.goto(`${BASE}/space/shop-reviews`);
    await desk.fill(`#ans-${reviewId}`, "感谢您来看车，欢迎再来！");
    await desk.locator(`form[action="/space/shop-reviews/${reviewId}"] button`).click();
    await desk.waitForURL(/answered=1/);
    assert.equal(await desk.locator(`#ans-${reviewId}`).count(), 0, "answered once: no box any more");
    await dealer.close();
    await page.reload();
    assert.match(await page.locator(`#review-${reviewId} .rv-answer`).innerText(), /商家回复[\s\S]*感谢您来看车/);
    await ctx.close();
  });
}
