// The islands as a visitor drives them: date picker, login, gallery, share, text input, message
// box and confirm forms, photo uploader.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act } from "preact/test-utils";
import { button, click, flush, key, show, type } from "./util.js";
import * as D from "../src/kit/date.js";
import { DatePicker, display, initial } from "../src/islands/DatePicker.jsx";
import { Login } from "../src/islands/Login.jsx";
import mountGallery, { Gallery, clampZoom, widest } from "../src/islands/Gallery.jsx";
import { Share, setupWechat } from "../src/islands/Share.jsx";
import { TextInput } from "../src/islands/TextInput.jsx";
import { MessageBox, checkPrompt, INVALID_INPUT } from "../src/kit/MessageBox.jsx";
import { ConfirmForms } from "../src/islands/ConfirmForms.jsx";
import { PhotoUploader } from "../src/islands/PhotoUploader.jsx";

beforeEach(() => {
  document.body.innerHTML = "";
});
afterEach(() => vi.useRealTimers());

const hidden = (el, name) => el.querySelector(`input[type=hidden][name="${name}"]`).value;

describe("DatePicker", () => {
  const today = D.format(D.today());
  const in30 = D.format(D.today() + 30);

  it("picks a day from the calendar and posts yyyy-MM-dd; disabled days cannot be picked", async () => {
    const el = await show(<DatePicker name="date" label="看车日期" min={today} max={in30} />);
    expect(hidden(el, "date")).toBe("");
    await click(el, "打开日历：看车日期");
    const yesterday = el.querySelector(`button[aria-label="${D.dayLabel(D.today() - 1)}"]`);
    if (yesterday) {
      expect(yesterday.disabled).toBe(true);
      await act(() => yesterday.click());
      expect(hidden(el, "date")).toBe("");
    }
    await act(() => el.querySelector(`button[aria-label="${D.dayLabel(D.today())}"]`).click());
    expect(hidden(el, "date")).toBe(today);
    expect(el.querySelector("[role=dialog]")).toBeNull();
  });

  it("takes typed dates of the right length that parse and are enabled; reverts others on blur", async () => {
    const el = await show(<DatePicker name="date" label="看车日期" min={today} max={in30} value={today} />);
    const input = el.querySelector("input[type=text]");
    await type(input, D.format(D.today() + 3));
    expect(hidden(el, "date")).toBe(D.format(D.today() + 3));
    await type(input, "2026-1-1");
    expect(hidden(el, "date")).toBe(D.format(D.today() + 3));
    await type(input, D.format(D.today() + 60)); // after max: disabled
    expect(hidden(el, "date")).toBe(D.format(D.today() + 3));
    await act(() => input.dispatchEvent(new Event("blur")));
    expect(input.value).toBe(D.format(D.today() + 3));
    // It says why: the typed day is after the last one offered.
    expect(el.textContent).toContain(`不能晚于 ${in30}；已恢复为上次的选择`);
    await type(input, "2026-1-1");
    await act(() => input.dispatchEvent(new Event("blur")));
    expect(el.textContent).toContain("请输入有效日期，格式");
  });

  it("moves with the arrow keys skipping disabled days and picks with Enter", async () => {
    const base = D.parse("2026-11-22");
    const el = await show(<DatePicker name="date" label="日期" value="2026-11-22" disabledDates={["2026-11-23"]} />);
    await click(el, "打开日历：日期");
    const grid = el.querySelector(".dp-grid").parentElement;
    await key(grid, "ArrowRight");
    expect(document.activeElement.getAttribute("aria-label")).toBe(D.dayLabel(base + 2));
    await key(grid, "Enter");
    expect(hidden(el, "date")).toBe("2026-11-24");
  });

  it("closes on Escape without changing the value", async () => {
    const el = await show(<DatePicker name="date" label="日期" value="2026-11-22" />);
    await click(el, "打开日历：日期");
    await key(el.querySelector(".dp-grid").parentElement, "ArrowDown");
    await key(el.querySelector(".dp-grid").parentElement, "Escape");
    expect(el.querySelector("[role=dialog]")).toBeNull();
    expect(hidden(el, "date")).toBe("2026-11-22");
  });

  it("range: two clicks, swapped when the second is earlier, confirm only when valid", async () => {
    const el = await show(<DatePicker mode="range" name="from" endName="to" label="日期" value="2026-11-22" endValue="2026-11-22" maxRange={7} />);
    await click(el, "打开日历：日期");
    const day = (s) => el.querySelector(`button[aria-label="${D.dayLabel(D.parse(s))}"]`);
    await act(() => day("2026-11-20").click());
    expect(button(el, "确定").disabled).toBe(true); // only a start
    await act(() => day("2026-11-12").click());
    expect(button(el, "确定").disabled).toBe(true); // 9 days > 7
    expect(el.textContent).toContain("选择天数不能超过 7 天");
    await act(() => day("2026-11-17").click()); // new range starts
    await act(() => day("2026-11-15").click()); // earlier: swapped
    expect(button(el, "确定").disabled).toBe(false);
    await click(el, "确定");
    expect(hidden(el, "from")).toBe("2026-11-15");
    expect(hidden(el, "to")).toBe("2026-11-17");
  });

  it("range: a typed end before the start pulls the start down", async () => {
    const el = await show(<DatePicker mode="range" name="from" endName="to" label="日期" value="2026-11-10" endValue="2026-11-20" />);
    await click(el, "打开日历：日期");
    const [start, end] = el.querySelectorAll(".dp-range input");
    await type(end, "2026-11-05");
    expect(start.value).toBe("2026-11-05");
    await click(el, "确定");
    expect([hidden(el, "from"), hidden(el, "to")]).toEqual(["2026-11-05", "2026-11-05"]);
  });

  it("month, months, year, years and week modes post the domain formats", async () => {
    expect(initial("week", "2026-11-22")).toBe(D.parse("2026-11-16"));
    expect(display("week", D.parse("2026-11-16"))).toBe("2026年第47周");
    expect(initial("months", "2026-03,2025-12,bad")).toEqual([D.monthOf(D.parse("2025-12-01")), D.monthOf(D.parse("2026-03-01"))]);
    const el = await show(<DatePicker mode="months" name="m" label="月份" value="2026-03" />);
    await click(el, "打开日历：月份");
    await click(el, "5月");
    await click(el, "确定");
    expect(hidden(el, "m")).toBe("2026-03,2026-05");
    const y = await show(<DatePicker mode="year" name="y" label="年份" value="2020" max="2026-12-31" />);
    await click(y, "打开日历：年份");
    expect(button(y, "2027年").disabled).toBe(true);
    await click(y, "2018年");
    expect(hidden(y, "y")).toBe("2018");
    const w = await show(<DatePicker mode="week" name="w" label="周" value="2026-11-22" />);
    expect(hidden(w, "w")).toBe("2026-11-16");
  });
});

describe("Login", () => {
  const ok = (body) => Promise.resolve({ json: () => Promise.resolve(body) });

  it("checks the phone with the mobile kit's messages before asking for a code", async () => {
    const fetchImpl = vi.fn();
    const el = await show(<Login returnTo="/space" wxHref="/sys/WQlogin" qqHref="/sys/QQlogin" fetchImpl={fetchImpl} />);
    await click(el, "获取验证码");
    expect(el.querySelector("#login-mobile-error").textContent).toBe("请填写手机号");
    await type(el.querySelector("#login-mobile"), "12345678901");
    await click(el, "获取验证码");
    expect(el.querySelector("#login-mobile-error").textContent).toBe("请输入正确的手机号");
    expect(el.querySelector("#login-mobile").getAttribute("aria-invalid")).toBe("true");
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it("sends the code, counts 60 s down, then offers to send again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fetchImpl = vi.fn(() => ok({ success: true, data: { notice: "验证码已发送至138****5678，5分钟内有效", sandboxCode: "123456" } }));
    const el = await show(<Login returnTo="/space" wxHref="/w" qqHref="/q" fetchImpl={fetchImpl} />);
    await type(el.querySelector("#login-mobile"), "13812345678");
    await act(async () => {
      button(el, "获取验证码").click();
      await Promise.resolve();
      await Promise.resolve();
    });
    await act(async () => {
      await Promise.resolve();
    });
    const [url, init] = fetchImpl.mock.calls[0];
    expect(url).toBe("/sys/login/code");
    expect(init.body.get("mobile")).toBe("13812345678");
    expect(el.textContent).toContain("验证码已发送至138****5678");
    expect(el.querySelector(".send-code").textContent).toBe("60秒后重新获取");
    expect(el.querySelector(".send-code").disabled).toBe(true);
    for (let i = 0; i < 59; i++) await act(() => vi.advanceTimersByTime(1000));
    expect(el.querySelector(".send-code").textContent).toBe("1秒后重新获取");
    await act(() => vi.advanceTimersByTime(1000));
    expect(el.querySelector(".send-code").textContent).toBe("重新获取");
    expect(el.querySelector(".send-code").disabled).toBe(false);
  });

  it("shows the server's refusal beside the phone", async () => {
    const fetchImpl = vi.fn(() => ok({ success: false, code: "CM001", msg: "发送太频繁了" }));
    const el = await show(<Login wxHref="/w" qqHref="/q" fetchImpl={fetchImpl} />);
    await type(el.querySelector("#login-mobile"), "13812345678");
    await click(el, "获取验证码");
    await flush();
    expect(el.querySelector("#login-mobile-error").textContent).toBe("发送太频繁了");
  });

  it("does not submit without a 6-digit code, and keeps what was typed", async () => {
    const el = await show(<Login mobile="13812345678" wxHref="/w" qqHref="/q" />);
    const form = el.querySelector("form");
    const ev = new Event("submit", { cancelable: true, bubbles: true });
    await act(() => form.dispatchEvent(ev));
    expect(ev.defaultPrevented).toBe(true);
    expect(el.querySelector("#login-code-error").textContent).toBe("请输入验证码");
    expect(el.querySelector("#login-mobile").value).toBe("13812345678");
    await type(el.querySelector("#login-code"), "123456");
    const ok2 = new Event("submit", { cancelable: true, bubbles: true });
    await act(() => form.dispatchEvent(ok2));
    expect(ok2.defaultPrevented).toBe(false);
  });

  it("offers WeChat and QQ, but not while binding a phone", async () => {
    const el = await show(<Login wxHref="/sys/WQlogin?return=%2F" qqHref="/sys/QQlogin?return=%2F" />);
    expect([...el.querySelectorAll(".login-other a")].map((a) => a.getAttribute("href"))).toEqual(["/sys/WQlogin?return=%2F", "/sys/QQlogin?return=%2F"]);
    const bind = await show(<Login bind="t1" wxHref="/w" qqHref="/q" />);
    expect(bind.querySelector(".login-other")).toBeNull();
    expect(hidden(bind, "bind")).toBe("t1");
  });
});

describe("Gallery", () => {
  const photos = [1, 2, 3].map((i) => ({ src: `/p${i}.jpg`, srcset: "", alt: `图${i}` }));

  it("autoplays every 3000 ms, pauses on hover and on request", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const el = await show(<Gallery photos={photos} title="大众 朗逸" />);
    const count = () => el.querySelector(".count").textContent;
    expect(count()).toBe("1/3");
    await act(() => vi.advanceTimersByTime(2999));
    expect(count()).toBe("1/3");
    await act(() => vi.advanceTimersByTime(1));
    expect(count()).toBe("2/3");
    await act(() => el.querySelector(".gallery").dispatchEvent(new Event("mouseenter")));
    await act(() => vi.advanceTimersByTime(6000));
    expect(count()).toBe("2/3");
    await act(() => el.querySelector(".gallery").dispatchEvent(new Event("mouseleave")));
    await act(() => button(el, "暂停自动播放").click());
    await act(() => vi.advanceTimersByTime(6000));
    expect(count()).toBe("2/3");
  });

  it("moves with the arrow keys and wraps around", async () => {
    const el = await show(<Gallery photos={photos} autoplay={false} />);
    const g = el.querySelector(".gallery");
    await key(g, "ArrowLeft");
    expect(el.querySelector(".count").textContent).toBe("3/3");
    await key(g, "ArrowRight");
    expect(el.querySelector(".count").textContent).toBe("1/3");
  });

  it("opens a viewer that zooms between 1× and 3× and closes on Escape", async () => {
    const el = await show(<Gallery photos={photos} autoplay={false} />);
    await act(() => el.querySelector(".g-stage").click());
    const dialog = el.querySelector("[role=dialog]");
    expect(dialog).not.toBeNull();
    for (let i = 0; i < 6; i++) await click(el, "放大");
    expect(el.querySelector(".g-zoom").style.transform).toBe("scale(3)");
    expect(button(el, "放大").disabled).toBe(true);
    for (let i = 0; i < 6; i++) if (!button(el, "缩小").disabled) await click(el, "缩小");
    expect(el.querySelector(".g-zoom").style.transform).toBe("scale(1)");
    expect([clampZoom(0.2), clampZoom(9)]).toEqual([1, 3]);
    await key(dialog, "Escape");
    expect(el.querySelector("[role=dialog]")).toBeNull();
  });

  it("takes its photos from the list it replaces, the viewer showing each one's widest size", async () => {
    const el = document.createElement("div");
    el.innerHTML =
      '<div class="gallery"><ul>' +
      '<li><img src="/u/a_w640.webp" srcset="/u/a_w320.webp 320w, /u/a_w640.webp 640w, /u/a_w960.webp 960w" alt="朗逸 图1"></li>' +
      '<li><img src="https://cdn.test/b.jpg" alt="朗逸 图2"></li></ul><span class="count">共2张</span></div>';
    document.body.append(el);
    await act(() => mountGallery(el, { title: "朗逸", autoplay: false }));
    expect(el.querySelector(".count").textContent).toBe("1/2");
    const stage = el.querySelector(".g-stage img");
    expect([stage.getAttribute("src"), stage.getAttribute("alt")]).toEqual(["/u/a_w640.webp", "朗逸 图1"]);
    expect(stage.getAttribute("srcset")).toContain("/u/a_w960.webp 960w");
    await act(() => el.querySelector(".g-stage").click());
    expect(el.querySelector(".g-zoom img").getAttribute("src")).toBe("/u/a_w960.webp");
    await key(el.querySelector(".gallery"), "ArrowRight");
    expect(el.querySelector(".g-zoom img").getAttribute("src")).toBe("https://cdn.test/b.jpg");
    expect([widest(""), widest("/x.webp 2x"), widest("/s.webp 320w, /l.webp 960w, /m.webp 640w")]).toEqual([null, null, "/l.webp"]);
  });

  it("labels a photo that fails to load 加载失败", async () => {
    const el = await show(<Gallery photos={photos} autoplay={false} />);
    await act(() => el.querySelector(".g-stage img").dispatchEvent(new Event("error")));
    expect(el.querySelector(".g-stage").textContent).toBe("加载失败");
  });
});

describe("Share", () => {
  const payload = { sTitle: "朗逸 2019款", sDesc: "8.5万", sImgurl: "https://x.test/p.jpg", sLink: "https://x.test/details/7" };

  it("copies the link with the sharer and shows a toast when Web Share is missing", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    Object.defineProperty(navigator, "share", { value: undefined, configurable: true });
    const el = await show(<Share payload={payload} sharer={42} />);
    await click(el, "分享");
    expect(writeText).toHaveBeenCalledWith("https://x.test/details/7?sharer=42");
    expect(document.querySelector(".toast").textContent).toBe("链接已复制，快去分享给好友吧");
  });

  it("uses the Web Share API where there is one", async () => {
    const share = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "share", { value: share, configurable: true });
    const el = await show(<Share payload={payload} />);
    await click(el, "分享");
    expect(share).toHaveBeenCalledWith({ title: "朗逸 2019款", text: "8.5万", url: "https://x.test/details/7" });
    Object.defineProperty(navigator, "share", { value: undefined, configurable: true });
  });

  it("in WeChat signs the page URL without the hash and configures both shares", async () => {
    const calls = {};
    const wx = { config: (c) => (calls.config = c), ready: (fn) => fn(), updateAppMessageShareData: (a) => (calls.friend = a), updateTimelineShareData: (a) => (calls.timeline = a) };
    const fetch = vi.fn(() => Promise.resolve({ json: () => Promise.resolve({ success: true, data: "1700000000,nonce,sig,wxapp" }) }));
    const load = vi.fn(() => Promise.resolve(wx));
    await setupWechat({ payload, sharer: 42, jssdkUrl: "https://res.wx.qq.com/open/js/jweixin-1.6.0.js", signUrl: "/api/buycar-api/tool/wechat/sign" }, { href: "https://x.test/details/7?a=1#top", fetch, load });
    expect(load).toHaveBeenCalledWith("https://res.wx.qq.com/open/js/jweixin-1.6.0.js");
    expect(fetch.mock.calls[0][1].body.get("token")).toBe("https://x.test/details/7?a=1");
    expect(calls.config).toMatchObject({ appId: "wxapp", signature: "sig", nonceStr: "nonce", timestamp: 1700000000 });
    expect(calls.friend.link).toBe("https://x.test/details/7?sharer=42");
    expect(calls.timeline).toEqual({ title: payload.sTitle, link: "https://x.test/details/7?sharer=42", imgUrl: payload.sImgurl });
  });
});

describe("TextInput", () => {
  it("counts current/limit and marks the exceeded state without cutting the text", async () => {
    const el = await show(<TextInput id="note" name="note" label="补充说明" maxLength={5} multiline />);
    const area = el.querySelector("textarea[name=note]");
    await type(area, "白色两年");
    expect(el.querySelector(".ti-count").textContent).toBe("4/5");
    await type(area, "白色两年内无事故");
    expect(el.querySelector(".ti-count").textContent).toBe("已超出3字 · 8/5");
    expect(el.querySelector(".ti").classList.contains("is-exceed")).toBe(true);
    expect(area.value).toBe("白色两年内无事故");
    expect(area.getAttribute("aria-invalid")).toBe("true");
  });

  it("clears and shows the password on request", async () => {
    const el = await show(<TextInput id="pw" name="pw" type="password" clearable showPassword value="secret" />);
    const input = el.querySelector("input[name=pw]");
    expect(input.type).toBe("password");
    await click(el, "显示密码");
    expect(el.querySelector("input[name=pw]").type).toBe("text");
    await click(el, "清空");
    expect(el.querySelector("input[name=pw]").value).toBe("");
  });
});

describe("MessageBox and confirm forms", () => {
  it("refuses prompt input that fails the pattern with 输入的数据不合法!", async () => {
    const onResolve = vi.fn();
    const el = await show(<MessageBox kind="prompt" message="请输入车牌号" inputPattern="^[A-Z0-9]{5,6}$" onResolve={onResolve} />);
    await type(el.querySelector("input"), "abc");
    await click(el, "确定");
    expect(el.querySelector("[role=alert]").textContent).toBe(INVALID_INPUT);
    expect(INVALID_INPUT).toBe("输入的数据不合法!");
    expect(onResolve).not.toHaveBeenCalled();
    await type(el.querySelector("input"), "A12345");
    await click(el, "确定");
    expect(onResolve).toHaveBeenCalledWith({ action: "confirm", value: "A12345" });
    expect(checkPrompt("x", { inputValidator: () => "太短了" })).toBe("太短了");
  });

  it("asks before a form[data-confirm] posts, and posts after 确定", async () => {
    const form = document.createElement("form");
    form.dataset.confirm = "确定删除这个订阅吗？";
    const submitted = vi.fn((e) => e.preventDefault());
    form.requestSubmit = vi.fn();
    document.body.appendChild(form);
    const el = await show(<ConfirmForms />);
    form.addEventListener("submit", submitted);
    const ev = new Event("submit", { cancelable: true, bubbles: true });
    await act(() => form.dispatchEvent(ev));
    expect(ev.defaultPrevented).toBe(true);
    expect(submitted).not.toHaveBeenCalled();
    expect(el.textContent).toContain("确定删除这个订阅吗？");
    await click(el, "取消");
    expect(form.requestSubmit).not.toHaveBeenCalled();
    await act(() => form.dispatchEvent(new Event("submit", { cancelable: true, bubbles: true })));
    await click(el, "确定");
    expect(form.requestSubmit).toHaveBeenCalled();
    expect(form.dataset.confirmed).toBe("1");
  });
});

describe("PhotoUploader", () => {
  URL.createObjectURL = () => "blob:x";
  const pick = async (el, names) => {
    const input = el.querySelector(".up-add input");
    Object.defineProperty(input, "files", { value: names.map((n) => new File(["x"], n, { type: "image/jpeg" })), configurable: true });
    await act(async () => {
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await flush();
    await flush();
  };

  it("uploads each photo with progress, retries a failure, reorders and removes", async () => {
    const attempts = {};
    const uploadImpl = vi.fn((url, field, file, onProgress) => {
      attempts[file.name] = (attempts[file.name] || 0) + 1;
      onProgress(40);
      if (file.name === "b.jpg" && attempts[file.name] === 1) return Promise.reject(new Error("网络异常，上传失败"));
      return Promise.resolve({ id: "id-" + file.name });
    });
    const el = await show(<PhotoUploader name="photos" uploadUrl="/upload" max={30} min={3} uploadImpl={uploadImpl} downscaleImpl={(f) => Promise.resolve(f)} />);
    await pick(el, ["a.jpg", "b.jpg", "c.jpg"]);
    expect(uploadImpl).toHaveBeenCalledTimes(3);
    expect(el.querySelector(".up-failed [role=alert]").textContent).toBe("网络异常，上传失败");
    const ids = () => [...el.querySelectorAll("input[type=hidden][name=photos]")].map((i) => i.value);
    expect(ids()).toEqual(["id-a.jpg", "id-c.jpg"]);
    await click(el, "重试");
    expect(ids()).toEqual(["id-a.jpg", "id-b.jpg", "id-c.jpg"]);
    await click(el, "第3张左移");
    expect(ids()).toEqual(["id-a.jpg", "id-c.jpg", "id-b.jpg"]);
    await click(el, "删除第1张");
    expect(ids()).toEqual(["id-c.jpg", "id-b.jpg"]);
    expect(el.querySelector("legend").textContent).toContain("2/30");
    expect(el.querySelector("legend").textContent).toContain("至少3张");
  });

  it("stops at the limit and says how many were left out", async () => {
    const el = await show(<PhotoUploader uploadUrl="/upload" max={2} uploadImpl={() => Promise.resolve({ id: "x" })} downscaleImpl={(f) => Promise.resolve(f)} />);
    await pick(el, ["a.jpg", "b.jpg", "c.jpg"]);
    expect(el.querySelectorAll(".up-item").length).toBe(2);
    expect(el.textContent).toContain("最多上传2张照片，已忽略多出的1张");
    expect(el.querySelector(".up-add")).toBeNull();
  });
});

describe("mounting over a fallback", () => {
  it("hands over what was typed and keeps the focus", async () => {
    const { mount } = await import("../src/mount.js");
    const el = document.createElement("div");
    el.innerHTML = `<form><input id="login-mobile" name="mobile" value=""><input name="code"><select name="city"><option value="">不限</option><option value="zhuzhou">株洲</option></select></form>`;
    document.body.appendChild(el);
    el.querySelector("[name=mobile]").value = "13812345678";
    el.querySelector("select").value = "zhuzhou";
    el.querySelector("[name=mobile]").focus();
    const { Login } = await import("../src/islands/Login.jsx");
    await act(() => mount(Login, el, { wxHref: "/w", qqHref: "/q" }));
    expect(el.querySelector("#login-mobile").value).toBe("13812345678");
    expect(document.activeElement.id).toBe("login-mobile");
    const region = document.createElement("div");
    region.innerHTML = `<select name="city"><option value="">不限</option><option value="zhuzhou">株洲</option></select>`;
    document.body.appendChild(region);
    region.querySelector("select").value = "zhuzhou";
    const { RegionPicker } = await import("../src/islands/RegionPicker.jsx");
    await act(() => mount(RegionPicker, region, { name: "city", value: "", anyLabel: "不限" }));
    expect(region.querySelector("input[name=city]").value).toBe("zhuzhou");
    expect(region.querySelector(".cc-trigger").textContent).toContain("株洲");
  });
});
