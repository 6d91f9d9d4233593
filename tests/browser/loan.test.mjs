// The loan line of a listing and the calculator behind it, on a phone and a desktop, with
// JavaScript on and off: the listing states the annualised rate, the calculator opens with the
// car's price and states the same rate, and the lender's fees raise it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, useBrowser, variantOptions, VARIANTS } from "./browser.mjs";

const getBrowser = useBrowser();

for (const v of VARIANTS) {
  test(`a listing's loan line opens the calculator with its annual rate: ${v.name}`, async () => {
    const ctx = await getBrowser().newContext(variantOptions(v));
    const page = await ctx.newPage();
    await page.goto(`${BASE}/carlist`);
    await page.goto(new URL(await page.locator("li.card a").first().getAttribute("href"), BASE).href);
    const line = page.locator(".loan-row a");
    assert.match(await line.innerText(), /年化利率5\.80%/);
    await line.click();
    await page.waitForURL(/\/servicehall\/fenqi\/fenqi\?listing=/);
    assert.match(await page.locator("#apr").innerText(), /年化利率（单利）\s*5\.80%/);
    // A 2,000 service fee and 30 a month: the same loan costs more, and the rate says so.
    await page.fill("#fq-fee", "2000");
    await page.fill("#fq-mgmt", "30");
    await page.locator(".loan-form button[type=submit]").click();
    await page.waitForURL(/fee=2000/);
    const apr = await page.locator("#apr b").innerText();
    assert.ok(parseFloat(apr) > 5.8, apr);
    assert.match(await page.locator(".order-facts").innerText(), /费用合计/);
    await ctx.close();
  });
}
