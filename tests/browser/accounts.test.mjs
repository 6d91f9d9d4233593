// Every login path in Debian's Chromium against the sandbox adapters: SMS login from a signed-out
// 收藏 (phone and desktop, JavaScript on and off) that finishes the 收藏 and lands back where the
// visitor was; QQ
// login through the sandbox consent page with first-login phone binding; and the desktop QR
// login confirmed from a signed-in phone in a second browser context.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, SITE, VARIANTS, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const run = String(Date.now()).slice(-7);
const phone = (i) => `15${i}${run}0`.slice(0, 11);

function context(mobile, js = true) {
  return getBrowser().newContext({
    javaScriptEnabled: js,
    ...(mobile ? { userAgent: IPHONE, viewport: { width: 390, height: 844 } } : { viewport: { width: 1280, height: 900 } }),
  });
}

async function firstCarPath(page) {
  await page.goto(BASE + "/carlist");
  return new URL(await page.locator("li.card a").first().getAttribute("href"), BASE).pathname;
}

for (const v of VARIANTS) {
  test(`SMS login from 收藏 lands back on the car: ${v.name}`, async () => {
    const ctx = await context(v.mobile, v.js);
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const car = await firstCarPath(page);
    await page.goto(BASE + car);
    await page.locator("form.fav-inline button").click();
    // Anonymous: the login form saying why, with one page and two inputs.
    assert.equal(await page.locator("h1").innerText(), "手机号登录");
    assert.equal(await page.locator(".login-reason").innerText(), "登录后收藏这辆车");
    assert.equal(await page.locator("form.login-form input:not([type=hidden])").count(), 2);
    // A bad phone gets a message beside the field and keeps the input.
    await page.fill("#login-mobile", "1234");
    await page.locator("button", { hasText: "获取验证码" }).click();
    assert.equal(await page.locator("#login-mobile-error").innerText(), "请输入正确的手机号");
    assert.equal(await page.inputValue("#login-mobile"), "1234");
    await signIn(page, phone(v.n));
    // Signing in finishes the 收藏 and lands back on the car, saying so.
    await page.waitForURL(BASE + car);
    assert.equal(await page.locator("form.fav-inline button").innerText(), "已收藏");
    assert.match(await page.locator(".flash").innerText(), /已收藏这辆车/);
    // The notice shows once.
    await page.reload();
    assert.equal(await page.locator(".flash").count(), 0);
    await page.goto(BASE + "/space");
    assert.match(await page.locator(".space-head .meta").innerText(), /\*\*\*\*/);
    await page.goto(BASE + "/space/favourites");
    assert.equal(await page.locator("li.card").count(), 1);
    // Logout ends it.
    await page.goto(BASE + "/space");
    await page.locator("button", { hasText: "退出登录" }).click();
    await page.goto(BASE + "/space/favourites");
    assert.equal(await page.locator("h1").innerText(), "手机号登录");
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

for (const v of VARIANTS) {
  test(`订阅此搜索 signed out finishes after sign-in: ${v.name}`, async () => {
    const ctx = await context(v.mobile, v.js);
    const page = await ctx.newPage();
    await page.goto(BASE + "/carlist?brand=dazhong");
    await page.locator("form.save-search button").click();
    assert.equal(await page.locator(".login-reason").innerText(), "登录后订阅此搜索，有新车源或降价时提醒您");
    await signIn(page, `16${v.n}${run}0`.slice(0, 11));
    await page.waitForURL(BASE + "/carlist?brand=dazhong");
    assert.match(await page.locator(".flash").innerText(), /已订阅此搜索/);
    await page.goto(BASE + "/space/searches");
    assert.match(await page.locator(".saved-searches").innerText(), /大众/);
    await ctx.close();
  });
}

test("QQ login through the sandbox binds a phone and returns", async () => {
  const ctx = await context(true);
  const page = await ctx.newPage();
  await page.goto(BASE + "/sys/login?return=%2Fcarlist%3Fprice%3D5-8");
  await page.locator(".login-other a", { hasText: "QQ登录" }).click();
  assert.match(await page.locator("h1").innerText(), /QQ授权登录/);
  await page.fill("#sb-openid", `qq-${run}`);
  await page.locator("button", { hasText: "同意" }).click();
  assert.equal(await page.locator("h1").innerText(), "首次登录，请绑定手机号");
  await signIn(page, phone(5));
  await page.waitForURL(BASE + "/carlist?price=5-8");
  // The next QQ login with the same identity needs no phone.
  await page.goto(BASE + "/space");
  await page.locator("button", { hasText: "退出登录" }).click();
  await page.goto(BASE + "/sys/QQlogin?return=%2Fspace");
  await page.fill("#sb-openid", `qq-${run}`);
  await page.locator("button", { hasText: "同意" }).click();
  await page.waitForURL(BASE + "/space");
  assert.match(await page.locator(".space-head h1").innerText(), /QQ用户/);
  await ctx.close();
});

for (const js of [true, false]) {
  test(`desktop QR login confirmed on a signed-in phone (desktop JavaScript ${js ? "on" : "off"})`, async () => {
    const phoneCtx = await context(true);
    const phonePage = await phoneCtx.newPage();
    await phonePage.goto(BASE + "/sys/login?return=%2Fspace");
    await signIn(phonePage, phone(js ? 6 : 7));
    await phonePage.waitForURL(BASE + "/space");

    const desk = await context(false, js);
    const deskPage = await desk.newPage();
    await deskPage.goto(BASE + "/space");
    await deskPage.locator(".login-other a", { hasText: "微信登录" }).click();
    assert.equal(await deskPage.locator("h1").innerText(), "扫码登录");
    assert.equal(await deskPage.locator(".qr svg").count(), 1);
    const confirmUrl = await deskPage.locator("a.confirm-url").getAttribute("href");
    assert.ok(confirmUrl.startsWith(SITE + "/actives/loginAuth?t="), confirmUrl);

    await phonePage.goto(confirmUrl);
    assert.equal(await phonePage.locator("h1").innerText(), "确认登录网页版?");
    await phonePage.locator("button", { hasText: "确认登录" }).click();
    assert.match(await phonePage.locator("h1").innerText(), /已确认/);

    if (js) {
      // The desktop page notices by itself (it asks every second).
      const started = Date.now();
      await deskPage.waitForURL(BASE + "/space", { timeout: 5000 });
      assert.ok(Date.now() - started < 3000, `signed in ${Date.now() - started} ms after confirming`);
    } else {
      await deskPage.locator("button", { hasText: "我已在手机上确认" }).click();
      await deskPage.waitForURL(BASE + "/space");
    }
    assert.match(await deskPage.locator(".space-head .meta").innerText(), /\*\*\*\*/);
    // The code worked once: opening it again on the phone says it is no longer valid.
    await phonePage.goto(confirmUrl);
    assert.equal(await phonePage.locator("h1").innerText(), "二维码已失效");
    await phoneCtx.close();
    await desk.close();
  });
}

test("WeChat login inside WeChat's browser goes through OAuth, binds a phone and returns", async () => {
  const ctx = await getBrowser().newContext({ userAgent: IPHONE + " MicroMessenger/8.0.47", viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await page.goto(BASE + "/space");
  await page.locator(".login-other a", { hasText: "微信登录" }).click();
  assert.match(await page.locator("h1").innerText(), /微信授权登录/);
  await page.fill("#sb-openid", `wx-${run}`);
  await page.locator("button", { hasText: "同意" }).click();
  assert.equal(await page.locator("h1").innerText(), "首次登录，请绑定手机号");
  await signIn(page, phone(8));
  await page.waitForURL(BASE + "/space");
  assert.match(await page.locator(".space-head h1").innerText(), /微信用户/);
  await ctx.close();
});
