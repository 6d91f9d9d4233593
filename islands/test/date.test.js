// Every date-picker rule (ranges, parsing limits, disabled dates, keyboard search), on the pure functions of kit/date.js.
import { describe, expect, it } from "vitest";
import * as D from "../src/kit/date.js";

const d = (s) => D.parse(s);

describe("formats and parsing", () => {
  it("formats and parses the domain formats", () => {
    expect(D.format(d("2026-11-22"))).toBe("2026-11-22");
    expect(D.format(d("2026-11-22"), D.MONTH)).toBe("2026-11");
    expect(D.format(d("2026-11-22"), D.YEAR)).toBe("2026");
    expect(D.parse("2026-11", D.MONTH)).toBe(d("2026-11-01"));
    expect(D.parse("2026", D.YEAR)).toBe(d("2026-01-01"));
    expect(D.parse("2026-11-22 08:30:00", "yyyy-MM-dd HH:mm:ss")).toBe(d("2026-11-22"));
  });

  it("accepts typed text only when it has the format's length and parses", () => {
    expect(D.parse("2026-1-22")).toBeNull(); // too short
    expect(D.parse("2026-11-222")).toBeNull(); // too long
    expect(D.parse("2026/11/22")).toBeNull(); // wrong separators
    expect(D.parse("2026-02-30")).toBeNull(); // no such day
    expect(D.parse("2026-13-01")).toBeNull();
    expect(D.parse("2026-00-10")).toBeNull();
    expect(D.parse("20a6-11-22")).toBeNull();
    expect(D.parse("2024-02-29")).toBe(D.fromParts(2024, 1, 29)); // leap day
    expect(D.parse(20261122)).toBeNull();
    expect(D.parse("2026-11-22 25:00:00", "yyyy-MM-dd HH:mm:ss")).toBeNull();
  });

  it("refuses strings over 1000 characters before looking at them", () => {
    const long = "2026-11-22" + " ".repeat(1000);
    expect(long.length).toBeGreaterThan(D.MAX_PARSE_LENGTH);
    expect(D.parse(long, long.replace(/./g, "y").slice(0, long.length))).toBeNull();
    expect(D.parse("x".repeat(1001), "x".repeat(1001))).toBeNull();
    expect(D.parse("x".repeat(1000), "x".repeat(1000))).not.toBeNull(); // exactly 1000 is still read
  });

  it("does not take a typed date that is disabled", () => {
    const off = D.disabler({ min: d("2026-11-22"), max: d("2026-12-22") });
    expect(D.acceptTyped("2026-11-21", D.DAY, off)).toBeNull();
    expect(D.acceptTyped("2026-12-23", D.DAY, off)).toBeNull();
    expect(D.acceptTyped("2026-12-01", D.DAY, off)).toBe(d("2026-12-01"));
    expect(D.acceptTyped("2026-12-0", D.DAY, off)).toBeNull();
  });
});

describe("disabled dates", () => {
  it("are outside min and max or listed", () => {
    const off = D.disabler({ min: d("2026-11-22"), max: d("2026-11-30"), dates: [d("2026-11-25")] });
    expect(off(d("2026-11-21"))).toBe(true);
    expect(off(d("2026-11-22"))).toBe(false);
    expect(off(d("2026-11-25"))).toBe(true);
    expect(off(d("2026-11-30"))).toBe(false);
    expect(off(d("2026-12-01"))).toBe(true);
  });

  it("make a month or year disabled only when all of it is", () => {
    const limits = { min: d("2026-11-22"), max: d("2027-01-05") };
    expect(D.monthDisabled(D.monthOf(d("2026-10-01")), limits)).toBe(true);
    expect(D.monthDisabled(D.monthOf(d("2026-11-01")), limits)).toBe(false);
    expect(D.monthDisabled(D.monthOf(d("2027-01-01")), limits)).toBe(false);
    expect(D.monthDisabled(D.monthOf(d("2027-02-01")), limits)).toBe(true);
    expect(D.yearDisabled(2025, limits)).toBe(true);
    expect(D.yearDisabled(2027, limits)).toBe(false);
    expect(D.yearDisabled(2028, limits)).toBe(true);
  });
});

describe("range", () => {
  it("takes the first click as start and the second as end", () => {
    let r = [null, null];
    r = D.pickRange(r, d("2026-11-10"));
    expect(r).toEqual([d("2026-11-10"), null]);
    r = D.pickRange(r, d("2026-11-20"));
    expect(r).toEqual([d("2026-11-10"), d("2026-11-20")]);
  });

  it("swaps an earlier second click", () => {
    const r = D.pickRange([d("2026-11-20"), null], d("2026-11-10"));
    expect(r).toEqual([d("2026-11-10"), d("2026-11-20")]);
  });

  it("starts over after a complete range", () => {
    expect(D.pickRange([d("2026-11-10"), d("2026-11-20")], d("2026-12-01"))).toEqual([d("2026-12-01"), null]);
  });

  it("raises the start when a typed end is earlier, and the end when a typed start is later", () => {
    expect(D.typeRange([d("2026-11-10"), d("2026-11-20")], "end", d("2026-11-05"))).toEqual([d("2026-11-05"), d("2026-11-05")]);
    expect(D.typeRange([d("2026-11-10"), d("2026-11-20")], "start", d("2026-11-25"))).toEqual([d("2026-11-25"), d("2026-11-25")]);
    expect(D.typeRange([d("2026-11-10"), d("2026-11-20")], "start", d("2026-11-12"))).toEqual([d("2026-11-12"), d("2026-11-20")]);
  });

  it("can be confirmed only with both ends valid and start not after end", () => {
    expect(D.canConfirmRange([d("2026-11-10"), d("2026-11-10")])).toBe(true);
    expect(D.canConfirmRange([d("2026-11-10"), d("2026-11-20")])).toBe(true);
    expect(D.canConfirmRange([d("2026-11-20"), d("2026-11-10")])).toBe(false);
    expect(D.canConfirmRange([d("2026-11-10"), null])).toBe(false);
    expect(D.canConfirmRange([null, d("2026-11-10")])).toBe(false);
    expect(D.canConfirmRange([NaN, d("2026-11-10")])).toBe(false);
  });

  it("refuses more than N days with the calendar's prompt", () => {
    expect(D.rangeTooLong([d("2026-11-01"), d("2026-11-07")], 7)).toBe(false);
    expect(D.rangeTooLong([d("2026-11-01"), d("2026-11-08")], 7)).toBe(true);
    expect(D.rangeTooLong([d("2026-11-01"), d("2027-11-08")], 0)).toBe(false); // no limit
    expect(D.rangePrompt(7)).toBe("选择天数不能超过 7 天");
  });
});

describe("calendar", () => {
  it("lays out 42 days from the Monday before the first", () => {
    const g = D.monthGrid(2026, 10); // November 2026 starts on a Sunday
    expect(g).toHaveLength(42);
    expect(D.format(g[0])).toBe("2026-10-26");
    expect(D.format(g[6])).toBe("2026-11-01");
    expect(D.parts(g[0]).weekday).toBe(1);
  });

  it("knows ISO weeks across the year boundary", () => {
    expect(D.isoWeek(d("2026-11-22"))).toEqual({ year: 2026, week: 47 });
    expect(D.isoWeek(d("2027-01-01"))).toEqual({ year: 2026, week: 53 });
    expect(D.isoWeek(d("2024-12-30"))).toEqual({ year: 2025, week: 1 });
    expect(D.format(D.weekStart(d("2026-11-22")))).toBe("2026-11-16");
    expect(D.weekLabel(d("2026-11-22"))).toBe("2026年第47周");
  });

  it("toggles multiple picks in order", () => {
    expect(D.toggle([3, 1], 2)).toEqual([1, 2, 3]);
    expect(D.toggle([1, 2, 3], 2)).toEqual([1, 3]);
  });
});

describe("keyboard", () => {
  const base = d("2026-11-22");
  it("moves by a day, a week and a month", () => {
    expect(D.format(D.keyMove(base, "ArrowRight"))).toBe("2026-11-23");
    expect(D.format(D.keyMove(base, "ArrowLeft"))).toBe("2026-11-21");
    expect(D.format(D.keyMove(base, "ArrowDown"))).toBe("2026-11-29");
    expect(D.format(D.keyMove(base, "ArrowUp"))).toBe("2026-11-15");
    expect(D.format(D.keyMove(base, "PageDown"))).toBe("2026-12-22");
    expect(D.format(D.keyMove(d("2026-01-31"), "PageDown"))).toBe("2026-02-28");
    expect(D.keyMove(base, "Tab")).toBe(base);
  });

  it("skips disabled dates", () => {
    const off = D.disabler({ dates: [d("2026-11-23"), d("2026-11-24")] });
    expect(D.format(D.keyMove(base, "ArrowRight", off))).toBe("2026-11-25");
  });

  it("searches about a year for an enabled date, then stays", () => {
    const until = d("2027-11-01");
    const nearlyYear = D.disabler({ min: until });
    expect(D.format(D.keyMove(base, "ArrowRight", nearlyYear))).toBe("2027-11-01"); // 344 days on
    const beyond = D.disabler({ min: d("2028-01-01") });
    expect(D.keyMove(base, "ArrowRight", beyond)).toBe(base); // 405 days: gives up
    expect(D.KEY_SEARCH_DAYS).toBe(366);
  });

  it("moves in month and year grids of three columns", () => {
    expect(D.keyMoveCell(10, "ArrowDown")).toBe(13);
    expect(D.keyMoveCell(10, "ArrowLeft")).toBe(9);
    expect(D.keyMoveCell(10, "ArrowRight", (v) => v === 11)).toBe(12);
    expect(D.keyMoveCell(10, "ArrowRight", () => true)).toBe(10);
  });
});
