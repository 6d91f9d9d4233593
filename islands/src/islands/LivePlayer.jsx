// The live session's video (inline, not full screen, in WeChat on iOS and in its Android
// browser: `playsinline`, `webkit-playsinline`, `x5-playsinline`). The server renders a plain
// <video controls src> that already plays
// where the browser plays HLS itself (iOS Safari, WeChat on iOS) and for an .mp4 replay; this
// island replaces it with the same element and, only where HLS is not native but Media Source
// is, loads hls.js (its light build, a separate chunk fetched only then) to attach the stream.
// A stream that fails or stalls says so in Chinese over the video with a retry; the pinned cars
// and the lead form around it never depend on it. Props: `LivePlayerProps` in
// crates/web/src/render/islands.rs.
import { useEffect, useRef, useState } from "react";
import { mount } from "../mount.js";

export const HLS_TYPE = "application/vnd.apple.mpegurl";

/// How a browser plays `src`: `native` (the element itself), `hlsjs` (Media Source through
/// hls.js) or `none`.
export function playback(src, video, mse = typeof window !== "undefined" ? window.MediaSource || window.ManagedMediaSource : undefined) {
  const hls = /\.m3u8($|[?#])/i.test(src);
  if (!hls || video.canPlayType(HLS_TYPE)) return "native";
  if (mse && typeof mse.isTypeSupported === "function" && mse.isTypeSupported('video/mp4; codecs="avc1.42E01E,mp4a.40.2"')) return "hlsjs";
  return "none";
}

export const MESSAGES = {
  failed: "直播信号中断，主播可能正在调整设备。",
  replayFailed: "回放暂时无法播放，请稍后再试。",
  unsupported: "当前浏览器无法播放直播，请用微信或手机自带浏览器打开。",
};

export function LivePlayer({ src, replay = false, poster = "" }) {
  const ref = useRef(null);
  const [state, setState] = useState("idle");
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const video = ref.current;
    if (!video) return undefined;
    let hls = null;
    let gone = false;
    const fail = () => !gone && setState("failed");
    const how = playback(src, video);
    if (how === "none") {
      setState("unsupported");
      return undefined;
    }
    video.addEventListener("error", fail);
    video.addEventListener("playing", () => setState("playing"));
    if (how === "native") {
      video.src = src;
      video.dataset.playback = "native";
    } else {
      setState("loading");
      import("hls.js/dist/hls.light.mjs")
        .then(({ default: Hls }) => {
          if (gone) return;
          hls = new Hls({ enableWorker: false, lowLatencyMode: false, manifestLoadingMaxRetry: 2, levelLoadingMaxRetry: 2, fragLoadingMaxRetry: 3 });
          hls.on(Hls.Events.ERROR, (_e, data) => data.fatal && fail());
          hls.on(Hls.Events.MANIFEST_PARSED, () => !gone && setState("ready"));
          hls.loadSource(src);
          hls.attachMedia(video);
          video.dataset.playback = "hlsjs";
        })
        .catch(fail);
    }
    return () => {
      gone = true;
      video.removeEventListener("error", fail);
      if (hls) hls.destroy();
    };
  }, [src, attempt]);
  const message = state === "unsupported" ? MESSAGES.unsupported : state === "failed" ? (replay ? MESSAGES.replayFailed : MESSAGES.failed) : "";
  return (
    <div className="live-player" data-state={state}>
      <video ref={ref} className="live-video" controls playsInline webkit-playsinline="" x5-playsinline="" preload="none" poster={poster} aria-label={replay ? "直播回放" : "直播画面"} />
      {!replay && state === "playing" && <span className="live-on">直播中</span>}
      {message && (
        <div className="live-error" role="alert">
          <p>{message}</p>
          {state === "failed" && (
            <button type="button" className="btn" onClick={() => { setState("idle"); setAttempt(attempt + 1); }}>
              重新加载
            </button>
          )}
          <p className="meta">下方的车源和问底价不受影响。</p>
        </div>
      )}
    </div>
  );
}

export default function mountLivePlayer(el, props) {
  mount(LivePlayer, el, props);
}
