// A dealer states a car's condition (车况声明) in Debian's Chromium and buyers read it on the car's
// page: the dealer (desktop, JavaScript on, then off) answers every item, says what was repaired,
// confirms where our records disagree, and saves; a buyer on a phone in WeChat's browser
// (JavaScript on and off) finds the statement with each item's answer, the note, and whether it
// was checked against our records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, appSignIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const DEALER = "13100000000"; // the seed's first shop's owner
const WECHAT = `${IPHONE} MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN`;

for (const js of [true, false]) {
  test(`a dealer states a car's condition and a buyer in WeChat reads it (JavaScript ${js ? "on" : "off"})`, async () => {
    const dealer = await getBrowser().newContext({ javaScriptEnabled: js, viewport: { width: 1280, height: 900 } });
    const desk = await dealer.newPage();
    await desk.goto(appSignIn("/space/personcarlist", DEALER));
    // An online car of the shop: its row links to the car's page and to its statement.
    const row = desk.locator("tr[id^=listing-]").filter({ has: desk.locator('a[href^="/details/"]') }).first();
    const id = (await row.getAttribute("id")).replace("listing-", "");
    await row.locator('a[href$="/disclosure"]').click();
    await desk.waitForURL(new RegExp(`/space/personcarlist/${id}/disclosure$`));
    assert.equal(await desk.locator("h1").innerText(), "车况声明");
    // Every item answered: 无 (or its first choice), the months ahead, one repair said.
    for (const fieldset of await desk.locator("fieldset.dsf-field").all()) {
      const first = fieldset.locator("input[type=radio]").first();
      if ((await first.count()) > 0 && (await fieldset.locator("input[type=radio]:checked").count()) === 0) await first.check();
      const month = fieldset.locator("input.dsf-month");
      if ((await month.count()) > 0 && (await fieldset.locator('input[value="month"]').count()) === 0) await month.fill("2027-06");
    }
    const note = `右后门钣金喷漆${js ? "一" : "二"}次，已在4S店修复`;
    await desk.locator('#item-repairs input[value="yes"]').check();
    await desk.locator('#item-repairs textarea').fill(note);
    await desk.locator("form.disclose-form button.btn-block").click();
    await desk.waitForLoadState();
    // Where our records disagree, the seller is told beside the item and confirms.
    if ((await desk.locator('input[name="confirm"]').count()) > 0) {
      assert.match(await desk.locator("fieldset.has-error").first().innerText(), /与记录不符/);
      await desk.locator('input[name="confirm"]').check();
      await desk.locator("form.disclose-form button.btn-block").click();
    }
    await desk.waitForURL(/\/disclosure\?saved=\d+$/);
    assert.match(await desk.locator(".notice.ok").innerText(), /已保存第\d+版车况声明/);
    await dealer.close();

    const buyer = await getBrowser().newContext({ userAgent: WECHAT, viewport: { width: 390, height: 844 }, javaScriptEnabled: js });
    const page = await buyer.newPage();
    await page.goto(`${BASE}/details/${id}`);
    const section = page.locator("#disclosure");
    await section.scrollIntoViewIfNeeded();
    assert.ok(await section.isVisible());
    const text = await section.innerText();
    assert.match(text, /车况声明/);
    assert.match(text, /已核查 \d+ 项/);
    const repairs = section.locator("li").filter({ hasText: "其他事故与维修" });
    assert.match(await repairs.innerText(), new RegExp(`有[\\s\\S]*${note}`));
    assert.match(await repairs.locator(".ds-badge").innerText(), /^(已核查|未核查|与记录不符)$/);
    await buyer.close();
  });
}
