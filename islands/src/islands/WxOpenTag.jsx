// Inside WeChat's browser, where app links and URL schemes are blocked, WeChat's own open tags
// leave for the mini program (`wx-open-launch-weapp`, by its original id and page path) or the
// app (`wx-open-launch-app`, by its Open Platform AppID). The JS-SDK is configured for the page
// with the tag in `openTagList`; the tag draws its button from its template (its own styles: the
// page's do not reach inside it). When WeChat cannot show the tag (an old WeChat, a page not
// signed: `WeixinOpenTagsError`) or the launch fails, the fallback the server rendered — how
// to get there by hand — is shown again. Props: `WxOpenTagProps` in
// crates/web/src/render/islands.rs.
import { useEffect, useRef, useState } from "react";
import { mount } from "../mount.js";
import { wxAndSign } from "../kit/wx.js";

export const TAGS = { weapp: "wx-open-launch-weapp", app: "wx-open-launch-app" };

/// The tag's button, drawn inside WeChat's tag with inline styles.
export function template(label) {
  const text = String(label).replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]);
  return `<style>.b{display:block;width:100%;height:46px;border:0;border-radius:23px;background:#c2410c;color:#fff;font-size:16px;font-weight:600}</style><button class="b">${text}</button>`;
}

/// Configures the JS-SDK for `tag`; resolves once WeChat is ready.
export async function configureOpenTag({ tag, jssdkUrl, signUrl }, env) {
  const { wx, sign } = await wxAndSign({ jssdkUrl, signUrl }, env);
  return new Promise((resolve, reject) => {
    wx.config({ debug: false, appId: sign.appId, timestamp: sign.timestamp, nonceStr: sign.nonceStr, signature: sign.signature, jsApiList: ["checkJsApi"], openTagList: [TAGS[tag]] });
    wx.ready(resolve);
    wx.error(reject);
  });
}

export function WxOpenTag({ tag, username = "", path = "", appid = "", extinfo = "", label, fallback, jssdkUrl, signUrl = "/api/buycar-api/tool/wechat/sign" }) {
  const [state, setState] = useState("loading");
  const ref = useRef(null);
  useEffect(() => {
    let gone = false;
    const fail = () => !gone && setState("failed");
    document.addEventListener("WeixinOpenTagsError", fail);
    configureOpenTag({ tag, jssdkUrl, signUrl })
      .then(() => !gone && setState("ready"))
      .catch(fail);
    return () => {
      gone = true;
      document.removeEventListener("WeixinOpenTagsError", fail);
    };
  }, []);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const failed = () => setState("failed");
    el.addEventListener("error", failed);
    return () => el.removeEventListener("error", failed);
  }, [state]);
  const Tag = TAGS[tag];
  const attrs = tag === "weapp" ? { username, path } : { appid, extinfo };
  return (
    <div className="wx-open" data-state={state}>
      {state !== "failed" && (
        <Tag ref={ref} {...attrs} style={{ display: "block", width: "100%" }}>
          <script type="text/wxtag-template" dangerouslySetInnerHTML={{ __html: template(label) }} />
        </Tag>
      )}
      {state === "loading" && <p className="meta">正在连接微信…</p>}
      {state === "failed" ? <p className="notice" role="status">{fallback}</p> : <p className="meta">{fallback}</p>}
    </div>
  );
}

export default function mountWxOpenTag(el, props) {
  mount(WxOpenTag, el, props);
}
