// The layout check: on the pages a first visitor sees most, at phone (390×844) and desktop
// (1280×900) size, no two visible controls overlap each other or a piece of text, and on phones
// every control is at least 44×44 px (links inside a sentence excepted, as WCAG allows). Boxes
// come from the rendered page, so a CSS change that makes a button cover a date fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, IPHONE, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();

/// Runs in the page: the problems it finds, as readable lines.
function findProblems(phone) {
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return false;
      if (e !== el && e.tagName === "DETAILS" && !e.open && !e.querySelector(":scope > summary")?.contains(el)) return false;
    }
    // Clipped away by a scrolling row (filter options beyond the edge) counts as not shown.
    let clip = el.parentElement;
    while (clip) {
      const s = getComputedStyle(clip);
      if (/(auto|scroll|hidden)/.test(s.overflowX + s.overflowY)) {
        const c = clip.getBoundingClientRect();
        if (r.right <= c.left + 1 || r.left >= c.right - 1 || r.bottom <= c.top + 1 || r.top >= c.bottom - 1) return false;
      }
      clip = clip.parentElement;
    }
    return true;
  };
  const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : ""} "${(el.innerText || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 20)}"`;
  const controls = [...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary")].filter(visible);
  // Text boxes: elements that hold text themselves (not only through children).
  const texts = [...document.querySelectorAll("body *")].filter(
    (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && !el.closest("a, button, summary, label, option, script, style") && visible(el),
  );
  const boxes = (el) => {
    const rects = [...el.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    return rects.length ? rects : [el.getBoundingClientRect()];
  };
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2;
  const related = (a, b) => a.contains(b) || b.contains(a);
  const problems = [];
  // A fixed bar is in front of the page by design; what it covers scrolls out from under it.
  const fixed = (el) => { for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).position === "fixed") return true; return false; };
  // The gallery draws its arrows, pause button and counter over the photo by design.
  const overPhoto = (a, b) => a.closest(".gallery") && b.closest(".gallery");
  for (let i = 0; i < controls.length; i++) {
    const a = controls[i];
    if (fixed(a)) continue;
    for (let j = i + 1; j < controls.length; j++) {
      const b = controls[j];
      if (related(a, b) || fixed(b) || overPhoto(a, b)) continue;
      if (boxes(a).some((ra) => boxes(b).some((rb) => overlap(ra, rb)))) problems.push(`overlap: ${name(a)} × ${name(b)}`);
    }
    for (const t of texts) {
      if (related(a, t) || t.closest("label")?.contains(a) || fixed(t) || overPhoto(a, t)) continue;
      if (boxes(a).some((ra) => boxes(t).some((rb) => overlap(ra, rb)))) problems.push(`covers text: ${name(a)} × ${name(t)}`);
    }
  }
  if (phone) {
    for (const el of controls) {
      // A link inside a sentence is exempt (WCAG 2.5.8); so is the skip link until focused.
      if (el.matches("a") && el.parentElement?.matches("p, li, small, span, dd") && [...el.parentElement.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 43.5 || r.height < 43.5) problems.push(`small target ${Math.round(r.width)}×${Math.round(r.height)}: ${name(el)}`);
    }
  }
  return problems;
}

async function firstCar(page) {
  await page.goto(BASE + "/carlist");
  return new URL(await page.locator("li.card a").first().getAttribute("href"), BASE).pathname;
}

for (const phone of [true, false]) {
  test(`controls never overlap text or each other${phone ? ", and are 44 px on phones" : ""}: ${phone ? "phone" : "desktop"}`, async () => {
    const ctx = await getBrowser().newContext(phone ? { userAgent: IPHONE, viewport: { width: 390, height: 844 } } : { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const car = await firstCar(page);
    const found = [];
    const loan = "/servicehall/fenqi/fenqi?price=12.5&down=30&months=36&rate=5.8&method=annuity&calc=1";
    for (const path of ["/", "/carlist", "/carlist?brand=dazhong&price=5-8", car, "/shop", "/actives/threecar", loan, "/servicehall/wholesale", "/servicehall", "/servicehall/gather"]) {
      await page.goto(BASE + path, { waitUntil: "networkidle" });
      for (const p of await page.evaluate(findProblems, phone)) found.push(`${path}: ${p}`);
    }
    assert.deepEqual(found, []);
    await ctx.close();
  });
}

test("the detail page keeps 收藏 · 电话 · 询底价 · 预约看车 at the bottom of a phone", async () => {
  const ctx = await getBrowser().newContext({ userAgent: IPHONE, viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await page.goto(BASE + (await firstCar(page)));
  const bar = page.locator("nav.action-bar");
  assert.equal(await bar.isVisible(), true);
  assert.deepEqual((await bar.locator("button, a").allInnerTexts()).map((t) => t.replace(/\s+/g, "").replace(/[♡♥☏]/g, "")), ["收藏", "电话", "询底价", "预约看车"]);
  const box = await bar.boundingBox();
  assert.ok(Math.abs(box.y + box.height - 844) < 2, `bar at the bottom: ${JSON.stringify(box)}`);
  await bar.locator("a", { hasText: "预约看车" }).click();
  assert.equal(new URL(page.url()).hash, "#book");
  await ctx.close();
  const desk = await getBrowser().newContext({ viewport: { width: 1280, height: 900 } });
  const dpage = await desk.newPage();
  await dpage.goto(BASE + (await firstCar(dpage)));
  assert.equal(await dpage.locator("nav.action-bar").count(), 0, "desktops have the forms beside the car");
  await desk.close();
});

test("compare fits a phone: the label column stays while the cars scroll, differences highlighted", async () => {
  const ctx = await getBrowser().newContext({ userAgent: IPHONE, viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await page.goto(BASE + "/carlist");
  for (let i = 0; i < 3; i++) {
    await page.locator(".card-actions button", { hasText: "对比" }).nth(i).click();
    await page.waitForLoadState();
    if (!page.url().endsWith("/carlist")) await page.goto(BASE + "/carlist");
  }
  await page.goto(BASE + "/actives/threecar");
  assert.equal(await page.locator("table.compare thead th").count(), 4);
  // The page itself never scrolls sideways; the table's box does.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no page-wide horizontal scroll");
  const label = page.locator("table.compare tbody th").first();
  const before = await label.boundingBox();
  await page.locator(".compare-wrap").evaluate((el) => el.scrollBy(200, 0));
  const after = await label.boundingBox();
  assert.ok(before.x >= 0 && Math.abs(after.x - before.x) < 1, `label column fixed: ${before.x} → ${after.x}`);
  assert.ok((await page.locator("table.compare tr.diff").count()) > 0, "rows where the cars differ are marked");
  await ctx.close();
});

test("back to top never stands in front of a pager, a submit button or a card's 收藏 while scrolling", async () => {
  for (const phone of [true, false]) {
    const ctx = await getBrowser().newContext(phone ? { userAgent: IPHONE, viewport: { width: 390, height: 844 } } : { viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    const car = await firstCar(page);
    let shown = 0;
    const found = [];
    for (const path of ["/carlist", car, "/shop", "/news"]) {
      await page.goto(BASE + path, { waitUntil: "networkidle" });
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      for (let y = 0; y <= height; y += 250) {
        await page.evaluate((y) => window.scrollTo(0, y), y);
        // The button decides on the next animation frame after the scroll event.
        const covered = await page.evaluate(
          () =>
            new Promise((done) =>
              requestAnimationFrame(() =>
                requestAnimationFrame(() => {
                  const top = document.querySelector(".back-top");
                  if (!top || top.hidden || getComputedStyle(top).visibility === "hidden") return done(null);
                  const r = top.getBoundingClientRect();
                  const hits = [...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary")].filter((el) => {
                    if (el === top) return false;
                    const c = el.getBoundingClientRect();
                    if (c.width < 1 || c.height < 1 || getComputedStyle(el).visibility === "hidden") return false;
                    // A whole card is a link; it stays tappable around the button.
                    if (el.matches("a") && c.width * c.height > 6 * r.width * r.height) return false;
                    return Math.min(r.right, c.right) - Math.max(r.left, c.left) > 1 && Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top) > 1;
                  });
                  done(hits.map((el) => `${el.tagName.toLowerCase()} "${(el.innerText || el.value || "").trim().slice(0, 12)}"`));
                }),
              ),
            ),
        );
        if (covered === null) continue;
        shown += 1;
        for (const c of covered) found.push(`${phone ? "phone" : "desktop"} ${path} at ${y}px: covers ${c}`);
      }
    }
    assert.ok(shown > 0, "the button shows somewhere");
    assert.deepEqual(found, []);
    await ctx.close();
  }
});
