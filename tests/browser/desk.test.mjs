// A shop's desk in Debian's Chromium: the owner (desktop) adds a member in the dealer centre; a
// buyer asks the shop itself; the member, on a phone in WeChat's browser (JavaScript on, then
// off), finds the question no one holds in 我的消息, claims it and answers; the buyer sees the
// shop's answer arrive (JavaScript) or on reload; the owner reads which member holds and answered it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, appSignIn, signIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
const OWNER = "13100000000"; // the seed's first shop's owner
const WECHAT = `${IPHONE} MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN`;

for (const js of [true, false]) {
  test(`a member in WeChat claims and answers a shop's buyer (JavaScript ${js ? "on" : "off"})`, async () => {
    const [member, name, buyer] = js ? ["13700007201", "赵敏", "13700007211"] : ["13700007202", "孙浩", "13700007212"];
    const owner = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
    const office = await owner.newPage();
    await office.goto(appSignIn("/space/shop-members", OWNER));
    await office.fill("#member-name", name);
    await office.fill("#member-mobile", member);
    await office.locator(".member-form button", { hasText: "添加" }).click();
    await office.waitForURL(/done=added$/);
    assert.match(await office.locator(".member-list li", { hasText: name }).innerText(), /尚未登录/);

    // The buyer asks the shop itself.
    const asker = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN" });
    const ask = await asker.newPage();
    await ask.goto(appSignIn("/space/messages/ask-shop/1", buyer));
    const question = `店里有没有10万以内的SUV？（${name}）`;
    await ask.fill("#msg-body", question);
    await ask.locator("button", { hasText: "发送" }).click();
    await ask.waitForURL(/\/space\/messages\/\d+#latest$/);
    const thread = new URL(ask.url()).pathname;

    // The member, on a phone in WeChat: the question no one holds, claimed, answered.
    const phone = await getBrowser().newContext({ userAgent: WECHAT, viewport: { width: 390, height: 844 }, javaScriptEnabled: js, locale: "zh-CN" });
    const page = await phone.newPage();
    // (A link's sign-in is for the app, not WeChat's browser: the member signs in by SMS.)
    await page.goto(`${BASE}/space/messages`);
    await signIn(page, member);
    await page.waitForURL(/\/space\/messages$/);
    await page.locator(".msg-tabs a", { hasText: "未分配" }).click();
    await page.waitForURL(/view=open$/);
    assert.match(await page.locator(".msg-hint").first().innerText(), new RegExp(`的店员（${name}）`));
    const line = page.locator(`.msg-list a[href="${thread}"]`);
    assert.match(await line.innerText(), /咨询店铺[\s\S]*未分配/);
    await line.click();
    await page.waitForURL(new RegExp(`${thread}$`));
    await page.locator(".msg-desk-box button", { hasText: "认领" }).click();
    await page.waitForURL(/desk=1$/);
    assert.match(await page.locator(".msg-desk-box").innerText(), new RegExp(`负责人：${name}（我）`));
    await page.fill("#msg-body", "有的，途观L和CR-V都在10万以内，周末可以到店看车。");
    await page.locator("form.msg-form button").click();
    await page.waitForURL(/#latest$/);
    assert.match(await page.locator(".msg-item.mine .msg-who").last().innerText(), /^我 /);
    await phone.close();

    if (js) {
      // With JavaScript the shop's answer arrives while the buyer's page is open.
      await ask.locator(".msg-live .msg-body", { hasText: "途观L和CR-V" }).waitFor({ timeout: 30000 });
    }
    await ask.goto(`${BASE}${thread}`);
    assert.match(await ask.locator(".msg-item:not(.mine) .msg-who").last().innerText(), /^商家 /);
    await asker.close();

    // The owner reads who holds it and who answered.
    await office.goto(`${BASE}${thread}`);
    assert.match(await office.locator(".msg-desk-box").innerText(), new RegExp(`负责人：${name}`));
    assert.match(await office.locator(".msg-item.mine .msg-who").last().innerText(), new RegExp(`^店员 ${name} `));
    await owner.close();
  });
}
