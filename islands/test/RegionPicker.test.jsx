// The region picker: opens, loads the region list, searches by name and pinyin, walks a province,
// navigates to the same /?city= URL the no-JS fallback uses, or fills a form field.
import { describe, expect, it, vi } from "vitest";
import { render } from "preact";
import { act } from "preact/test-utils";
import { RegionPicker } from "../src/islands/RegionPicker.jsx";
import { indexBar, searchCities } from "../src/kit/regions.js";

const regions = {
  success: true,
  data: [
    { letter: "B", provinces: [{ code: 110000, name: "北京", py: "beijing", cities: [{ code: 110100, name: "北京", py: "beijing" }] }] },
    {
      letter: "H",
      provinces: [
        {
          code: 430000,
          name: "湖南",
          py: "hunan",
          cities: [
            { code: 430100, name: "长沙", py: "changsha" },
            { code: 430200, name: "株洲", py: "zhuzhou" },
          ],
        },
      ],
    },
  ],
};

async function setup(extra = { hrefTemplate: "/?city={py}" }) {
  const el = document.createElement("div");
  document.body.appendChild(el);
  const navigate = vi.fn();
  const fetchImpl = vi.fn(() => Promise.resolve({ ok: true, json: () => Promise.resolve(regions) }));
  await act(() => render(<RegionPicker currentName="全国" regionsUrl="/api/regions" hot={[]} navigate={navigate} fetchImpl={fetchImpl} {...extra} />, el));
  const click = async (text) => {
    // The trigger reads "全国 切换城市" behind its pin icon; other buttons by their text.
    const btn = text === "切换城市" ? el.querySelector("button.cc-trigger") : [...el.querySelectorAll("button")].find((b) => b.textContent.trim().startsWith(text));
    if (!btn) throw new Error(`no button ${text}: ${el.textContent}`);
    await act(() => btn.click());
    await act(() => new Promise((r) => setTimeout(r, 0)));
  };
  return { el, navigate, fetchImpl, click };
}

describe("RegionPicker", () => {
  it("shows the current city and loads regions only when opened", async () => {
    const { el, fetchImpl, click } = await setup();
    expect(el.textContent).toContain("全国");
    expect(fetchImpl).not.toHaveBeenCalled();
    await click("切换城市");
    expect(fetchImpl).toHaveBeenCalledWith("/api/regions");
    expect(el.querySelector("[role=dialog]")).not.toBeNull();
    expect(el.textContent).toContain("湖南");
  });

  it("walks a province to its cities and navigates to the chosen one", async () => {
    const { navigate, click } = await setup();
    await click("切换城市");
    await click("湖南");
    await click("长沙");
    expect(navigate).toHaveBeenCalledWith("/?city=changsha");
  });

  it("chooses a municipality directly", async () => {
    const { navigate, click } = await setup();
    await click("切换城市");
    await click("北京");
    expect(navigate).toHaveBeenCalledWith("/?city=beijing");
  });

  it("searches by pinyin prefix and says so when nothing matches", async () => {
    const { el, click } = await setup();
    await click("切换城市");
    const input = el.querySelector("input[type=search]");
    await act(() => {
      input.value = "zhu";
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const names = [...el.querySelectorAll(".cc-list button")].map((b) => b.firstChild.textContent);
    expect(names).toEqual(["株洲"]);
    expect(el.querySelector(".cc-list button").textContent).toContain("湖南");
    await act(() => {
      input.value = "火星";
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    expect(el.textContent).toContain("没有找到“火星”");
  });

  it("closes on Escape", async () => {
    const { el, click } = await setup();
    await click("切换城市");
    await act(() => el.querySelector("[role=dialog]").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    expect(el.querySelector("[role=dialog]")).toBeNull();
  });

  it("as a form field fills a hidden input instead of navigating", async () => {
    const { el, navigate, click } = await setup({ name: "city", value: "", anyLabel: "不限" });
    expect(el.querySelector("input[type=hidden][name=city]").value).toBe("");
    await click("切换城市");
    await click("湖南");
    await click("株洲");
    expect(navigate).not.toHaveBeenCalled();
    expect(el.querySelector("input[name=city]").value).toBe("zhuzhou");
    expect(el.querySelector(".cc-trigger").textContent).toContain("株洲");
    expect(el.querySelector("[role=dialog]")).toBeNull();
  });

  it("shows every letter A–Z in the index bar, only present ones enabled", async () => {
    const { el, click } = await setup();
    await click("切换城市");
    const letters = [...el.querySelectorAll(".cc-index button")];
    expect(letters.map((b) => b.textContent).join("")).toBe("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    expect(letters.filter((b) => !b.disabled).map((b) => b.textContent)).toEqual(["B", "H"]);
    expect(indexBar(regions.data).length).toBe(26);
  });

  it("finds cities by Chinese, by pinyin prefix and ignores case and spaces", () => {
    expect(searchCities(regions.data, "长").map((c) => c.py)).toEqual(["changsha"]);
    expect(searchCities(regions.data, " Chang Sha ").map((c) => c.py)).toEqual(["changsha"]);
    expect(searchCities(regions.data, "湖南").map((c) => c.py)).toEqual(["changsha", "zhuzhou"]);
    expect(searchCities(regions.data, "")).toEqual([]);
  });
});
