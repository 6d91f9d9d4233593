// WeChat's open tags: the JS-SDK configured with the tag in openTagList, the tag named by the
// mini program's original id and path, and the fallback shown again when WeChat cannot open it.
import { describe, expect, it } from "vitest";
import { act } from "preact/test-utils";
import { render } from "preact";
import { WxOpenTag, configureOpenTag, template } from "../src/islands/WxOpenTag.jsx";

const sign = { success: true, data: "1700000000,nonce,sig,wx5e3b2c8d1f0a4b67" };
function fakeWx(ok = true) {
  const calls = [];
  return {
    calls,
    wx: {
      config: (c) => calls.push(c),
      ready: (f) => ok && setTimeout(f, 0),
      error: (f) => !ok && setTimeout(() => f({ errMsg: "config:invalid signature" }), 0),
    },
  };
}
const env = (wx) => ({ href: "https://m.usedcar.example/actives/openmini?plan=a#x", fetch: async () => ({ json: async () => sign }), load: async () => wx });

describe("WxOpenTag", () => {
  it("configures the JS-SDK with the open tag in openTagList, signed for the page without its hash", async () => {
    const f = fakeWx();
    await configureOpenTag({ tag: "weapp", jssdkUrl: "j", signUrl: "/s" }, env(f.wx));
    expect(f.calls[0]).toMatchObject({ appId: "wx5e3b2c8d1f0a4b67", signature: "sig", openTagList: ["wx-open-launch-weapp"] });
    const g = fakeWx();
    await configureOpenTag({ tag: "app", jssdkUrl: "j", signUrl: "/s" }, env(g.wx));
    expect(g.calls[0].openTagList).toEqual(["wx-open-launch-app"]);
  });

  it("rejects when WeChat refuses the configuration", async () => {
    await expect(configureOpenTag({ tag: "weapp", jssdkUrl: "j", signUrl: "/s" }, env(fakeWx(false).wx))).rejects.toBeTruthy();
  });

  it("escapes the button's label inside the tag's template", () => {
    expect(template("打开<小程序>")).toContain("打开&lt;小程序&gt;");
  });

  it("shows the fallback again on WeixinOpenTagsError", async () => {
    const root = document.createElement("div");
    document.body.appendChild(root);
    await act(() => render(<WxOpenTag tag="weapp" username="gh_6f0a3b7c2e91" path="pages/index/index.html?plan=a" label="打开小程序" fallback="请在微信中搜索小程序「二手车网」" jssdkUrl="data:," />, root));
    const el = root.querySelector("wx-open-launch-weapp");
    expect(el.getAttribute("username")).toBe("gh_6f0a3b7c2e91");
    expect(el.getAttribute("path")).toBe("pages/index/index.html?plan=a");
    await act(() => document.dispatchEvent(new Event("WeixinOpenTagsError")));
    expect(root.querySelector("wx-open-launch-weapp")).toBeNull();
    expect(root.textContent).toContain("请在微信中搜索小程序「二手车网」");
  });
});
