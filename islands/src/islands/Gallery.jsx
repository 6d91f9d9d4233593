// The photo gallery of a car: a slider that autoplays every 3000 ms (paused while the visitor
// hovers, focuses or has asked for reduced motion, with a pause button), swipe and arrow keys,
// and a tap opening a full-screen viewer with zoom from 1× to 3×. A photo that fails shows
// 加载失败. Props: `GalleryProps` in crates/web/src/render/islands.rs; the photos are read from the
// server-rendered list it replaces (`photosIn`), which names each one's sizes already.
import { useEffect, useRef, useState } from "react";
import { mount } from "../mount.js";
import { Modal } from "../kit/Modal.jsx";

export const AUTOPLAY_MS = 3000;
export const ZOOM_MIN = 1;
export const ZOOM_MAX = 3;
export const clampZoom = (z) => Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, Math.round(z * 100) / 100));
export const wrap = (i, n) => ((i % n) + n) % n;

function Photo({ photo, eager, sizes }) {
  const [broken, setBroken] = useState(false);
  if (broken) return <span className="img-broken">加载失败</span>;
  return <img src={photo.src} srcSet={photo.srcset || undefined} sizes={sizes} alt={photo.alt} width="640" height="480" loading={eager ? "eager" : "lazy"} decoding="async" draggable={false} onError={() => setBroken(true)} />;
}

export function Gallery({ photos = [], title = "", autoplay = true }) {
  const n = photos.length;
  const [index, setIndex] = useState(0);
  const [playing, setPlaying] = useState(() => autoplay && n > 1 && !(typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches));
  const [hold, setHold] = useState(false);
  const [viewer, setViewer] = useState(false);
  const [zoom, setZoom] = useState(1);
  const touch = useRef(null);
  const moved = useRef(false);

  useEffect(() => {
    if (!playing || hold || viewer || n < 2) return undefined;
    const t = setTimeout(() => setIndex((i) => wrap(i + 1, n)), AUTOPLAY_MS);
    return () => clearTimeout(t);
  }, [playing, hold, viewer, index, n]);

  const closeViewer = () => {
    setViewer(false);
    setZoom(1);
  };
  const go = (i) => {
    setIndex(wrap(i, n));
    setZoom(1);
  };
  const onKey = (e) => {
    if (e.key === "ArrowLeft") go(index - 1);
    else if (e.key === "ArrowRight") go(index + 1);
    else if (viewer && (e.key === "+" || e.key === "=")) setZoom((z) => clampZoom(z + 0.5));
    else if (viewer && e.key === "-") setZoom((z) => clampZoom(z - 0.5));
    else return;
    e.preventDefault();
  };
  const swipe = {
    onTouchStart: (e) => {
      touch.current = e.touches[0].clientX;
      moved.current = false;
      setHold(true);
    },
    onTouchEnd: (e) => {
      const dx = e.changedTouches[0].clientX - (touch.current ?? 0);
      if (Math.abs(dx) > 40 && (!viewer || zoom === 1)) {
        moved.current = true;
        go(index + (dx < 0 ? 1 : -1));
      }
      setHold(false);
    },
  };
  if (!n) return null;
  const photo = photos[index];
  return (
    <div className="gallery g-live" role="region" aria-roledescription="轮播" aria-label={`${title} 车辆图片`} tabIndex={0} onKeyDown={onKey} onMouseEnter={() => setHold(true)} onMouseLeave={() => setHold(false)} onFocus={() => setHold(true)} onBlur={() => setHold(false)}>
      <button type="button" className="g-stage" aria-label={`查看大图：第${index + 1}张，共${n}张`} onClick={() => !moved.current && setViewer(true)} {...swipe}>
        <Photo photo={photo} eager={index === 0} sizes="(min-width:768px) 640px, 100vw" key={index} />
      </button>
      {n > 1 && (
        <>
          <button type="button" className="g-prev" aria-label="上一张" onClick={() => go(index - 1)}>‹</button>
          <button type="button" className="g-next" aria-label="下一张" onClick={() => go(index + 1)}>›</button>
          <button type="button" className="g-play" aria-label={playing ? "暂停自动播放" : "自动播放"} aria-pressed={!playing} onClick={() => setPlaying(!playing)}>
            {playing ? "❚❚" : "▶"}
          </button>
        </>
      )}
      <span className="count" aria-live={playing && !hold ? "off" : "polite"}>{`${index + 1}/${n}`}</span>
      {viewer && (
        <Modal label="查看大图" className="g-viewer" onClose={closeViewer}>
          <div className="g-view-stage" onKeyDown={onKey} {...swipe} onWheel={(e) => setZoom((z) => clampZoom(z + (e.deltaY < 0 ? 0.25 : -0.25)))} onDblClick={() => setZoom((z) => (z > 1 ? 1 : 2))}>
            <div className="g-zoom" style={{ transform: `scale(${zoom})` }}>
              <Photo photo={{ ...photo, srcset: "" , src: photo.large || photo.src }} eager sizes="100vw" key={"v" + index} />
            </div>
          </div>
          <div className="g-tools">
            <button type="button" aria-label="缩小" disabled={zoom <= ZOOM_MIN} onClick={() => setZoom((z) => clampZoom(z - 0.5))}>−</button>
            <span aria-live="polite">{Math.round(zoom * 100)}%</span>
            <button type="button" aria-label="放大" disabled={zoom >= ZOOM_MAX} onClick={() => setZoom((z) => clampZoom(z + 0.5))}>＋</button>
            {n > 1 && <button type="button" aria-label="上一张" onClick={() => go(index - 1)}>‹</button>}
            <span>{`${index + 1}/${n}`}</span>
            {n > 1 && <button type="button" aria-label="下一张" onClick={() => go(index + 1)}>›</button>}
            <button type="button" className="g-close" onClick={closeViewer}>关闭</button>
          </div>
        </Modal>
      )}
    </div>
  );
}

// The widest variant a `srcset` names (`…_w960.webp 960w`), for the full-screen viewer; none
// when it names no widths.
export function widest(srcset) {
  let best = null;
  for (const part of (srcset || "").split(",")) {
    const [url, size] = part.trim().split(/\s+/);
    const width = Number.parseInt(size, 10);
    if (url && size?.endsWith("w") && width > 0 && (!best || width > best.width)) best = { url, width };
  }
  return best?.url ?? null;
}

// The photos of the server-rendered list the island replaces, in order: each image's URL, its
// sizes and text as the page wrote them, and the widest size for the viewer (the image itself
// when it has none). Read from the markup rather than sent again as props: a car's photos were
// a kilobyte of the page twice.
export function photosIn(el) {
  return Array.from(el.querySelectorAll("img"), (img) => {
    const src = img.getAttribute("src") || "";
    const srcset = img.getAttribute("srcset") || "";
    return { src, srcset, large: widest(srcset) || src, alt: img.getAttribute("alt") || "" };
  });
}

export default function mountGallery(el, props) {
  mount(Gallery, el, { ...props, photos: photosIn(el) });
}
