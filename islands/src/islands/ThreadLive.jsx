// A message thread, live: long-polls the thread's `since` endpoint (which answers when a message
// comes or the other side reads, else after 25 s) and shows new messages under the page's own,
// and turns the page's 未读 marks into 已读 as the other side reads. The server reads the database
// on each poll, so a message written through another node arrives the same way. Waits while the
// tab is hidden, backs off when offline. Props: `ThreadLiveProps` in crates/web/src/render/islands.rs.
import { useEffect, useRef, useState } from "react";
import { mount } from "../mount.js";

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const visible = () => new Promise((r) => {
  if (!document.hidden) return r();
  const on = () => { if (!document.hidden) { document.removeEventListener("visibilitychange", on); r(); } };
  document.addEventListener("visibilitychange", on);
});

/// Marks the page's own messages up to `upto` as read.
function markRead(upto, root = document) {
  root.querySelectorAll(".msg-read[data-id]").forEach((el) => {
    if (Number(el.dataset.id) <= upto && !el.classList.contains("on")) {
      el.classList.add("on");
      el.textContent = "已读";
    }
  });
}

export function ThreadLive({ url, after, read }) {
  const [items, setItems] = useState([]);
  const [offline, setOffline] = useState(false);
  const list = useRef(null);
  useEffect(() => {
    let last = after, seen = read, stop = false, fails = 0;
    (async () => {
      while (!stop) {
        await visible();
        try {
          const r = await fetch(`${url}?after=${last}&read=${seen}&wait=25`, { credentials: "same-origin", headers: { accept: "application/json" } });
          if (!r.ok) throw new Error(`HTTP ${r.status}`);
          const d = await r.json();
          if (d.messages.length) {
            last = d.messages[d.messages.length - 1].id;
            setItems((x) => [...x, ...d.messages]);
          }
          if (d.otherRead > seen) seen = d.otherRead;
          markRead(seen);
          fails = 0;
          setOffline(false);
        } catch (e) {
          fails += 1;
          setOffline(true);
          await pause(Math.min(30000, 2000 * fails));
        }
      }
    })();
    return () => { stop = true; };
  }, []);
  useEffect(() => {
    const el = list.current?.lastElementChild;
    if (el) el.scrollIntoView({ block: "nearest" });
  }, [items.length]);

  return (
    <div className="msg-live">
      {items.length > 0 && (
        <ol className="msg-thread" ref={list} aria-live="polite">
          {items.map((m) => (
            <li key={m.id} className={"msg-item" + (m.mine ? " mine" : "")}>
              <p className="msg-who">{m.who} <time>{m.at}</time>{m.mine && <span className={"msg-read" + (m.read ? " on" : "")} data-id={m.id}>{m.read ? "已读" : "未读"}</span>}</p>
              {m.body && <p className="msg-body">{m.body}</p>}
              {m.photo && <a className="msg-photo" href={m.photo[1]}><img src={m.photo[0]} alt={m.who + "发送的照片"} width="160" height="120" /></a>}
            </li>
          ))}
        </ol>
      )}
      <p className="meta msg-live-note">{offline ? "网络连接中断，正在重新连接…" : "新消息会自动显示"}</p>
    </div>
  );
}

export default (el, props) => mount(ThreadLive, el, props);
