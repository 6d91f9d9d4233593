// The service hall's reports in Debian's Chromium, phone and desktop, JavaScript on and off.
// Valuation: a visitor values a car without giving a phone number, a mileage typed wrong is
// answered beside its field with the rest kept, the three prices read 收购 < 个人 < 零售 with the
// comparables method named, and the report's depreciation chart carries its numbers as text too.
// History reports: a buyer signs in (once: the login codes one address may ask for are limited),
// buys the buyer VIP plan at the sandbox cashier, orders a report by VIN with its free queries on
// phones and at the sandbox cashier on desktops, reads it, and downloads its PDF, whose text
// Debian's pdftotext reads back in Chinese.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASE, signIn, useBrowser, variantOptions, VARIANTS } from "./browser.mjs";

const getBrowser = useBrowser();
const run = String(Date.now()).slice(-7);
const buyer = `15${run}00`.slice(0, 11);
let session = null;
// One VIN per variant, so that none is a repeat query of the same car (offered free for 30 days).
const VINS = ["LSVAM4180C2184821", "LFV2A21K6F3073519", "LGBH52E0XLY123456", "LGXCE6CD2M0234567"];
/// The makers those VINs' first three characters name.
const MAKERS = { LSV: "上汽大众", LFV: "一汽-大众", LGB: "东风日产", LGX: "比亚迪" };

/// The share of a PDF's first page's inked pixels (darker than near-white) that are darker than
/// mid-grey, read from `pdftoppm`'s greyscale rendering (a binary PGM).
function darkShare(pdf) {
  const pgm = execFileSync("pdftoppm", ["-r", "50", "-gray", "-f", "1", "-l", "1", pdf]);
  // "P5\n<w> <h>\n255\n" then one byte a pixel.
  let at = 0;
  for (let lines = 0; lines < 3; at++) if (pgm[at] === 0x0a) lines++;
  let ink = 0;
  let dark = 0;
  for (let i = at; i < pgm.length; i++) {
    if (pgm[i] < 250) ink++;
    if (pgm[i] < 160) dark++;
  }
  return ink ? dark / ink : 0;
}

function context(v) {
  return getBrowser().newContext(variantOptions(v));
}

const wan = (text) => Number(text.replace(/[^\d.]/g, ""));

for (const v of VARIANTS) {
  test(`a car valued without a phone number, and its report's chart: ${v.name}`, async () => {
    const ctx = await context(v);
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(BASE + "/servicehall/pinggu");
    assert.equal(await page.locator("input[name=mobile]").count(), 0, "no phone number asked");
    await page.selectOption("#pg-series", { label: "宝马 X3" });
    await page.fill("#pg-month", "2021-06");
    await page.fill("#pg-mileage", "-1");
    await page.selectOption("#pg-city", { label: "长沙" });
    await page.locator("button", { hasText: "立即估价" }).click();
    await page.waitForLoadState();
    assert.match(await page.locator("#pg-mileage-error").innerText(), /里程/);
    assert.equal(await page.locator("#pg-series").inputValue(), "x3", "the rest of the form is kept");
    assert.equal(await page.locator("#pg-month").inputValue(), "2021-06");
    await page.fill("#pg-mileage", "4.5");
    await page.locator("button", { hasText: "立即估价" }).click();
    await page.waitForURL(/\/servicehall\/pinggu\/result\?/);
    const prices = await page.locator(".pg-price .pg-mid b").allInnerTexts();
    assert.equal(prices.length, 3);
    const [trade, private_, retail] = prices.map(wan);
    assert.ok(trade < private_ && private_ < retail, `收购 ${trade} < 个人 ${private_} < 零售 ${retail}`);
    assert.match(await page.locator(".pg-method").innerText(), /根据本站在售的\d+辆同车系车源/);
    // The address is the valuation: opened again, it shows the same prices.
    const shared = page.url();
    await page.locator("a", { hasText: "查看估价报告" }).click();
    await page.waitForURL(/\/servicehall\/pinggu\/report\?/);
    assert.equal(await page.locator(".pg-chart svg polyline.curve").count(), 1);
    assert.equal(await page.locator(".pg-chart svg circle.dot").count(), 1);
    const table = await page.locator(".pg-curve-table").innerText();
    assert.match(table, /车龄\s+0年[\s\S]*10年\s+估值（万）(\s+\d+(\.\d{1,2})?){11}/, "the curve's numbers as text");
    assert.ok((await page.locator(".pg-cars li a[href^='/details/']").count()) > 0, "comparable cars as links");
    await page.goto(shared);
    assert.deepEqual((await page.locator(".pg-price .pg-mid b").allInnerTexts()).map(wan), [trade, private_, retail]);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

/// Signs in on the login page (the first time) or takes the session the first sign-in kept, and
/// buys the buyer VIP plan that first time, at the sandbox cashier.
async function signedIn(ctx, page) {
  if (session) {
    await ctx.addCookies(session);
    return;
  }
  await page.goto(BASE + "/sys/login?return=%2Fvip");
  await signIn(page, buyer);
  await page.waitForURL(BASE + "/vip");
  session = await ctx.cookies();
  await page.locator("form.plan", { hasText: "买车VIP月卡" }).locator("button", { hasText: "支付宝付款" }).click();
  await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
  await page.locator("button", { hasText: "支付成功" }).click();
  await page.waitForURL(/\/common\/paysuccess\?order=\d{20}/);
  assert.match(await page.locator(".order-facts").innerText(), /买车VIP月卡[\s\S]*19\.00元/);
}

for (const [i, v] of VARIANTS.entries()) {
  test(`a history report ordered by VIN, read and downloaded as a PDF: ${v.name}`, async () => {
    const ctx = await context(v);
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signedIn(ctx, page);
    await page.goto(BASE + "/servicehall/fourquery");
    // A VIN mistyped (one character off, so its check digit disagrees) is answered beside the
    // field, kept as typed; the same VIN pasted in lower case with spaces is taken.
    const typo = VINS[i].slice(0, 16) + (VINS[i][16] === "1" ? "2" : "1");
    await page.fill("#fq-vin", typo);
    await page.locator("label.fq-product", { hasText: "车况四项全查" }).locator("input").check();
    await page.locator("button", { hasText: "下一步" }).click();
    await page.waitForLoadState();
    assert.match(await page.locator("#fq-vin-error").innerText(), /校验不通过/);
    assert.equal(await page.locator("#fq-vin").inputValue(), typo);
    await page.fill("#fq-vin", ` ${VINS[i].slice(0, 8).toLowerCase()} ${VINS[i].slice(8)} `);
    await page.locator("label.fq-product", { hasText: "车况四项全查" }).locator("input").check();
    await page.locator("button", { hasText: "下一步" }).click();
    await page.waitForURL(/\/servicehall\/fourquery\/fourorder\?/);
    assert.match(await page.locator(".order-facts").innerText(), /车况四项全查/);
    const free = page.locator("button", { hasText: "使用VIP免费查询" });
    if (v.mobile) {
      // The plan's two free queries this month: the phones use them.
      assert.match(await free.innerText(), new RegExp(`本月剩${2 - i}次`));
      await free.click();
    } else {
      assert.equal(await free.count(), 0, "both free queries are used");
      await page.locator("button.pay-alipay").click();
      await page.waitForURL(/\/pay\/sandbox\/gateway\?/);
      assert.match(await page.locator("h1").innerText(), /\d+\.\d{2}/);
      await page.locator("button", { hasText: "支付成功" }).click();
    }
    // 查询中 refreshes itself (a meta refresh, so without JavaScript too) until the report is ready.
    await page.waitForURL(/\/servicehall\/fourquery\/fousresults\?/);
    await page.locator("h1", { hasText: "报告已生成" }).waitFor({ timeout: 30_000 });
    assert.match(await page.locator(".fq-summary").innerText(), /维保记录[\s\S]*出险记录[\s\S]*车辆状态[\s\S]*里程记录/);
    const pdfHref = await page.locator("a", { hasText: "下载PDF" }).getAttribute("href");
    await page.locator("a", { hasText: "查看完整报告" }).click();
    await page.waitForURL(/\/servicehall\/report\/\d+/);
    assert.match(await page.locator("h1").innerText(), /车况报告/);
    const vinShown = await page.locator(".fq-vin").innerText();
    assert.equal(vinShown.replace(/\s/g, "").slice(-4), VINS[i].slice(-4), "the owner's own VIN, read back");
    // The PDF: its text is the report's, in Chinese, under 300 KB.
    const pdf = await page.request.get(BASE + pdfHref);
    assert.equal(pdf.status(), 200);
    assert.match(pdf.headers()["content-type"], /application\/pdf/);
    const bytes = await pdf.body();
    assert.ok(bytes.length < 300 * 1024, `${bytes.length} bytes`);
    const file = join(mkdtempSync(join(tmpdir(), "usedcar-pdf-")), "report.pdf");
    writeFileSync(file, bytes);
    const text = execFileSync("pdftotext", ["-enc", "UTF-8", file, "-"]).toString();
    assert.match(text, /车况报告/);
    assert.match(text, /维保记录/);
    assert.match(text, /出险记录/);
    assert.match(text, new RegExp(`车辆 ${MAKERS[VINS[i].slice(0, 3)]} 20\\d\\d年款`), "the car named by its maker and model year");
    assert.doesNotMatch(text, /年款车辆/);
    // Its first page, rendered: the body text is dark on white, not washed out (a third or so of
    // the inked pixels are darker than mid-grey; a grey stroke over the glyphs left under 3%).
    const dark = darkShare(file);
    assert.ok(dark > 0.15, `only ${(dark * 100).toFixed(1)}% of the first page's ink is dark`);
    // My queries list it.
    await page.goto(BASE + "/servicehall/fourquery/fourlist");
    assert.match(await page.locator("main").innerText(), /车况四项全查/);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}
