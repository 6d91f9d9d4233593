// Date picker over a plain date/month input. Modes: day, week, dates, month, months, year, years,
// range, monthrange. The form still posts plain values in the domain formats through
// hidden inputs: yyyy-MM-dd (week: its Monday), yyyy-MM, yyyy, lists joined by commas, and a
// range as two fields. Props: crates/web/src/islands.rs `DatePickerProps`.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { mount } from "../mount.js";
import * as D from "../kit/date.js";

const MULTI = { dates: true, months: true, years: true };
const RANGE = { range: true, monthrange: true };

function viewOf(mode) {
  if (mode.startsWith("month")) return "month";
  if (mode.startsWith("year")) return "year";
  return "day";
}

/// Converts between submitted text and the internal cell values of a mode.
export function codec(mode) {
  const view = viewOf(mode);
  if (view === "month") return { parse: D.parseMonth, format: D.formatMonth, fmt: D.MONTH };
  if (view === "year") return { parse: D.parseYear, format: (y) => String(y).padStart(4, "0"), fmt: D.YEAR };
  return { parse: (t) => D.parse(t, D.DAY), format: (d) => D.format(d, D.DAY), fmt: D.DAY };
}

/// The initial selection of a mode from the server's values.
export function initial(mode, value = "", endValue = "") {
  const c = codec(mode);
  if (RANGE[mode]) return [c.parse(value), c.parse(endValue)];
  if (MULTI[mode]) return value.split(",").map((s) => c.parse(s.trim())).filter((v) => v != null).sort((a, b) => a - b);
  const v = c.parse(value);
  return mode === "week" && v != null ? D.weekStart(v) : v;
}

/// What the visible input shows for a selection.
export function display(mode, sel) {
  const c = codec(mode);
  if (sel == null) return "";
  if (MULTI[mode]) return sel.map(c.format).join(", ");
  if (mode === "week") return D.weekLabel(sel);
  return c.format(sel);
}

export function DatePicker(props) {
  const { name, endName, mode = "day", label = "日期", placeholder = "", maxRange = 0, id, onChange, typed = {} } = props;
  const limits = useMemo(
    () => ({ min: props.min ? D.parse(props.min) : null, max: props.max ? D.parse(props.max) : null, dates: (props.disabledDates || []).map((s) => D.parse(s)).filter((d) => d != null) }),
    [props.min, props.max, props.disabledDates],
  );
  const dayOff = useMemo(() => D.disabler(limits), [limits]);
  const view = viewOf(mode);
  const off = view === "day" ? dayOff : view === "month" ? (m) => D.monthDisabled(m, limits) : (y) => D.yearDisabled(y, limits);
  const c = codec(mode);

  const [sel, setSel] = useState(() => initial(mode, typed[name] || props.value, typed[endName] || props.endValue));
  const [draft, setDraft] = useState(sel); // range and multi modes: picked but not confirmed
  const [text, setText] = useState(() => (RANGE[mode] ? sel.map((v) => (v == null ? "" : c.format(v))) : display(mode, sel)));
  const [open, setOpen] = useState(false);
  const [hint, setHint] = useState("");
  const first = RANGE[mode] || MULTI[mode] ? sel[0] : sel;
  const start = first ?? (view === "day" ? (limits.min != null && limits.min > D.today() ? limits.min : D.today()) : view === "month" ? D.monthOf(D.today()) : D.parts(D.today()).y);
  const [cursor, setCursor] = useState(start);
  const root = useRef(null);
  const grid = useRef(null);
  const toggleBtn = useRef(null);

  useEffect(() => {
    if (!open) return undefined;
    const away = (e) => root.current && !root.current.contains(e.target) && setOpen(false);
    document.addEventListener("mousedown", away);
    return () => document.removeEventListener("mousedown", away);
  }, [open]);
  useLayoutEffect(() => {
    if (open) grid.current?.querySelector("[tabindex='0']")?.focus();
  }, [open, cursor]);

  const commit = (value) => {
    setSel(value);
    setDraft(value);
    setText(RANGE[mode] ? value.map((v) => (v == null ? "" : c.format(v))) : display(mode, value));
    setHint("");
    onChange?.(value);
  };
  const close = () => {
    setOpen(false);
    toggleBtn.current?.focus();
  };

  const choose = (v) => {
    if (off(v)) return;
    if (RANGE[mode]) {
      const next = D.pickRange(draft, v);
      setDraft(next);
      setHint(view === "day" && D.rangeTooLong(next, maxRange) ? D.rangePrompt(maxRange) : "");
    } else if (MULTI[mode]) {
      setDraft(D.toggle(draft, v));
    } else {
      commit(mode === "week" ? D.weekStart(v) : v);
      close();
    }
    setCursor(v);
  };

  const onKey = (e) => {
    if (e.key === "Escape") return close();
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      return choose(cursor);
    }
    const next = view === "day" ? D.keyMove(cursor, e.key, dayOff) : D.keyMoveCell(cursor, e.key, off);
    if (next !== cursor) {
      e.preventDefault();
      setCursor(next);
    }
  };

  const onType = (which) => (e) => {
    const t = e.target.value;
    if (RANGE[mode]) {
      const i = which === "start" ? 0 : 1;
      const nextText = [...text];
      nextText[i] = t;
      setText(nextText);
      const v = t.length === c.fmt.length ? c.parse(t) : null;
      if (v != null && !off(v)) {
        const next = D.typeRange(draft, which, v);
        setDraft(next);
        setText(next.map((x) => (x == null ? "" : c.format(x))).map((s, j) => (j === i ? t : s)));
        setCursor(v);
      }
      return;
    }
    setText(t);
    const v = view === "day" ? D.acceptTyped(t, c.fmt, dayOff) : t.length === c.fmt.length ? c.parse(t) : null;
    if (v != null && !off(v)) {
      setSel(v);
      setCursor(v);
      setHint("");
      onChange?.(v);
    }
  };
  const blurred = () => {
    if (RANGE[mode] || MULTI[mode] || mode === "week") return;
    if (text !== display(mode, sel)) {
      // A date that reads but cannot be chosen says why: too early, too late, or not offered.
      const typedValue = text.length === c.fmt.length ? c.parse(text) : null;
      const why =
        typedValue == null
          ? `请输入有效日期，格式 ${c.fmt}`
          : limits.min != null && typedValue < limits.min
            ? `不能早于 ${c.format(limits.min)}`
            : limits.max != null && typedValue > limits.max
              ? `不能晚于 ${c.format(limits.max)}`
              : "这一天不可选";
      setHint(text ? `${why}；已恢复为上次的选择` : "");
      if (text) setText(display(mode, sel));
      else setSel(null);
    }
  };

  const tooLong = RANGE[mode] && view === "day" && D.rangeTooLong(draft, maxRange);
  const canConfirm = RANGE[mode] ? D.canConfirmRange(draft) && !tooLong : true;
  const hidden = RANGE[mode]
    ? [
        <input type="hidden" name={name} value={sel[0] == null ? "" : c.format(sel[0])} key="s" />,
        <input type="hidden" name={endName || name + "_end"} value={sel[1] == null ? "" : c.format(sel[1])} key="e" />,
      ]
    : <input type="hidden" name={name} value={sel == null ? "" : MULTI[mode] ? sel.map(c.format).join(",") : c.format(sel)} />;

  const inputId = id || "dp-" + name;
  return (
    <div className="dp" ref={root}>
      {RANGE[mode] ? (
        <div className="dp-range">
          <input id={inputId} type="text" inputMode="numeric" aria-label={label + " 开始"} placeholder={c.fmt} value={text[0]} onInput={onType("start")} autoComplete="off" />
          <span aria-hidden="true">至</span>
          <input type="text" inputMode="numeric" aria-label={label + " 结束"} placeholder={c.fmt} value={text[1]} onInput={onType("end")} autoComplete="off" />
        </div>
      ) : (
        <input
          id={inputId}
          type="text"
          inputMode="numeric"
          autoComplete="off"
          aria-label={label}
          placeholder={placeholder || c.fmt}
          readOnly={MULTI[mode] || mode === "week"}
          value={text}
          onInput={onType()}
          onBlur={blurred}
          onClick={() => (MULTI[mode] || mode === "week") && setOpen(true)}
        />
      )}
      <button type="button" className="dp-toggle" ref={toggleBtn} aria-expanded={open} aria-label={"打开日历：" + label} onClick={() => setOpen(!open)}>
        <svg className="icon" aria-hidden="true" width="16" height="16" viewBox="0 0 24 24"><path fill="currentColor" d="M7 2v2H5a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2h-2V2h-2v2H9V2zM5 10h14v10H5z"/></svg>
      </button>
      {hidden}
      {hint && !open && (
        <p className="dp-hint" role="status">
          {hint}
        </p>
      )}
      {open && (
        <div className="dp-pop" role="dialog" aria-label={"选择" + label}>
          <Header view={view} cursor={cursor} setCursor={setCursor} />
          <div ref={grid} onKeyDown={onKey}>
            {view === "day" ? (
              <DayGrid cursor={cursor} mode={mode} sel={RANGE[mode] || MULTI[mode] ? draft : sel} off={dayOff} choose={choose} />
            ) : (
              <CellGrid view={view} cursor={cursor} mode={mode} sel={RANGE[mode] || MULTI[mode] ? draft : sel} off={off} choose={choose} />
            )}
          </div>
          {(RANGE[mode] || MULTI[mode]) && (
            <div className="dp-foot">
              {tooLong && (
                <p className="dp-hint" role="alert">
                  {D.rangePrompt(maxRange)}
                </p>
              )}
              <button type="button" className="btn-ghost" onClick={() => setDraft(RANGE[mode] ? [null, null] : [])}>
                清空
              </button>
              <button
                type="button"
                className="btn"
                disabled={!canConfirm}
                onClick={() => {
                  commit(draft);
                  close();
                }}
              >
                确定
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}

function Header({ view, cursor, setCursor }) {
  const p = D.parts(cursor);
  const day = view === "day";
  // Day view steps months (±1) and years (±12); month and year views step one page of 12 cells.
  const shift = (n) => {
    if (!day) return setCursor(cursor + n * 12);
    const m = p.m0 + n;
    const y = p.y + Math.floor(m / 12);
    const m0 = ((m % 12) + 12) % 12;
    setCursor(D.fromParts(y, m0, Math.min(p.d, D.daysInMonth(y, m0))));
  };
  const page = cursor - (cursor % 12);
  const title = day ? `${p.y}年${p.m0 + 1}月` : view === "month" ? `${page / 12}年` : `${page}–${page + 11}年`;
  const big = day ? 12 : 1;
  return (
    <div className="dp-head">
      <button type="button" aria-label={day || view === "month" ? "上一年" : "前十二年"} onClick={() => shift(-big)}>«</button>
      {day && <button type="button" aria-label="上个月" onClick={() => shift(-1)}>‹</button>}
      <b aria-live="polite">{title}</b>
      {day && <button type="button" aria-label="下个月" onClick={() => shift(1)}>›</button>}
      <button type="button" aria-label={day || view === "month" ? "下一年" : "后十二年"} onClick={() => shift(big)}>»</button>
    </div>
  );
}

function isSelected(mode, sel, v) {
  if (sel == null) return false;
  if (RANGE[mode]) return v === sel[0] || v === sel[1];
  if (MULTI[mode]) return sel.includes(v);
  if (mode === "week") return D.weekStart(v) === sel;
  return v === sel;
}
function inRange(mode, sel, v) {
  return RANGE[mode] && sel[0] != null && sel[1] != null && v > sel[0] && v < sel[1];
}

function DayGrid({ cursor, mode, sel, off, choose }) {
  const p = D.parts(cursor);
  const days = D.monthGrid(p.y, p.m0);
  const todayN = D.today();
  return (
    <table className="dp-grid" role="grid">
      <thead>
        <tr>{D.WEEKDAYS.map((w) => <th key={w} scope="col">{w}</th>)}</tr>
      </thead>
      <tbody>
        {[0, 1, 2, 3, 4, 5].map((r) => (
          <tr key={r}>
            {days.slice(r * 7, r * 7 + 7).map((d) => {
              const q = D.parts(d);
              const cls = [q.m0 !== p.m0 && "other", d === todayN && "today", inRange(mode, sel, d) && "between"].filter(Boolean).join(" ");
              return (
                <td key={d} role="gridcell" aria-selected={isSelected(mode, sel, d)}>
                  <button type="button" className={cls} tabIndex={d === cursor ? 0 : -1} aria-label={D.dayLabel(d)} aria-disabled={off(d)} disabled={off(d)} onClick={() => choose(d)}>
                    {q.d}
                  </button>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CellGrid({ view, cursor, mode, sel, off, choose }) {
  const base = cursor - (cursor % 12);
  const cells = Array.from({ length: 12 }, (_, i) => base + i);
  return (
    <table className="dp-grid dp-cells" role="grid">
      <tbody>
        {[0, 1, 2, 3].map((r) => (
          <tr key={r}>
            {cells.slice(r * 3, r * 3 + 3).map((v) => (
              <td key={v} role="gridcell" aria-selected={isSelected(mode, sel, v)}>
                <button type="button" className={inRange(mode, sel, v) ? "between" : ""} tabIndex={v === cursor ? 0 : -1} disabled={off(v)} onClick={() => choose(v)}>
                  {view === "month" ? `${(v % 12) + 1}月` : `${v}年`}
                </button>
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function mountDatePicker(el, props) {
  mount(DatePicker, el, props);
}
