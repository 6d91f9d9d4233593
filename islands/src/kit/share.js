// Share rules: the payload is { sTitle, sDesc, sImgurl, sLink }; shared links
// carry `sharer={user id}` so a friend's visit is attributed; the WeChat signature is requested
// for the page URL without its hash and answered as "timestamp,nonce,signature,appId".

/// The link to share: sLink with the sharer parameter set (or left alone without a sharer).
export function shareLink(link, sharer) {
  if (sharer == null || sharer === "") return link;
  const u = new URL(link, "http://x.invalid");
  u.searchParams.set("sharer", String(sharer));
  return link.startsWith("http") ? u.toString() : u.pathname + u.search + u.hash;
}

/// The URL WeChat signs: the current page without its hash.
export function signedUrl(href) {
  return href.split("#")[0];
}

/// Reads the sign answer by position.
export function parseSign(text) {
  const [timestamp, nonceStr, signature, appId] = String(text || "").split(",");
  if (!timestamp || !nonceStr || !signature) return null;
  return { timestamp: Number(timestamp), nonceStr, signature, appId: appId || "" };
}

export const JS_API_LIST = ["updateAppMessageShareData", "updateTimelineShareData", "onMenuShareAppMessage", "onMenuShareTimeline"];

/// Configures share-to-friend and share-to-timeline once the JS-SDK is loaded.
export function configureWx(wx, sign, payload) {
  const friend = { title: payload.sTitle, desc: payload.sDesc, link: payload.sLink, imgUrl: payload.sImgurl };
  const timeline = { title: payload.sTitle, link: payload.sLink, imgUrl: payload.sImgurl };
  wx.config({ debug: false, appId: sign.appId, timestamp: sign.timestamp, nonceStr: sign.nonceStr, signature: sign.signature, jsApiList: JS_API_LIST });
  wx.ready(() => {
    if (wx.updateAppMessageShareData) wx.updateAppMessageShareData(friend);
    if (wx.updateTimelineShareData) wx.updateTimelineShareData(timeline);
    if (wx.onMenuShareAppMessage) wx.onMenuShareAppMessage(friend);
    if (wx.onMenuShareTimeline) wx.onMenuShareTimeline(timeline);
  });
}
