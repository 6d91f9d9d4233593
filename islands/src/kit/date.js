// Date rules of the date picker, free of the DOM so every rule is unit-tested.
// A day is an integer: days since 1970-01-01 (UTC), so arithmetic never meets a DST gap. A month
// is `year * 12 + month0`, a year is the year. Text formats are the domain's: yyyy-MM-dd, yyyy-MM,
// yyyy (and HH:mm:ss parts for completeness).

export const DAY = "yyyy-MM-dd";
export const MONTH = "yyyy-MM";
export const YEAR = "yyyy";
/// Parsing refuses longer input outright.
export const MAX_PARSE_LENGTH = 1000;
/// Keyboard search for an enabled date gives up after about a year.
export const KEY_SEARCH_DAYS = 366;

const pad = (n, w = 2) => String(n).padStart(w, "0");

export function fromParts(y, m0, d) {
  return Math.floor(Date.UTC(y, m0, d) / 86400000);
}

export function parts(day) {
  const t = new Date(day * 86400000);
  return { y: t.getUTCFullYear(), m0: t.getUTCMonth(), d: t.getUTCDate(), weekday: t.getUTCDay() };
}

export function daysInMonth(y, m0) {
  return new Date(Date.UTC(y, m0 + 1, 0)).getUTCDate();
}

/// Today in the visitor's own calendar.
export function today(now = new Date()) {
  return fromParts(now.getFullYear(), now.getMonth(), now.getDate());
}

const TOKENS = /yyyy|MM|dd|HH|mm|ss/g;

/// Formats a day with a pattern of yyyy, MM, dd (time tokens print 00).
export function format(day, fmt = DAY) {
  if (day == null) return "";
  const p = parts(day);
  return fmt.replace(TOKENS, (t) => (t === "yyyy" ? pad(p.y, 4) : t === "MM" ? pad(p.m0 + 1) : t === "dd" ? pad(p.d) : "00"));
}

/// Parses text in exactly the given format; `null` for anything else: wrong length, a
/// non-string, more than 1000 characters, or an impossible date such as 2026-02-30.
export function parse(text, fmt = DAY) {
  if (typeof text !== "string" || text.length > MAX_PARSE_LENGTH || text.length !== fmt.length) return null;
  const fields = { yyyy: 1970, MM: 1, dd: 1, HH: 0, mm: 0, ss: 0 };
  let at = 0;
  let lit = 0;
  for (const m of fmt.matchAll(TOKENS)) {
    if (text.slice(lit, m.index) !== fmt.slice(lit, m.index)) return null;
    at = m.index;
    const chunk = text.slice(at, at + m[0].length);
    if (!/^\d+$/.test(chunk)) return null;
    fields[m[0]] = Number(chunk);
    lit = at + m[0].length;
  }
  if (text.slice(lit) !== fmt.slice(lit)) return null;
  const { yyyy, MM, dd, HH, mm, ss } = fields;
  if (yyyy < 1 || MM < 1 || MM > 12 || dd < 1 || dd > daysInMonth(yyyy, MM - 1) || HH > 23 || mm > 59 || ss > 59) return null;
  return fromParts(yyyy, MM - 1, dd);
}

/// The picker's notion of "disabled": outside [min, max] (days, either may be null) or listed.
export function disabler({ min = null, max = null, dates = [] } = {}) {
  const off = new Set(dates);
  return (day) => (min != null && day < min) || (max != null && day > max) || off.has(day);
}

/// A typed date is taken only when it has the format's length, parses and is not disabled.
export function acceptTyped(text, fmt, isDisabled = () => false) {
  const day = parse(text, fmt);
  return day == null || isDisabled(day) ? null : day;
}

/// Monday of the day's ISO week.
export function weekStart(day) {
  return day - ((parts(day).weekday + 6) % 7);
}

/// ISO-8601 week-numbering year and week of a day.
export function isoWeek(day) {
  const thursday = weekStart(day) + 3;
  const y = parts(thursday).y;
  return { year: y, week: Math.floor((thursday - fromParts(y, 0, 1)) / 7) + 1 };
}

/// The 42 days of a month's calendar page, weeks starting on Monday.
export function monthGrid(y, m0) {
  const first = weekStart(fromParts(y, m0, 1));
  return Array.from({ length: 42 }, (_, i) => first + i);
}

/// Range clicks: the first sets the start, the second the end; an earlier second click swaps.
/// A click after a complete range starts a new one.
export function pickRange(range, value) {
  const [start, end] = range;
  if (start == null || end != null) return [value, null];
  return value < start ? [value, start] : [start, value];
}

/// Typed range ends: a start after the end raises the end to it; an end before the start pulls the
/// start down to it.
export function typeRange(range, which, value) {
  let [start, end] = range;
  if (which === "start") {
    start = value;
    if (end != null && value != null && end < value) end = value;
  } else {
    end = value;
    if (start != null && value != null && value < start) start = value;
  }
  return [start, end];
}

/// Confirm is possible only with both ends valid and the start not after the end.
export function canConfirmRange([start, end]) {
  return Number.isInteger(start) && Number.isInteger(end) && start <= end;
}

/// The calendar's range prompt: refuses ranges longer than `maxRange` days.
export function rangePrompt(maxRange) {
  return `选择天数不能超过 ${maxRange} 天`;
}

export function rangeTooLong([start, end], maxRange) {
  return maxRange > 0 && start != null && end != null && end - start + 1 > maxRange;
}

/// Multi-select (dates, months, years): toggles a value, kept sorted.
export function toggle(list, value) {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value].sort((a, b) => a - b);
}

/// Arrow-key movement in a day grid: ±1 day, ±7 days, PageUp/PageDown ±1 month, skipping disabled
/// days for about a year before giving up (the focus then stays).
export function keyMove(day, key, isDisabled = () => false) {
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[key];
  if (key === "PageUp" || key === "PageDown") {
    const p = parts(day);
    const m = p.m0 + (key === "PageUp" ? -1 : 1);
    const y = p.y + Math.floor(m / 12);
    const m0 = ((m % 12) + 12) % 12;
    const target = fromParts(y, m0, Math.min(p.d, daysInMonth(y, m0)));
    return searchFrom(target, key === "PageUp" ? -1 : 1, day, isDisabled);
  }
  if (!step) return day;
  return searchFrom(day + step, step, day, isDisabled);
}

function searchFrom(candidate, step, origin, isDisabled) {
  for (let c = candidate; Math.abs(c - origin) <= KEY_SEARCH_DAYS; c += step) if (!isDisabled(c)) return c;
  return origin;
}

/// Arrow-key movement in a month or year grid of 3 columns (±1, ±3 cells) within about a year.
export function keyMoveCell(value, key, isDisabled = () => false, span = 12) {
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -3, ArrowDown: 3 }[key];
  if (!step) return value;
  for (let c = value + step; Math.abs(c - value) <= span; c += step) if (!isDisabled(c)) return c;
  return value;
}

// Months and years as cells.
export const monthOf = (day) => parts(day).y * 12 + parts(day).m0;
export const monthFirstDay = (month) => fromParts(Math.floor(month / 12), month % 12, 1);
export const monthLastDay = (month) => fromParts(Math.floor(month / 12), month % 12 + 1, 0);
export const formatMonth = (month) => `${pad(Math.floor(month / 12), 4)}-${pad((month % 12) + 1)}`;
export const parseMonth = (text) => {
  const d = parse(text, MONTH);
  return d == null ? null : monthOf(d);
};
export const parseYear = (text) => {
  const d = parse(text, YEAR);
  return d == null ? null : parts(d).y;
};

/// A month (or year) is disabled when none of its days is enabled within [min, max].
export function monthDisabled(month, limits) {
  return (limits.min != null && monthLastDay(month) < limits.min) || (limits.max != null && monthFirstDay(month) > limits.max);
}
export function yearDisabled(year, limits) {
  return (limits.min != null && fromParts(year, 11, 31) < limits.min) || (limits.max != null && fromParts(year, 0, 1) > limits.max);
}

/// Chinese labels.
export const WEEKDAYS = ["一", "二", "三", "四", "五", "六", "日"];
export const dayLabel = (day) => {
  const p = parts(day);
  return `${p.y}年${p.m0 + 1}月${p.d}日`;
};
export const weekLabel = (day) => {
  const w = isoWeek(day);
  return `${w.year}年第${w.week}周`;
};
