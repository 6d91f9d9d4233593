// Ad landings in a real browser, on a phone inside WeChat and on a desktop without JavaScript:
// a visitor lands from an ad (巨量引擎, Tencent or Baidu), browses to a car inside the flow and
// leaves a lead; the flow's lead bar stays on screen, the statistics `from` is built from the
// visit as the seed says, and staff then see each lead under its campaign with exactly one
// conversion report (the sandbox's, recorded instead of sent).
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, appSignIn, useBrowser } from "./browser.mjs";

const browser = useBrowser();
const WECHAT = IPHONE + " MicroMessenger/8.0.40(0x18002831) NetType/WIFI Language/zh_CN";
const RUN = String(Date.now() % 100000).padStart(5, "0");

async function context(mobile, js) {
  return browser().newContext({
    viewport: mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    javaScriptEnabled: js,
    ...(mobile ? { userAgent: WECHAT, isMobile: true, hasTouch: true } : {}),
  });
}

const JOURNEYS = [
  { name: "巨量引擎 on a phone in WeChat", flow: "douyinflow", query: `plan=p1&unit=u2&keyword=k&clickid=c${RUN}`, click: `c${RUN}`, mobile: true, js: true, phone: `1394455${RUN.slice(0, 3)}1`, from: "typedouyin_mobile_plan_p1_unit_u2_keyword_k" },
  { name: "Tencent on a phone in WeChat", flow: "flow", query: `plan=p2&gdt_vid=wx${RUN}`, click: `wx${RUN}`, mobile: true, js: true, phone: `1394455${RUN.slice(0, 3)}2`, from: "mobile_plan_p2" },
  { name: "Baidu on a desktop without JavaScript", flow: "newFlow", query: `plan=p3&keyword=%E4%BA%8C%E6%89%8B%E8%BD%A6&bd_vid=bd${RUN}`, click: `bd${RUN}`, mobile: false, js: false, phone: `1394455${RUN.slice(0, 3)}3`, from: "pc_plan_p3_keyword_二手车" },
];

for (const j of JOURNEYS) {
  test(`an ad's visitor browses to a car and leaves a lead: ${j.name}`, async () => {
    const ctx = await context(j.mobile, j.js);
    const page = await ctx.newPage();
    await page.goto(`${BASE}/actives/${j.flow}?${j.query}`);
    assert.equal(await page.locator("html").getAttribute("data-layout"), "flow");
    assert.equal(await page.locator("nav[aria-label=主导航]").count(), 0, "no site navigation to leave by");
    // The lead bar sits on the bottom of the screen, over the page.
    const bar = await page.locator(".flow-bar").boundingBox();
    const view = page.viewportSize();
    assert.ok(Math.abs(bar.y + bar.height - view.height) <= (j.mobile ? 1 : 30), `the bar ends at ${bar.y + bar.height} of ${view.height}`);
    if (j.flow === "douyinflow") assert.equal(await page.locator("html").getAttribute("data-douyin"), "1");
    // Into the flow's list, then a car; both stay inside the flow.
    await page.locator(".flow-nav a", { hasText: "买车" }).click();
    await page.waitForURL(new RegExp(`/actives/${j.flow}/buycarlist`));
    await page.locator("li.card a").first().click();
    await page.waitForURL(new RegExp(`/actives/${j.flow}/details/\\d+$`));
    assert.ok((await page.title()).endsWith(" - 二手车网"));
    // A lead without the agreement is refused beside the box, the phone kept; then sent.
    await page.fill("#f-mobile", j.phone);
    await page.locator("#lead button[type=submit]").click();
    await page.locator("#f-agree-error").waitFor();
    assert.equal(await page.inputValue("#f-mobile"), j.phone);
    await page.locator("#lead input[name=agree]").check();
    await page.locator("#lead button[type=submit]").click();
    await page.waitForURL(/\?lead=ok#lead$/);
    assert.match(await page.locator("#lead .notice").innerText(), /提交成功/);
    // The statistics `from` of this visit.
    const stats = await ctx.request.get(`${BASE}/hpi/mobile/appdatastatistics.json`);
    const body = await stats.json();
    assert.equal(JSON.stringify(body).includes(`"from":"${j.from}"`), true, JSON.stringify(body));
    await ctx.close();
  });
}

// A refused landing form comes back at the form, its messages on screen above the lead bar — not
// at the top of the page with them below the fold (phone in WeChat, and without JavaScript).
for (const [mobile, js] of [[true, true], [true, false], [false, false]]) {
  test(`a wrong phone on an ad's landing is answered in view (${mobile ? "phone in WeChat" : "desktop"}, ${js ? "JavaScript" : "no JavaScript"})`, async () => {
    const ctx = await context(mobile, js);
    const page = await ctx.newPage();
    // What WeChat leaves of a 390×844 phone's screen under its own bars; a laptop's window.
    await page.setViewportSize(mobile ? { width: 390, height: 700 } : { width: 1280, height: 640 });
    for (const flow of ["flow", "douyinflow", "newFlow"]) {
      await page.goto(`${BASE}/actives/${flow}`);
      await page.selectOption("#lead select[name=city]", "changsha");
      await page.selectOption("#lead select[name=budget]", { index: 2 });
      await page.fill("#f-mobile", "1391234");
      await page.locator("#lead button[type=submit]").click();
      await page.locator("#f-mobile-error").waitFor();
      assert.ok(page.url().endsWith("#lead"), page.url());
      // On a phone the bar spans the screen's foot; on a desktop it floats at the right.
      const bar = await page.locator(".flow-bar").boundingBox();
      const bottom = mobile ? bar.y : page.viewportSize().height;
      for (const message of ["#f-mobile-error", "#f-agree-error"]) {
        const error = await page.locator(message).boundingBox();
        assert.ok(error.y >= 0 && error.y + error.height <= bottom, `${flow}: ${message} (${error.y}) is on screen above ${bottom}`);
      }
      assert.equal(await page.inputValue("#f-mobile"), "1391234", "the phone is kept");
    }
    // newFlow's headline promises a valuation: its first form values a car, no phone asked.
    await page.goto(`${BASE}/actives/newFlow`);
    assert.equal(await page.locator("form").first().getAttribute("action"), "/actives/newFlow/asresult");
    await ctx.close();
  });
}

test("staff see each lead under its campaign with one conversion report", async () => {
  const ctx = await context(false, true);
  const page = await ctx.newPage();
  // Staff sign in by the app's link: the SMS code of this phone belongs to the selling tests,
  // which may run at the same time (one code a minute per phone).
  await page.goto(appSignIn("/staff/campaigns", "19000000001"));
  await page.waitForURL(/\/staff\/campaigns/);
  const text = await page.locator("main").innerText();
  for (const [platform, plan] of [["巨量引擎", "p1"], ["腾讯广告", "p2"], ["百度营销", "p3"]]) {
    const row = page.locator("table.camp-table tbody tr", { hasText: platform }).filter({ hasText: plan });
    assert.ok((await row.count()) >= 1, `${platform} ${plan} in the table`);
  }
  for (const j of JOURNEYS) {
    assert.equal(text.split(`点击 ${j.click}`).length - 1, 1, `${j.click}: one report`);
  }
  assert.match(text, /已送达（演示，未发送）/);
  // The CSV link downloads the same table for Excel.
  const csv = await ctx.request.get(`${BASE}/staff/campaigns.csv`);
  assert.equal(csv.headers()["content-type"], "text/csv; charset=utf-8");
  const bytes = await csv.body();
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "a UTF-8 BOM");
  assert.match(bytes.toString("utf8"), /百度营销,p3,,二手车,/);
  await ctx.close();
});
