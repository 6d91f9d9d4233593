// Share a page. Inside WeChat's browser: loads the JS-SDK from the configured URL, asks
// /api/buycar-api/tool/wechat/sign for the signature of the page URL without its hash, and sets
// share-to-friend and share-to-timeline to the page's payload (sTitle, sDesc, sImgurl, sLink with
// `sharer`); the button then points at WeChat's own menu. Elsewhere: the Web Share API, else the
// link is copied with a toast. Props: `ShareProps` in crates/web/src/islands.rs.
import { useEffect, useState } from "react";
import { mount } from "../mount.js";
import { configureWx, shareLink } from "../kit/share.js";
import { wxAndSign } from "../kit/wx.js";
import { toast } from "../kit/toast.js";

/// Sets up WeChat sharing; resolves true when configured.
export async function setupWechat({ payload, sharer, jssdkUrl, signUrl }, env) {
  const { wx, sign } = await wxAndSign({ jssdkUrl, signUrl }, env);
  configureWx(wx, sign, { ...payload, sLink: shareLink(payload.sLink, sharer) });
  return true;
}

export function Share({ payload, sharer = null, inWechat = false, jssdkUrl, signUrl = "/api/buycar-api/tool/wechat/sign", label = "分享" }) {
  const link = shareLink(payload.sLink, sharer);
  const [hint, setHint] = useState(false);
  useEffect(() => {
    if (inWechat) setupWechat({ payload, sharer, jssdkUrl, signUrl }).catch((e) => console.warn("[share] WeChat sharing unavailable", e));
  }, []);

  const share = async () => {
    if (inWechat) return setHint(true);
    if (navigator.share) {
      try {
        await navigator.share({ title: payload.sTitle, text: payload.sDesc, url: link });
        return;
      } catch (e) {
        if (e && e.name === "AbortError") return;
      }
    }
    try {
      await navigator.clipboard.writeText(link);
      toast("链接已复制，快去分享给好友吧");
    } catch (_) {
      setHint(true);
    }
  };

  return (
    <div className="share">
      <button type="button" className="btn-ghost" onClick={share}>
        {label}
      </button>
      {hint &&
        (inWechat ? (
          <button type="button" className="wx-hint" onClick={() => setHint(false)}>
            点击右上角「···」，分享给朋友或朋友圈
          </button>
        ) : (
          <p className="share-manual">
            <label>
              复制链接分享：<input readOnly value={link} onFocus={(e) => e.target.select()} autoFocus />
            </label>
          </p>
        ))}
    </div>
  );
}

export default function mountShare(el, props) {
  mount(Share, el, props);
}
