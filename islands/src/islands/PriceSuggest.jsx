// Live price suggestion on the sell form: when the series, 首次上牌 or mileage field changes, asks
// the valuation endpoint (debounced) and shows the range. The server-rendered suggestion and the
// 估算参考价 button stay the fallback. Props: `PriceSuggestProps` in crates/web/src/islands.rs.
import { useEffect, useState } from "react";
import { mount } from "../mount.js";

const WATCHED = ["series", "reg", "mileage"];

export function PriceSuggest({ formId, url, initial = null, delay = 400, fetchImpl = (u) => fetch(u, { headers: { Accept: "application/json" } }) }) {
  const [state, setState] = useState({ status: initial ? "done" : "idle", data: initial });
  useEffect(() => {
    const form = document.getElementById(formId);
    if (!form) return undefined;
    let timer = 0;
    let seq = 0;
    const ask = () => {
      const q = new URLSearchParams();
      for (const name of WATCHED) q.set(name, form.elements[name]?.value || "");
      if (!q.get("series") || !q.get("reg") || !q.get("mileage")) {
        setState({ status: "idle", data: null });
        return;
      }
      const mine = ++seq;
      setState((s) => ({ ...s, status: "loading" }));
      fetchImpl(`${url}?${q}`)
        .then((r) => r.json())
        .then((body) => mine === seq && setState({ status: body?.data ? "done" : "none", data: body?.data || null }))
        .catch(() => mine === seq && setState({ status: "error", data: null }));
    };
    const onChange = (e) => {
      if (!WATCHED.includes(e.target?.name)) return;
      clearTimeout(timer);
      timer = setTimeout(ask, delay);
    };
    form.addEventListener("input", onChange);
    form.addEventListener("change", onChange);
    ask();
    return () => {
      clearTimeout(timer);
      form.removeEventListener("input", onChange);
      form.removeEventListener("change", onChange);
    };
  }, [formId, url]);
  const { status, data } = state;
  return (
    <div className="suggestion-live" data-status={status}>
      {data ? (
        <p className="suggestion">
          参考售价 <b>{data.low}–{data.high}万</b>，估值 {data.value}万
          <br />
          <span className="meta">{data.basis}</span>
        </p>
      ) : (
        <p className="meta">{status === "loading" ? "正在估算…" : status === "error" ? "估价暂时不可用，可稍后再试" : "选好车系、上牌时间和里程后，这里会显示参考售价。"}</p>
      )}
    </div>
  );
}

export default function mountPriceSuggest(el, props) {
  mount(PriceSuggest, el, props);
}
