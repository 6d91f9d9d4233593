// The small rules of the kit: progress bar, navigation, share, label filter, form messages,
// photos, click guard, app-open, modal layers and toast — with the seed's numbers.
import { afterEach, describe, expect, it, vi } from "vitest";
import * as P from "../src/kit/progress.js";
import * as N from "../src/kit/nav.js";
import * as S from "../src/kit/share.js";
import { label, UNKNOWN } from "../src/kit/labels.js";
import * as V from "../src/kit/validate.js";
import * as Ph from "../src/kit/photos.js";
import { guard, GUARD_MS } from "../src/kit/guard.js";
import { APP_OPEN_MS, openApp, storeLink } from "../src/kit/appopen.js";
import { openLayer, SCROLL_RESTORE_MS, Z_BASE } from "../src/kit/layer.js";
import { toast, TOAST_MS } from "../src/kit/toast.js";
import { follow } from "../src/kit/follow.js";
import { FAILED_LABEL, markFailed, watchFallbacks } from "../src/kit/fallback.js";

afterEach(() => vi.useRealTimers());

describe("progress bar", () => {
  it("uses minimum 0.08, speed 200 ms, trickle 0.02 every 800 ms", () => {
    expect([P.MINIMUM, P.SPEED, P.TRICKLE_RATE, P.TRICKLE_SPEED]).toEqual([0.08, 200, 0.02, 800]);
    expect(P.setStatus(0)).toBe(0.08);
    expect(P.setStatus(2)).toBe(1);
    expect(P.trickle(0.5)).toBeCloseTo(0.52);
    expect(P.trickle(0.99)).toBe(0.994);
    expect(P.trickle(1)).toBe(1);
  });

  it("starts at the minimum, trickles, and hides 200 ms after done", () => {
    vi.useFakeTimers();
    const bar = P.createProgress();
    bar.start();
    expect(bar.status).toBe(0.08);
    vi.advanceTimersByTime(800 * 3);
    expect(bar.status).toBeCloseTo(0.14);
    const el = document.querySelector(".nprogress");
    expect(el.classList.contains("on")).toBe(true);
    expect(el.querySelector("div").style.transform).toContain("translate3d(-86");
    expect(el.textContent).toBe(""); // no spinner
    bar.done();
    expect(bar.status).toBe(1);
    vi.advanceTimersByTime(200);
    expect(el.classList.contains("on")).toBe(false);
  });
});

describe("navigation", () => {
  const here = "https://x.test/carlist?price=5-8";
  const click = (extra = {}) => ({ defaultPrevented: false, button: 0, metaKey: false, ctrlKey: false, shiftKey: false, altKey: false, ...extra });
  const link = (href, attrs = {}) => {
    const a = document.createElement("a");
    a.href = href;
    for (const [k, v] of Object.entries(attrs)) a.setAttribute(k, v);
    return a;
  };

  it("recognises a link to the current URL", () => {
    expect(N.isSameUrl("https://x.test/carlist?price=5-8", here)).toBe(true);
    expect(N.isSameUrl("/carlist?price=5-8", here)).toBe(true);
    expect(N.isSameUrl("/carlist?price=8-12", here)).toBe(false);
    expect(N.isSameUrl("/carlist?price=5-8#list", here)).toBe(false);
  });

  it("treats only plain same-site clicks as page navigations", () => {
    expect(N.isPageNavigation(link("https://x.test/news"), click(), here)).toBe(true);
    expect(N.isPageNavigation(link("https://x.test/news"), click({ ctrlKey: true }), here)).toBe(false);
    expect(N.isPageNavigation(link("https://x.test/news"), click({ defaultPrevented: true }), here)).toBe(false);
    expect(N.isPageNavigation(link("https://other.test/"), click(), here)).toBe(false);
    expect(N.isPageNavigation(link("https://x.test/news", { target: "_blank" }), click(), here)).toBe(false);
    expect(N.isPageNavigation(link("https://x.test/carlist?price=5-8#top"), click(), here)).toBe(false);
  });

  it("prefetches only when online, not on 2g and not with Save-Data", () => {
    expect(N.PREFETCH_IDLE_MS).toBe(2000);
    expect(N.prefetchAllowed({ onLine: true })).toBe(true);
    expect(N.prefetchAllowed({ onLine: false })).toBe(false);
    expect(N.prefetchAllowed({ onLine: true, connection: { effectiveType: "2g" } })).toBe(false);
    expect(N.prefetchAllowed({ onLine: true, connection: { effectiveType: "slow-2g" } })).toBe(false);
    expect(N.prefetchAllowed({ onLine: true, connection: { effectiveType: "4g", saveData: true } })).toBe(false);
    expect(N.prefetchAllowed({ onLine: true, connection: { effectiveType: "3g" } })).toBe(true);
  });

  it("prefetches public pages only", () => {
    expect(N.prefetchable(link("https://x.test/details/7"), here)).toBe(true);
    expect(N.prefetchable(link("https://x.test/space/history"), here)).toBe(false);
    expect(N.prefetchable(link("https://x.test/sys/login"), here)).toBe(false);
    expect(N.prefetchable(link("https://x.test/carlist?price=1", { rel: "nofollow" }), here)).toBe(false);
    expect(N.prefetchable(link("https://other.test/"), here)).toBe(false);
    expect(N.prefetchable(link(here), here)).toBe(false);
  });
});

describe("share", () => {
  it("adds the sharer to the link, replacing an old one", () => {
    expect(S.shareLink("https://x.test/details/7", 42)).toBe("https://x.test/details/7?sharer=42");
    expect(S.shareLink("https://x.test/details/7?sharer=1&a=b", 42)).toBe("https://x.test/details/7?sharer=42&a=b");
    expect(S.shareLink("/details/7", 42)).toBe("/details/7?sharer=42");
    expect(S.shareLink("https://x.test/details/7", null)).toBe("https://x.test/details/7");
  });

  it("signs the page URL without its hash and reads the answer by position", () => {
    expect(S.signedUrl("https://x.test/details/7?a=1#photos")).toBe("https://x.test/details/7?a=1");
    expect(S.parseSign("1700000000,abc,def0,wx123")).toEqual({ timestamp: 1700000000, nonceStr: "abc", signature: "def0", appId: "wx123" });
    expect(S.parseSign("")).toBeNull();
    expect(S.parseSign("1,2")).toBeNull();
  });

  it("configures share-to-friend and share-to-timeline with the payload", () => {
    const calls = {};
    const wx = { config: (c) => (calls.config = c), ready: (fn) => fn() };
    for (const k of S.JS_API_LIST) wx[k] = (a) => (calls[k] = a);
    S.configureWx(wx, { timestamp: 1, nonceStr: "n", signature: "s", appId: "wx1" }, { sTitle: "T", sDesc: "D", sImgurl: "I", sLink: "L" });
    expect(calls.config).toMatchObject({ appId: "wx1", timestamp: 1, nonceStr: "n", signature: "s", jsApiList: S.JS_API_LIST });
    expect(calls.updateAppMessageShareData).toEqual({ title: "T", desc: "D", link: "L", imgUrl: "I" });
    expect(calls.updateTimelineShareData).toEqual({ title: "T", link: "L", imgUrl: "I" });
  });
});

describe("label filter", () => {
  const opts = [{ value: 1, label: "汽油" }, { value: "2", label: "柴油" }];
  it("shows 未知 for empty, 'null' or no match", () => {
    expect(label(opts, 1)).toBe("汽油");
    expect(label(opts, "2")).toBe("柴油");
    expect(label(opts, "")).toBe(UNKNOWN);
    expect(label(opts, null)).toBe("未知");
    expect(label(opts, undefined)).toBe("未知");
    expect(label(opts, "null")).toBe("未知");
    expect(label(opts, 9)).toBe("未知");
    expect(label(null, 1)).toBe("未知");
  });
});

describe("form messages", () => {
  it("uses the mobile kit's messages", () => {
    expect(V.checkMobile("")).toBe("请填写手机号");
    expect(V.checkMobile("12345678901")).toBe("请输入正确的手机号");
    expect(V.checkMobile("1381234567")).toBe("请输入正确的手机号");
    expect(V.checkMobile("138 1234 5678")).toBe("");
    expect(V.checkMobile("12812345678")).toBe("请输入正确的手机号");
    expect(V.checkCode("")).toBe("请输入验证码");
    expect(V.checkCode("12a456")).toBe("验证码为6位数字");
    expect(V.checkName("")).toBe("请填写姓名");
    expect(V.checkName("张三3")).toBe("请输入正确的姓名");
    expect(V.checkName("欧阳·娜娜")).toBe("");
    expect(V.checkPostal("41000")).toBe("请输入正确的邮政编码");
    expect(V.checkArea("")).toBe("请选择地区");
    expect(V.checkAddress("  ")).toBe("请填写详细地址");
  });
});

describe("photos", () => {
  it("fits within the longest edge keeping the ratio", () => {
    expect(Ph.fitWithin(4000, 3000)).toEqual({ width: 1920, height: 1440 });
    expect(Ph.fitWithin(3000, 4000)).toEqual({ width: 1440, height: 1920 });
    expect(Ph.fitWithin(800, 600)).toEqual({ width: 800, height: 600 });
  });
  it("moves within bounds and admits up to the limit", () => {
    expect(Ph.move([1, 2, 3], 0, 1)).toEqual([2, 1, 3]);
    expect(Ph.move([1, 2, 3], 0, -1)).toEqual([1, 2, 3]);
    expect(Ph.admit(28, 5, 30)).toEqual({ take: 2, message: "最多上传30张照片，已忽略多出的3张" });
    expect(Ph.admit(0, 3, 30)).toEqual({ take: 3, message: "" });
  });
  it("uploads with progress and reports the server's message", async () => {
    class FakeXhr {
      constructor() {
        this.upload = {};
        FakeXhr.last = this;
      }
      open(method, url) {
        this.url = url;
      }
      setRequestHeader() {}
      send(body) {
        this.body = body;
      }
    }
    const progress = [];
    const p = Ph.upload("/up", "photo", new File(["x"], "a.jpg"), (n) => progress.push(n), FakeXhr);
    const x = FakeXhr.last;
    x.upload.onprogress({ lengthComputable: true, loaded: 50, total: 100 });
    x.status = 200;
    x.responseText = JSON.stringify({ success: true, data: { id: "p1" } });
    x.onload();
    await expect(p).resolves.toEqual({ id: "p1" });
    expect(progress).toEqual([50]);
    expect(x.body.get("photo").name).toBe("a.jpg");
    const q = Ph.upload("/up", "photo", new File(["x"], "b.jpg"), () => {}, FakeXhr);
    FakeXhr.last.status = 415;
    FakeXhr.last.responseText = JSON.stringify({ success: false, msg: "只支持 JPEG、PNG、WebP 照片" });
    FakeXhr.last.onload();
    await expect(q).rejects.toThrow("只支持 JPEG、PNG、WebP 照片");
  });
});

describe("click guard, app-open, layers, toast", () => {
  it("ignores clicks for 2000 ms by default or a custom time", () => {
    vi.useFakeTimers();
    const b = document.createElement("button");
    expect(GUARD_MS).toBe(2000);
    expect(guard(b)).toBe(true);
    expect(b.style.pointerEvents).toBe("none");
    expect(guard(b)).toBe(false);
    vi.advanceTimersByTime(1999);
    expect(b.style.pointerEvents).toBe("none");
    vi.advanceTimersByTime(1);
    expect(b.style.pointerEvents).toBe("");
    guard(b, 500);
    vi.advanceTimersByTime(500);
    expect(b.style.pointerEvents).toBe("");
  });

  it("tries the app, then goes to the store after 1.5 s if still here", () => {
    const opts = { appLink: "usedcar://open", itunesLink: "https://apps.apple.com/app/1", androidLink: "https://x.test/app.apk" };
    expect(APP_OPEN_MS).toBe(1500);
    expect(storeLink(opts, "iPhone OS 17")).toBe(opts.itunesLink);
    expect(storeLink(opts, "Android 14")).toBe(opts.androidLink);
    const timers = [];
    const env = { location: { href: "" }, document: { visibilityState: "visible" }, ua: "Android", setTimeout: (fn, ms) => timers.push([fn, ms]) };
    openApp(opts, env);
    expect(env.location.href).toBe("usedcar://open");
    expect(timers[0][1]).toBe(1500);
    timers[0][0]();
    expect(env.location.href).toBe(opts.androidLink);
    const left = { ...env, location: { href: "" }, document: { visibilityState: "hidden" } };
    openApp(opts, left);
    timers[1][0]();
    expect(left.location.href).toBe("usedcar://open"); // the app opened: stay
  });

  it("stacks layers from z-index 2000 and restores scrolling 200 ms after the last closes", () => {
    vi.useFakeTimers();
    const a = openLayer();
    const b = openLayer();
    expect(a.z).toBe(Z_BASE + 1);
    expect(b.z).toBe(2002);
    expect(document.documentElement.classList.contains("scroll-locked")).toBe(true);
    b.close();
    a.close();
    vi.advanceTimersByTime(SCROLL_RESTORE_MS - 1);
    expect(document.documentElement.classList.contains("scroll-locked")).toBe(true);
    vi.advanceTimersByTime(1);
    expect(document.documentElement.classList.contains("scroll-locked")).toBe(false);
  });

  it("shows a toast for 2000 ms", () => {
    vi.useFakeTimers();
    const el = toast("链接已复制");
    expect(TOAST_MS).toBe(2000);
    expect(el.getAttribute("role")).toBe("status");
    expect(el.classList.contains("show")).toBe(true);
    vi.advanceTimersByTime(1999);
    expect(el.classList.contains("show")).toBe(true);
    vi.advanceTimersByTime(1);
    expect(el.classList.contains("show")).toBe(false);
  });
});

describe("a select that follows another (车系 after 品牌)", () => {
  const build = () => {
    document.body.innerHTML = `<select id="b"><option value="">不限</option><option value="baoma">宝马</option><option value="aodi">奥迪</option></select>
      <select id="s"><option value="">不限</option><optgroup data-value="baoma"><option value="x3">宝马 X3</option><option value="x5">宝马 X5</option></optgroup><optgroup data-value="aodi"><option value="a4l">奥迪 A4L</option></optgroup></select>`;
    const lead = document.getElementById("b");
    const select = document.getElementById("s");
    return { lead, select, sync: follow(select, lead) };
  };
  const offered = (select) => [...select.options].map((o) => o.value);

  it("offers every series until a brand is chosen, then only that brand's", () => {
    const { lead, select } = build();
    expect(offered(select)).toEqual(["", "x3", "x5", "a4l"]);
    lead.value = "aodi";
    lead.dispatchEvent(new Event("change"));
    expect(offered(select)).toEqual(["", "a4l"]);
  });

  it("clears a series of another brand when the brand changes", () => {
    const { lead, select } = build();
    select.value = "x5";
    lead.value = "aodi";
    lead.dispatchEvent(new Event("change"));
    expect(select.value).toBe("");
    lead.value = "baoma";
    lead.dispatchEvent(new Event("change"));
    expect(offered(select)).toEqual(["", "x3", "x5"]);
  });

  it("choosing a series first sets its brand", () => {
    const { lead, select } = build();
    select.value = "a4l";
    select.dispatchEvent(new Event("change"));
    expect(lead.value).toBe("aodi");
    expect(select.value).toBe("a4l");
    expect(offered(select)).toEqual(["", "a4l"]);
  });
});

describe("photo fallback", () => {
  it("labels a failed listing photo 加载失败 once, drops its other widths, leaves other images alone", () => {
    document.body.innerHTML =
      '<img id="a" data-fallback src="/upload/x_w640.webp" srcset="/upload/x_w320.webp 320w" alt="大众 速腾">' +
      '<img id="b" src="/dist/img/logo.svg" alt="二手车网">';
    watchFallbacks(document);
    const a = document.getElementById("a");
    const b = document.getElementById("b");
    a.dispatchEvent(new Event("error"));
    b.dispatchEvent(new Event("error"));
    expect(FAILED_LABEL).toBe("加载失败");
    expect([a.alt, a.hasAttribute("srcset"), a.classList.contains("broken")]).toEqual(["加载失败", false, true]);
    expect([b.alt, b.classList.contains("broken")]).toEqual(["二手车网", false]);
    // Its plain address failing as well changes nothing more.
    expect(markFailed(a)).toBe(false);
  });
});
