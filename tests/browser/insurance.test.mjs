// Insurance quotes and the all-in cost, on a phone and a desktop, with JavaScript on and off: a
// listing's 落地价 adds up to its parts; its 车险报价 link fills the form with the car; every
// insurer quotes without a phone number; one quote opens with its cover and exclusions; 投保
// names the one insurer that receives it, which 我的询价 shows after sign-in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, signIn, useBrowser, variantOptions, VARIANTS } from "./browser.mjs";

const getBrowser = useBrowser();

/// An amount as a part shows it (`19.02万`, `3,765.09元`), in fen.
function fen(text) {
  const value = parseFloat(text.replace(/[^\d.]/g, ""));
  return Math.round(text.trim().endsWith("万") ? value * 1_000_000 : value * 100);
}

for (const v of VARIANTS) {
  test(`a listing's all-in cost adds up, its car is quoted and insured with one insurer: ${v.name}`, async () => {
    const ctx = await getBrowser().newContext(variantOptions(v));
    const page = await ctx.newPage();
    await page.goto(`${BASE}/carlist`);
    await page.goto(new URL(await page.locator("li.card a").first().getAttribute("href"), BASE).href);

    // 落地价: the summary's total is the sum of the parts shown when it is opened.
    const allin = page.locator("#allin");
    await allin.locator("summary").click();
    const total = fen((await allin.locator("summary b").innerText()) + "万");
    const amounts = await allin.locator("li b").allInnerTexts();
    const names = await allin.locator("li span").allInnerTexts();
    assert.deepEqual(names.slice(0, 2), ["车价", "过户费"]);
    assert.ok(names.includes("交强险") && names.includes("商业险"), names.join());
    const sum = amounts.reduce((s, a) => s + fen(a), 0);
    assert.ok(Math.abs(sum - total) <= 5_000, `the total ${total} is its parts ${sum} to the 100 yuan shown`);

    // Its 车险报价 link fills the form with this car; prices need no phone number.
    await allin.locator("a", { hasText: "车险报价" }).click();
    await page.waitForURL(/\/servicehall\/insurance\?listing=/);
    assert.notEqual(await page.inputValue("#xn-series"), "");
    assert.match(await page.inputValue("#xn-month"), /^\d{4}-\d{2}$/);
    assert.equal(await page.locator("input[name=mobile]").count(), 0);
    await page.locator(".xian-form button[type=submit]").click();
    await page.waitForURL(/\/servicehall\/insurance\/list\?/);
    const offers = page.locator(".xian-offer");
    assert.equal(await offers.count(), 4);
    // Cheapest first, each total the sum of its lines.
    const first = offers.first();
    const lines = await first.locator("td.num").allInnerTexts();
    const quoted = fen(await first.locator(".xian-total b").innerText() + "元");
    assert.equal(lines.reduce((s, l) => s + fen(l), 0), quoted);
    const insurer = await first.locator("h2").innerText();

    // One quote: its cover and exclusions; 投保 asks for the phone, and one insurer receives it.
    await first.locator("a", { hasText: "查看保障并投保" }).click();
    await page.waitForURL(/\/servicehall\/insurance\/detail\?quote=/);
    assert.match(await page.locator(".xian-terms").innerText(), /不赔：/);
    assert.match(await page.locator("#apply").innerText(), new RegExp(`只有${insurer}`));
    const mobile = `1390000731${v.n}`;
    await page.fill("#xn-mobile", "1390");
    await page.locator("#apply button[type=submit]").click();
    assert.match(await page.locator("#xn-mobile-error").innerText(), /手机号/);
    await page.fill("#xn-mobile", mobile);
    await page.locator("#apply button[type=submit]").click();
    await page.waitForURL(/\/actives\/gratitude\?from=insurance/);
    assert.match(await page.locator("main").innerText(), new RegExp(`您的信息只发给了\\s*${insurer}`));

    // 我的询价 after sign-in names that insurer.
    await page.goto(`${BASE}/space/gettycarlist`);
    await signIn(page, mobile);
    await page.waitForURL(/\/space\/gettycarlist/);
    assert.match(await page.locator("main").innerText(), new RegExp(`车险投保[\\s\\S]*${insurer}（[^）]+）收到了您的请求`));
    await ctx.close();
  });
}
