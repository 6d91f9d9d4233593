// Reserving a car online in Debian's Chromium: a dealer (desktop) marks two damages with photos on
// the car's outline (a tap on the picture with JavaScript, a view and a spot from the lists
// without) and takes reservations of the car with a statement written; a buyer on a phone in WeChat's browser (JavaScript on, then off) reads the
// statement, is told beside the box to accept it, pays the deposit at the sandbox's WeChat Pay
// cashier, finds the reservation with its deadline, while another visitor sees the car reserved;
// the buyer then reports that the car differs from its statement and sees the deposit refunded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, appSignIn, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const DEALER = "13100000000"; // the seed's first shop's owner
const WECHAT = `${IPHONE} MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN`;

/// The dealer's car that takes reservations for 2,000 元, its statement written first if need be.
async function offer(js) {
  const dealer = await getBrowser().newContext({ javaScriptEnabled: js, viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
  const desk = await dealer.newPage();
  await desk.goto(appSignIn("/space/personcarlist", DEALER));
  // The shop's last online car (the statement's own test takes the first).
  const row = desk.locator("tr[id^=listing-]").filter({ has: desk.locator('a[href^="/details/"]') }).last();
  const id = (await row.getAttribute("id")).replace("listing-", "");
  await desk.goto(`${BASE}/space/personcarlist/${id}/disclosure`);
  if ((await desk.locator(".meta", { hasText: "尚未填写" }).count()) > 0) {
    for (const fieldset of await desk.locator("fieldset.dsf-field").all()) {
      const first = fieldset.locator("input[type=radio]").first();
      if ((await first.count()) > 0 && (await fieldset.locator("input[type=radio]:checked").count()) === 0) await first.check();
      const month = fieldset.locator("input.dsf-month");
      if ((await month.count()) > 0 && (await fieldset.locator('input[value="month"]').count()) === 0) await month.fill("2027-06");
    }
    await desk.locator("form.disclose-form button.btn-block").click();
    await desk.waitForLoadState();
    if ((await desk.locator('input[name="confirm"]').count()) > 0) {
      await desk.locator('input[name="confirm"]').check();
      await desk.locator("form.disclose-form button.btn-block").click();
    }
    await desk.waitForURL(/\/disclosure\?saved=\d+$/);
  }
  // Two damages marked, each with its photo.
  await desk.goto(`${BASE}/space/personcarlist/${id}/damage`);
  const before = await desk.locator("ol.dm-list > li").count();
  for (const [area, kind, spot, note] of [["left", "dent", "ml", "左后门凹陷约3cm"], ["front", "scratch", "bc", "前保险杠下沿划痕"]]) {
    if (js) {
      await desk.waitForFunction(() => [...document.querySelectorAll("[data-island]")].every((e) => e.dataset.mounted === "1"));
      await desk.locator(`.dm-fig[data-area="${area}"] svg`).click({ position: { x: 60, y: 50 } });
      assert.match(await desk.locator(".dm-hint").innerText(), /选定位置/);
      assert.equal(await desk.locator(`input[name="area"][value="${area}"]`).isChecked(), true);
    } else {
      await desk.locator(`input[name="area"][value="${area}"]`).check();
      await desk.selectOption("#dm-spot", spot);
    }
    await desk.locator(`input[name="kind"][value="${kind}"]`).check();
    await desk.fill("#dm-note", note);
    const res = await desk.request.get(`${BASE}/upload/demo/suv-red-1_w960.webp`);
    await desk.locator("#dm-photo").setInputFiles({ name: "damage.webp", mimeType: "image/webp", buffer: await res.body() });
    await desk.locator(".dm-form button").click();
    await desk.waitForURL(/\/damage\?saved=added/);
  }
  assert.equal(await desk.locator("ol.dm-list > li").count(), before + 2);
  await desk.goto(`${BASE}/space/personcarlist/${id}/disclosure`);
  const form = desk.locator("form.reserve-offer");
  await form.locator('input[name="accept"]').check();
  await form.locator("#rs-deposit").fill("2000");
  // The account a sale's deposit is paid on to.
  await form.locator("#rs-account").fill("13912345678");
  await form.locator("#rs-name").fill("王建国");
  await form.locator("button").click();
  await desk.waitForURL(/\/disclosure\?deposit=saved/);
  assert.match(await desk.locator("form.reserve-offer .notice.ok").innerText(), /已开通在线预订，定金2,000元/);
  await dealer.close();
  return id;
}

for (const js of [true, false]) {
  test(`a buyer in WeChat reserves a car with a deposit and gets it back when the car differs (JavaScript ${js ? "on" : "off"})`, async () => {
    const id = await offer(js);
    const ctx = await getBrowser().newContext({ userAgent: WECHAT, viewport: { width: 390, height: 844 }, javaScriptEnabled: js, locale: "zh-CN" });
    const page = await ctx.newPage();
    await page.goto(`${BASE}/details/${id}`);
    const reserveLink = page.locator(".reserve-row a", { hasText: "支付定金2,000元预订" });
    assert.ok(await reserveLink.isVisible(), "the car offers a reservation");
    // The damage map: numbered marks on the outline, each linked to its photo.
    const map = page.locator("#damage");
    await map.scrollIntoViewIfNeeded();
    assert.match(await map.locator("ol.dm-list").innerText(), /左侧 · 凹陷[\s\S]*左后门凹陷约3cm/);
    assert.ok((await map.locator('svg a[href^="#mark-"]').count()) >= 2);
    await page.goto(`${BASE}/sys/login?return=${encodeURIComponent(`/reserve/${id}`)}`);
    await signIn(page, js ? "13700006101" : "13700006102");
    await page.waitForURL(new RegExp(`/reserve/${id}$`));
    assert.match(await page.locator("#disclosure").innerText(), /车况声明[\s\S]*已核查/);
    assert.match(await page.locator(".rules").innerText(), /定金立即全额退还/);
    // Paying without accepting the statement: told beside the box, nothing asked.
    await page.locator("button.pay-wechat").click();
    await page.waitForLoadState();
    assert.match(await page.locator(".rs-form .field.check .error").innerText(), /请阅读车况声明并勾选确认/);
    await page.locator('input[name="accept"]').check();
    await page.locator("button.pay-wechat").click();
    await page.waitForURL(/\/pay\/wechat\?order=\d{20}/);
    await page.locator("a", { hasText: "打开沙箱收银台" }).click();
    await page.locator("button", { hasText: "支付成功" }).click();
    await page.waitForURL(/\/common\/paysuccess\?/);
    await page.locator("a", { hasText: "查看我的预订" }).click();
    await page.locator(".rs-list a").first().click();
    await page.waitForURL(/\/space\/reservations\/\d+$/);
    assert.match(await page.locator("h1").innerText(), /已预订/);
    assert.match(await page.locator(".order-facts").innerText(), /保留至[\s\S]*剩余(3天0小时|2天23小时)/);

    // Everyone else sees the car reserved, with no way to reserve it.
    const other = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: js, locale: "zh-CN" });
    const visitor = await other.newPage();
    await visitor.goto(`${BASE}/details/${id}`);
    assert.match(await visitor.locator(".reserve-row.held").innerText(), /已预订[\s\S]*保留至/);
    assert.equal(await visitor.locator(`a[href="/reserve/${id}"]`).count(), 0);
    await other.close();

    // The car differs from its statement: the deposit comes back at once.
    await page.locator("#rs-what").fill("声明无结构件事故，看车发现右前纵梁有焊接痕迹");
    await page.locator('button[value="mismatch"]').click();
    await page.waitForLoadState();
    assert.match(await page.locator("h1").innerText(), /定金已退/);
    assert.match(await page.locator(".rs-receipt").innerText(), /退还原因：车况与声明不符[\s\S]*定金2,000元已原路退回/);
    await ctx.close();
  });
}
