// How the live player decides to play a stream, and what it says when it cannot.
import { describe, expect, it } from "vitest";
import { act } from "preact/test-utils";
import { render } from "preact";
import { LivePlayer, MESSAGES, playback } from "../src/islands/LivePlayer.jsx";

const video = (native) => ({ canPlayType: (t) => (native && t === "application/vnd.apple.mpegurl" ? "maybe" : "") });
const mse = (ok) => ({ isTypeSupported: () => ok });

describe("LivePlayer", () => {
  it("plays HLS natively where the browser can (iOS, WeChat on iOS), else through hls.js where Media Source plays H.264", () => {
    expect(playback("https://p.example/live/a.m3u8", video(true), undefined)).toBe("native");
    expect(playback("https://p.example/live/a.m3u8?txSecret=1", video(false), mse(true))).toBe("hlsjs");
    expect(playback("https://p.example/live/a.m3u8", video(false), mse(false))).toBe("none");
    expect(playback("https://p.example/live/a.m3u8", video(false), undefined)).toBe("none");
  });

  it("plays an .mp4 replay with the element itself, never loading hls.js", () => {
    expect(playback("https://vod.example/r/1.mp4", video(false), undefined)).toBe("native");
  });

  it("says in Chinese that the browser cannot play the stream, and that the cars and the form still work", async () => {
    const root = document.createElement("div");
    document.body.appendChild(root);
    const saved = window.MediaSource;
    delete window.MediaSource;
    await act(() => render(<LivePlayer src="https://p.example/live/a.m3u8" />, root));
    expect(root.querySelector("[role=alert]").textContent).toContain(MESSAGES.unsupported);
    expect(root.textContent).toContain("下方的车源和问底价不受影响");
    window.MediaSource = saved;
  });
});
