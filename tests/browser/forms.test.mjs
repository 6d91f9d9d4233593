// Forms and lists on a phone and a desktop, JavaScript on and off: a refused 询底价 comes back
// with the form and its message in view (not behind the sticky header or the action bar), the
// wrong field focused (with JavaScript: browsers skip autofocus on an address with a fragment); 加入对比 keeps the visitor on the list they were browsing, filters kept,
// and the comparison's 继续添加车辆 leads back to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, VARIANTS, useBrowser } from "./browser.mjs";

const browser = useBrowser();

async function context(v) {
  return browser().newContext({
    viewport: v.mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    javaScriptEnabled: v.js,
    ...(v.mobile ? { userAgent: IPHONE, isMobile: true, hasTouch: true } : {}),
  });
}

for (const v of VARIANTS) {
  test(`a refused 询底价 lands on its form with the message in view: ${v.name}`, async () => {
    const ctx = await context(v);
    const page = await ctx.newPage();
    await page.goto(BASE + "/carlist?sort=new");
    const href = await page.locator("li.card a").first().getAttribute("href");
    await page.goto(BASE + href);
    await page.fill("#ask input[name=mobile]", "1381234");
    await page.locator("#ask button[type=submit]").click();
    await page.waitForURL(/#ask$/);
    const error = page.locator("#ask-mobile-err");
    await error.waitFor();
    assert.match(await error.innerText(), /请输入正确的手机号/);
    const box = await error.boundingBox();
    const header = await page.locator(".site-header").boundingBox();
    const viewport = page.viewportSize();
    assert.ok(box.y >= header.y + header.height && box.y + box.height <= viewport.height - (v.mobile ? 70 : 0), `the message at ${box.y}px is in view`);
    assert.equal(await page.inputValue("#ask input[name=mobile]"), "1381234", "what was typed is kept");
    // Browsers skip autofocus on an address with a fragment; the runtime moves the focus there.
    if (v.js) assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("name")), "mobile", "the wrong field has the focus");
    await ctx.close();
  });

  test(`加入对比 keeps the visitor on the list, filters kept: ${v.name}`, async () => {
    const ctx = await context(v);
    const page = await ctx.newPage();
    const list = "/carlist?price=5-20&sort=new";
    await page.goto(BASE + list);
    const cards = page.locator("li.card[id^=car-]");
    const first = await cards.nth(0).getAttribute("id");
    await cards.nth(0).locator(".card-actions button", { hasText: "对比" }).click();
    await page.waitForURL((u) => u.pathname === "/carlist" && u.search === "?price=5-20&sort=new" && u.hash === `#${first}`);
    assert.match(await page.locator(".compare-bar").innerText(), /已选\s*1\s*辆车对比/);
    const second = await cards.nth(1).getAttribute("id");
    await cards.nth(1).locator(".card-actions button", { hasText: "对比" }).click();
    await page.waitForURL((u) => u.hash === `#${second}`);
    assert.match(await page.locator(".compare-bar").innerText(), /已选\s*2\s*辆车对比/);
    await page.locator(".compare-bar a", { hasText: "去对比" }).click();
    await page.waitForURL(/\/actives\/threecar/);
    assert.equal(await page.locator("table.compare thead th").count(), 3, "the label column and the two cars");
    // The two cars' columns are equally wide.
    const widths = await page.locator("table.compare thead th").evaluateAll((ths) => ths.slice(1).map((th) => Math.round(th.getBoundingClientRect().width)));
    assert.ok(Math.abs(widths[0] - widths[1]) <= 1, `${widths}`);
    assert.equal(await page.locator("a", { hasText: "继续添加车辆" }).getAttribute("href"), list);
    await ctx.close();
  });
}

test("a card's photo that fails to load says 加载失败 across its frame, with no inline script", async () => {
  const list = BASE + "/carlist?sort=new";
  // The first card's photo fails in every width (cards that share it fail with it); others load.
  const src = (await (await fetch(list)).text()).match(/class="cover" src="([^"]+)"/)[1];
  const photo = src.replace(/_w\d+\.\w+$/, "_w");
  const ctx = await context(VARIANTS.find((v) => v.js && v.mobile));
  const page = await ctx.newPage();
  const refused = [];
  page.on("console", (m) => /Content Security Policy/.test(m.text()) && refused.push(m.text()));
  await page.route("**/upload/**", (route) => (route.request().url().includes(photo) ? route.fulfill({ status: 404, body: "" }) : route.continue()));
  await page.goto(list);
  const cover = page.locator("li.card img.cover").first();
  await page.waitForFunction((img) => img.classList.contains("broken"), await cover.elementHandle());
  assert.equal(await cover.getAttribute("alt"), "加载失败");
  // The label is drawn centred over the whole frame, not as the browser's broken icon and alt
  // text at its corner.
  const label = await cover.evaluate((img) => {
    const after = getComputedStyle(img, "::after");
    return [after.content, after.position, after.inset, getComputedStyle(img).color];
  });
  assert.deepEqual(label, ['"加载失败"', "absolute", "0px", "rgba(0, 0, 0, 0)"]);
  assert.equal(await cover.getAttribute("srcset"), null, "no other width is tried");
  // Only the cards of that photo, among those loaded (lazy ones further down may not be yet).
  const covers = await page.locator("li.card img.cover").evaluateAll((imgs) => imgs.filter((i) => i.complete).map((i) => [i.getAttribute("src"), i.classList.contains("broken")]));
  assert.ok(covers.length >= 4, `${covers.length} photos loaded`);
  for (const [at, broken] of covers) assert.equal(broken, at.includes(photo), `${at}`);
  assert.deepEqual(refused, [], "the policy refused nothing");
  await ctx.close();
});
