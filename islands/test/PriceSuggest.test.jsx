// The live price suggestion as a seller fills the sell form.
import { describe, expect, it, vi } from "vitest";
import { act } from "preact/test-utils";
import { show } from "./util.js";
import { PriceSuggest } from "../src/islands/PriceSuggest.jsx";

function sellForm() {
  document.body.innerHTML = `<form id="sell-form"><select name="series"><option value=""></option><option value="langyi">朗逸</option></select>
    <input name="reg" value=""><input name="mileage" value=""><input name="price" value=""></form>`;
  return document.getElementById("sell-form");
}

const set = async (form, name, value) => {
  form.elements[name].value = value;
  await act(() => form.elements[name].dispatchEvent(new Event("input", { bubbles: true })));
};

describe("PriceSuggest", () => {
  it("asks once the series, registration and mileage are filled, debounced, and shows the range", async () => {
    vi.useFakeTimers();
    const form = sellForm();
    const calls = [];
    const fetchImpl = (url) => {
      calls.push(url);
      return Promise.resolve({ json: () => Promise.resolve({ success: true, data: { low: "7.9", value: "8.5", high: "9.1", basis: "基于12辆在售同款车" } }) });
    };
    const el = await show(<PriceSuggest formId="sell-form" url="/personalsell/suggest" fetchImpl={fetchImpl} />);
    expect(el.textContent).toContain("选好车系、上牌时间和里程后");
    await set(form, "series", "langyi");
    await set(form, "reg", "2021-03");
    await set(form, "price", "9");
    await act(() => vi.advanceTimersByTime(500));
    expect(calls).toEqual([], "not before all three are filled; the price field is not watched");
    await set(form, "mileage", "3");
    await set(form, "mileage", "3.2");
    await act(() => vi.advanceTimersByTime(500));
    await act(() => Promise.resolve());
    expect(calls).toEqual(["/personalsell/suggest?series=langyi&reg=2021-03&mileage=3.2"]);
    await act(async () => {});
    expect(el.textContent).toContain("参考售价 7.9–9.1万，估值 8.5万");
    expect(el.textContent).toContain("基于12辆在售同款车");
    vi.useRealTimers();
  });

  it("says so when the valuation cannot be reached", async () => {
    const form = sellForm();
    form.elements.series.value = "langyi";
    form.elements.reg.value = "2021-03";
    form.elements.mileage.value = "3";
    const el = await show(<PriceSuggest formId="sell-form" url="/s" fetchImpl={() => Promise.reject(new Error("offline"))} />);
    await act(async () => {});
    await act(async () => {});
    expect(el.textContent).toContain("估价暂时不可用");
  });
});
