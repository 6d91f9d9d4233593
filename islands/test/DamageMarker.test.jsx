// The damage map's marking island: a tap on a view chooses the view and the place, and pins it.
import { describe, expect, it } from "vitest";
import { act } from "preact/test-utils";
import { show } from "./util.js";
import { DamageMarker, placeOf } from "../src/islands/DamageMarker.jsx";

describe("DamageMarker", () => {
  it("reads a tap as whole percent of the view, kept within it", () => {
    const rect = { left: 10, top: 20, width: 200, height: 120 };
    expect(placeOf(rect, 110, 80)).toEqual({ x: 50, y: 50 });
    expect(placeOf(rect, 0, 500)).toEqual({ x: 0, y: 100 });
  });

  it("a tap on a view sets its area, the place and a pin, and clears the spot list", async () => {
    document.body.innerHTML = `
      <div class="dm-map"><figure class="dm-fig" data-area="left"><svg viewBox="0 0 200 120"></svg><figcaption>左侧</figcaption></figure></div>
      <form class="dm-form"><input type="radio" name="area" value="front"><input type="radio" name="area" value="left">
        <input type="hidden" name="x" value=""><input type="hidden" name="y" value="">
        <select name="spot"><option value="">请选择</option><option value="mc" selected>正中</option></select></form>`;
    const svg = document.querySelector("svg");
    svg.getBoundingClientRect = () => ({ left: 0, top: 0, width: 400, height: 240 });
    const el = await show(<DamageMarker />);
    expect(el.textContent).toContain("点按上面的车身图");
    await act(() => svg.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: 100, clientY: 180 })));
    const form = document.querySelector("form");
    expect(form.querySelector('input[value="left"]').checked).toBe(true);
    expect([form.x.value, form.y.value, form.spot.value]).toEqual(["25", "75", ""]);
    const p = svg.querySelector(".dm-pin");
    expect([p.getAttribute("cx"), p.getAttribute("cy")]).toEqual(["50", "90"]);
    expect(el.textContent).toContain("已在“左侧”图上选定位置");
  });
});
