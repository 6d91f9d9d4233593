// Province / city selector: hot cities, search by Chinese name or pinyin, provinces grouped by
// initial with an A–Z index bar, then the province's cities. Two uses:
// - navigate (`hrefTemplate` such as "/?city={py}"): choosing goes to the same URL the no-JS
//   links use (the city filter);
// - field (`name`): choosing fills a hidden input of a form, replacing the plain <select>.
// Props: `RegionPickerProps` in crates/web/src/islands.rs.
import { useEffect, useMemo, useRef, useState } from "react";
import { mount } from "../mount.js";
import { Modal } from "../kit/Modal.jsx";
import { findCity, indexBar, searchCities } from "../kit/regions.js";

export function RegionPicker({ currentName = "全国", regionsUrl = "/api/regions", hot = [], hrefTemplate, anyHref, name, value = "", anyLabel = "全国", label = "选择城市", navigate, fetchImpl, typed = {} }) {
  const [open, setOpen] = useState(false);
  const [groups, setGroups] = useState(null);
  const [error, setError] = useState("");
  const [query, setQuery] = useState("");
  const [province, setProvince] = useState(null);
  const fromFallback = name && typed[name] !== undefined && typed[name] !== value;
  const [picked, setPicked] = useState({ py: fromFallback ? typed[name] : value, name: fromFallback ? typed[name + ":label"] || typed[name] : currentName });
  const list = useRef(null);
  const go = navigate || ((url) => window.location.assign(url));

  const choose = (py, cityName) => {
    setOpen(false);
    if (hrefTemplate) return go(py === "quanguo" && anyHref ? anyHref : hrefTemplate.replace("{py}", encodeURIComponent(py)));
    setPicked({ py, name: cityName });
  };

  useEffect(() => {
    if (!open || groups) return;
    setError("");
    (fetchImpl || window.fetch.bind(window))(regionsUrl)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status))))
      .then((body) => {
        setGroups(body.data);
        if (picked.py && !hrefTemplate) {
          const c = findCity(body.data, picked.py);
          if (c) setPicked({ py: c.py, name: c.name });
        }
      })
      .catch(() => setError("城市列表加载失败，请关闭后重试"));
  }, [open]);

  const matches = useMemo(() => searchCities(groups, query), [query, groups]);
  const cityButton = (c) => (
    <button type="button" key={c.py} onClick={() => choose(c.py, c.name)} aria-pressed={c.py === picked.py}>
      {c.name}
      {c.province && c.province !== c.name && query ? <small> {c.province}</small> : null}
    </button>
  );
  const anyValue = hrefTemplate ? "quanguo" : "";

  let body;
  if (query.trim()) {
    body = matches.length ? <div className="rp-hits">{matches.map(cityButton)}</div> : <p>没有找到“{query}”，试试城市拼音，如 changsha</p>;
  } else if (province) {
    body = (
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
    body = (
      <>
        <h4>热门城市</h4>
        <button type="button" onClick={() => choose(anyValue, anyLabel)}>
          {anyLabel}
        </button>
        {hot.map(cityButton)}
        {groups
          ? groups.map((g) => (
              <section id={"rp-" + g.letter} key={g.letter}>
                <h4>{g.letter}</h4>
                {g.provinces.map((p) => (
                  <button type="button" key={p.py} onClick={() => (p.cities.length === 1 ? choose(p.cities[0].py, p.cities[0].name) : setProvince(p))}>
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
      {name && <input type="hidden" name={name} value={picked.py} />}
      <button type="button" className="cc-trigger" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        <svg className="icon" aria-hidden="true" width="14" height="14" viewBox="0 0 24 24"><path fill="currentColor" d="M12 2a7 7 0 0 0-7 7c0 5.2 7 13 7 13s7-7.8 7-13a7 7 0 0 0-7-7zm0 9.5A2.5 2.5 0 1 1 12 6.5a2.5 2.5 0 0 1 0 5z"/></svg> {picked.name || anyLabel} <small>{hrefTemplate ? "切换城市" : "选择"}</small>
      </button>
      {open && (
        <Modal label={label} className="cc-sheet" onClose={() => setOpen(false)}>
          <div className="cc-head">
            <input type="search" placeholder="输入城市名或拼音" aria-label="搜索城市" value={query} onInput={(e) => setQuery(e.target.value)} autoFocus />
            <button type="button" onClick={() => setOpen(false)}>
              关闭
            </button>
          </div>
          <div className="cc-body">
            <div className="cc-list" ref={list}>
              {error && <p role="alert">{error}</p>}
              {body}
            </div>
            {groups && !query.trim() && !province && (
              <nav className="cc-index" aria-label="字母索引">
                {indexBar(groups).map(({ letter, present }) => (
                  <button type="button" key={letter} disabled={!present} onClick={() => list.current?.querySelector("#rp-" + letter)?.scrollIntoView()}>
                    {letter}
                  </button>
                ))}
              </nav>
            )}
          </div>
        </Modal>
      )}
    </>
  );
}

export default function mountRegionPicker(el, props) {
  mount(RegionPicker, el, props);
}
