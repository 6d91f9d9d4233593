// City chooser for the home page: hot cities, search by Chinese name or pinyin, provinces A–Z
// with an index bar, then the province's cities. Choosing navigates to /?city={py}, which sets
// the city cookie on the server — the same URL the no-JS fallback links to.
import { useEffect, useMemo, useState } from "react";
import { mount } from "../mount.js";

export function CityChooser({ currentName, regionsUrl, hot = [], navigate, fetchImpl }) {
  const [open, setOpen] = useState(false);
  const [groups, setGroups] = useState(null);
  const [error, setError] = useState("");
  const [query, setQuery] = useState("");
  const [province, setProvince] = useState(null);
  const go = navigate || ((url) => window.location.assign(url));
  const choose = (py) => go("/?city=" + encodeURIComponent(py));

  useEffect(() => {
    if (!open || groups) return;
    setError("");
    (fetchImpl || window.fetch.bind(window))(regionsUrl)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status))))
      .then((body) => setGroups(body.data))
      .catch(() => setError("城市列表加载失败，请关闭后重试"));
  }, [open]);

  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e) => e.key === "Escape" && setOpen(false);
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q || !groups) return [];
    const out = [];
    for (const g of groups)
      for (const p of g.provinces)
        for (const c of p.cities) if (c.name.includes(q) || c.py.startsWith(q)) out.push(c);
    return out.slice(0, 30);
  }, [query, groups]);

  const cityButton = (c) => (
    <button type="button" key={c.py} onClick={() => choose(c.py)}>
      {c.name}
    </button>
  );

  let list;
  if (query.trim()) {
    list = matches.length ? matches.map(cityButton) : <p>没有找到“{query}”</p>;
  } else if (province) {
    list = (
      <section>
        <h4>
          {province.name}{" "}
          <button type="button" onClick={() => setProvince(null)}>
            返回省份
          </button>
        </h4>
        {province.cities.map(cityButton)}
      </section>
    );
  } else {
    list = (
      <>
        <h4>热门城市</h4>
        <button type="button" onClick={() => go("/?city=quanguo")}>
          全国
        </button>
        {hot.map(cityButton)}
        {groups
          ? groups.map((g) => (
              <section id={"cc-" + g.letter} key={g.letter}>
                <h4>{g.letter}</h4>
                {g.provinces.map((p) => (
                  <button
                    type="button"
                    key={p.py}
                    onClick={() => (p.cities.length === 1 ? choose(p.cities[0].py) : setProvince(p))}
                  >
                    {p.name}
                  </button>
                ))}
              </section>
            ))
          : !error && <p>加载中…</p>}
      </>
    );
  }

  return (
    <>
      <button type="button" className="cc-trigger" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        📍 {currentName} <small>切换城市</small>
      </button>
      {open && (
        <div
          className="cc-dialog"
          role="dialog"
          aria-modal="true"
          aria-label="选择城市"
          onClick={(e) => e.target === e.currentTarget && setOpen(false)}
        >
          <div className="cc-sheet">
            <div className="cc-head">
              <input
                type="search"
                placeholder="输入城市名或拼音"
                aria-label="搜索城市"
                value={query}
                onChange={(e) => setQuery(e.target.value)}
              />
              <button type="button" onClick={() => setOpen(false)}>
                关闭
              </button>
            </div>
            <div className="cc-body">
              <div className="cc-list">
                {error && <p role="alert">{error}</p>}
                {list}
              </div>
              {groups && !query.trim() && !province && (
                <nav className="cc-index" aria-label="字母索引">
                  {groups.map((g) => (
                    <button
                      type="button"
                      key={g.letter}
                      onClick={() => document.getElementById("cc-" + g.letter)?.scrollIntoView()}
                    >
                      {g.letter}
                    </button>
                  ))}
                </nav>
              )}
            </div>
          </div>
        </div>
      )}
    </>
  );
}

export default function mountCityChooser(el, props) {
  mount(CityChooser, el, props);
}
