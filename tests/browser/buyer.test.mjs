// The buyer journey in Debian's Chromium, on a phone and on a desktop, with JavaScript on and off:
// from / choose a city and a price chip, add a brand, sort by price, open a car, submit 询底价
// with a bad phone (the message appears beside the field and the input is kept), then a good one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, useBrowser, variantOptions, VARIANTS } from "./browser.mjs";

const getBrowser = useBrowser();

/// A phone number unique to this run and variant, so a re-run against the same database is not a
/// repeated lead.
const run = String(Date.now()).slice(-7);
const phone = (i) => `13${i}${run}0`.slice(0, 11);

const variants = VARIANTS.map((v) => ({ ...v, phone: phone(v.n) }));

/// Opens the filter panel when it is folded (phones) so its links can be clicked.
async function openFilters(page) {
  const box = page.locator("details.filters-box");
  if ((await box.getAttribute("open")) === null) await box.locator(":scope > summary").click();
}

for (const v of variants) {
  test(`buyer journey: ${v.name}`, async () => {
    const context = await getBrowser().newContext(variantOptions(v));
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));

    // Choose Beijing with the plain chooser link, then the 5-8万 chip.
    await page.goto(BASE + "/?city=beijing");
    await page.locator("nav.chips a", { hasText: "5-8万" }).click();
    await page.waitForURL(/\/carlist\?price=5-8&city=beijing$/);
    assert.match(await page.locator("h1").innerText(), /北京二手车/);
    const chips = await page.locator(".chipbar .chip").allInnerTexts();
    assert.deepEqual(chips.map((c) => c.replace(/\s*×$/, "")), ["5-8万", "北京"]);

    // Add the brand of the first car listed.
    const firstTitle = await page.locator("li.card h3").first().innerText();
    const brand = firstTitle.split(" ")[0];
    await openFilters(page);
    const brandRow = page.locator(".frow").first();
    let link = brandRow.locator(".fopts > a", { hasText: new RegExp(`^${brand}$`) });
    if ((await link.count()) === 0) {
      await brandRow.locator(".fmore summary").click();
      link = brandRow.locator(".fmore a", { hasText: new RegExp(`^${brand}$`) });
    }
    await link.first().click();
    await page.waitForURL(/brand=/);
    assert.ok(new URL(page.url()).searchParams.get("city") === "beijing", "the city is kept");
    assert.ok((await page.locator("li.card").count()) >= 1, "the brand's cars in Beijing at 5-8万");

    // Sort by price, low to high: prices rise.
    await page.locator("nav.sorts a", { hasText: "价格低→高" }).click();
    await page.waitForURL(/sort=price_asc/);
    const prices = (await page.locator("li.card .price b").allInnerTexts()).map(Number);
    assert.deepEqual(prices, [...prices].sort((a, b) => a - b));
    assert.ok(prices.every((p) => p >= 5 && p < 8), `prices in the band: ${prices}`);

    // Open the first car.
    await page.locator("li.card > a").first().click();
    await page.waitForURL(/\/details\/\d+$/);
    assert.ok((await page.locator("h1").innerText()).startsWith(brand));
    assert.ok(await page.locator(".rating-box").isVisible());
    const photo = page.locator(".gallery img").first();
    assert.ok(await photo.evaluate((img) => img.complete && img.naturalWidth > 0), "the first photo loaded");

    // 询底价 with a bad phone: message beside the field, input kept.
    const ask = page.locator("form.lead-form").first();
    await ask.locator('input[name="mobile"]').fill("12345");
    await ask.locator('button[type="submit"]').click();
    await page.waitForLoadState();
    const kept = page.locator("form.lead-form").first();
    assert.equal(await kept.locator(".field-err").innerText(), "请输入正确的手机号");
    assert.equal(await kept.locator('input[name="mobile"]').inputValue(), "12345");
    assert.equal(await kept.locator('input[name="mobile"]').getAttribute("aria-invalid"), "true");

    // …then a good one.
    await kept.locator('input[name="mobile"]').fill(v.phone);
    await kept.locator('button[type="submit"]').click();
    await page.waitForURL(/lead=ok/);
    assert.match(await page.locator(".notice.ok").innerText(), /提交成功/);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
