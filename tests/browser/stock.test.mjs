// A dealer's stock in and leads out, in Debian's Chromium on a desktop: the dealer downloads the
// shop's live stock, adds fifty cars to it in an Excel workbook (two rows wrong: a VIN whose check
// digit is off, a car without a price), sees the preview name both rows, fixes them, uploads
// again, applies, and finds the fifty cars under 审核中 in 库存管理; then downloads this week's
// leads as an Excel workbook. And on a phone with JavaScript off: the dealer sets up the stock
// sync and reads the feed now (the sandbox's feed is the shop's own stock: nothing changes), then
// imports three cars from a CSV file and undoes the import.
import { test } from "node:test";
import assert from "node:assert/strict";
import { crc32 } from "node:zlib";
import { BASE, IPHONE, SITE, appSignIn, useBrowser } from "./browser.mjs";

const getBrowser = useBrowser();
// The seed's 77th shop's owner (its users are numbered as the seed numbers them); no other test
// works in this shop.
const OWNER = "15100601844";

/// Reads a CSV text (RFC 4180: quoted cells, doubled quotes, line breaks inside quotes).
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  if (cell !== "" || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/// A zip archive of these files, stored (not compressed), as an .xlsx package may be.
function zip(files) {
  const parts = [];
  const central = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, "utf8");
    const data = Buffer.from(f.data, "utf8");
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(0x21, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += 30 + name.length + data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}

const esc = (t) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/// An Excel workbook (.xlsx) of one sheet holding these rows of text.
function workbook(rows) {
  const col = (i) => String.fromCharCode(65 + i);
  const sheet = rows
    .map((r, y) => `<row r="${y + 1}">${r.map((v, x) => `<c r="${col(x)}${y + 1}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`).join("")}</row>`)
    .join("");
  const ns = "http://schemas.openxmlformats.org";
  return zip([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${ns}/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: "xl/workbook.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}/spreadsheetml/2006/main" xmlns:r="${ns}/officeDocument/2006/relationships"><sheets><sheet name="车源" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${ns}/package/2006/relationships"><Relationship Id="rId1" Type="${ns}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    { name: "xl/worksheets/sheet1.xml", data: `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}/spreadsheetml/2006/main"><sheetData>${sheet}</sheetData></worksheet>` },
  ]);
}

/// A VIN with its check digit (ISO 3779) in ninth place: `stem` is the other sixteen characters.
function vin(stem) {
  const weights = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
  const values = { A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9, S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9 };
  const full = stem.slice(0, 8) + "0" + stem.slice(8);
  const sum = [...full].reduce((s, c, i) => s + (/\d/.test(c) ? Number(c) : values[c]) * weights[i], 0) % 11;
  return full.slice(0, 8) + (sum === 10 ? "X" : String(sum)) + full.slice(9);
}

async function uploadWorkbook(page, rows) {
  await page.goto(`${BASE}/space/stock-import`);
  await page.setInputFiles("#import-file", { name: "库存.xlsx", mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", buffer: workbook(rows) });
  await page.locator("button", { hasText: "上传并预览" }).click();
  await page.waitForURL(/\/space\/stock-import\/\d+$/);
}

test("a dealer imports fifty cars from an Excel workbook, fixes two rows, applies, and downloads the week's leads", async () => {
  const ctx = await getBrowser().newContext({ viewport: { width: 1280, height: 900 }, locale: "zh-CN", acceptDownloads: true });
  const page = await ctx.newPage();
  await page.goto(appSignIn("/space/personcarlist", OWNER));
  const pending = async () => Number(((await page.locator(".tabs a", { hasText: "审核中" }).innerText()).match(/\d+/) || ["0"])[0]);
  const before = await pending();
  await page.locator("a", { hasText: "从 Excel 批量导入" }).click();
  await page.waitForURL(/\/space\/stock-import$/);

  // The shop's live stock as the template writes it, with fifty cars added.
  const res = await page.request.get(`${BASE}/space/stock-import/stock.csv`);
  assert.equal(res.status(), 200);
  const stock = parseCsv((await res.text()).replace(/^\uFEFF/, "")).filter((r) => r.some((c) => c !== ""));
  const [header, ...existing] = stock;
  assert.equal(header[0], "车架号*");
  const at = (name) => header.findIndex((h) => h.startsWith(name));
  const cars = Array.from({ length: 50 }, (_, i) => {
    const row = header.map(() => "");
    const colours = ["白色", "黑色", "银色", "灰色", "蓝色"];
    Object.assign(row, {
      [at("车架号")]: vin(`LSVAB2C${String(4_000_000 + i * 37).padStart(9, "0")}`),
      [at("品牌车系")]: "大众 朗逸",
      [at("年款")]: "2021",
      [at("排量")]: "1.5L",
      [at("配置")]: i % 2 ? "舒适版" : "豪华版",
      [at("首次上牌")]: `2021-0${1 + (i % 9)}`,
      [at("表显里程")]: String(2 + (i % 7) * 0.5),
      [at("售价")]: (8.5 + (i % 10) * 0.2).toFixed(1),
      [at("城市")]: "上海",
      [at("颜色")]: colours[i % colours.length],
      [at("变速箱")]: "自动",
      [at("排放标准")]: "国六",
      [at("车况描述")]: `一手车，全程4S店保养，第${i + 1}号库存。`,
      [at("照片网址")]: [1, 2, 3].map((v) => `${SITE}/upload/demo/sedan-white-${v}.webp`).join(" "),
    });
    return row;
  });
  const goodVin = cars[9][at("车架号")];
  cars[9][at("车架号")] = goodVin.slice(0, 8) + (goodVin[8] === "1" ? "2" : "1") + goodVin.slice(9);
  cars[19][at("售价")] = "";

  // The preview names both rows, and nothing can be applied.
  await uploadWorkbook(page, [header, ...existing, ...cars]);
  const counts = await page.locator(".import-counts").innerText();
  assert.match(counts, /48\s*新建/);
  assert.match(counts, /2\s*行有错误/);
  assert.match(counts, new RegExp(`${existing.length}\\s*不变`));
  assert.match(counts, /0\s*下架/);
  const line = (n) => page.locator(`#line-${n} .row-errors`);
  assert.match(await line(existing.length + 11).innerText(), /车架号/);
  assert.match(await line(existing.length + 21).innerText(), /售价/);
  assert.equal(await page.locator("button", { hasText: "确认导入" }).count(), 0);

  // Fixed and uploaded again: fifty new cars, applied.
  cars[9][at("车架号")] = goodVin;
  cars[19][at("售价")] = "9.9";
  await uploadWorkbook(page, [header, ...existing, ...cars]);
  assert.match(await page.locator(".import-counts").innerText(), /50\s*新建/);
  await page.locator("button", { hasText: "确认导入" }).click();
  await page.waitForURL(/applied=1/, { timeout: 120_000 });
  assert.match(await page.locator(".notice").first().innerText(), /已导入/);
  assert.equal(await page.locator("button", { hasText: "撤销这次导入" }).count(), 1);

  // 库存管理: fifty more cars waiting for review.
  await page.goto(`${BASE}/space/personcarlist`);
  assert.equal(await pending(), before + 50);

  // This week's leads as an Excel workbook.
  await page.goto(`${BASE}/actives/zhikeclues`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("button", { hasText: "下载 Excel" }).click()]);
  assert.match(download.suggestedFilename(), /\.xlsx$/);
  const bytes = await (await download.createReadStream()).toArray();
  assert.equal(Buffer.concat(bytes).subarray(0, 2).toString(), "PK", "a workbook");
  await ctx.close();
});

test("on a phone without JavaScript, a dealer sets up the stock sync, imports three cars from CSV and undoes it", async () => {
  const ctx = await getBrowser().newContext({ viewport: { width: 390, height: 844 }, userAgent: IPHONE, javaScriptEnabled: false, locale: "zh-CN" });
  const page = await ctx.newPage();
  await page.goto(appSignIn("/space/personcarlist", OWNER));
  const pending = async () => Number(((await page.locator(".tabs a", { hasText: "审核中" }).innerText()).match(/\d+/) || ["0"])[0]);
  const before = await pending();

  // The stock sync: a wrong address is named beside the field and kept; a right one is read now.
  await page.locator("a", { hasText: "库存同步" }).click();
  await page.waitForURL(/\/space\/stock-sync$/);
  await page.fill("#feed-url", "ftp://dms.example.com/stock.csv");
  await page.locator(`form[action="/space/stock-sync"] button`).click();
  assert.match(await page.locator("#feed-url-error").innerText(), /https:\/\//);
  assert.equal(await page.inputValue("#feed-url"), "ftp://dms.example.com/stock.csv");
  await page.fill("#feed-url", "https://dms.example.com/feeds/stock.csv");
  await page.locator(`form[action="/space/stock-sync"] button`).click();
  await page.waitForURL(/done=saved/);
  assert.match(await page.locator(".sync-state").innerText(), /03:00/);
  await page.locator("button", { hasText: "立即读取" }).click();
  await page.waitForURL(/done=read/);
  const state = await page.locator(".sync-state").innerText();
  assert.match(state, /无变化/);
  assert.match(state, /没有需要更新的/);

  // Three cars from a CSV file, previewed, applied, then undone.
  const res = await page.request.get(`${BASE}/space/stock-import/stock.csv`);
  const [header] = parseCsv((await res.text()).replace(/^\uFEFF/, ""));
  const at = (name) => header.findIndex((h) => h.startsWith(name));
  const rows = [0, 1, 2].map((i) => {
    const row = header.map(() => "");
    Object.assign(row, {
      [at("车架号")]: vin(`LFV3A2C${String(7_100_000 + i * 53).padStart(9, "0")}`),
      [at("品牌车系")]: "丰田 卡罗拉",
      [at("年款")]: "2020",
      [at("排量")]: "1.2T",
      [at("配置")]: "先锋版",
      [at("首次上牌")]: "2020-08",
      [at("表显里程")]: "4.1",
      [at("售价")]: "7.6",
      [at("城市")]: "上海",
      [at("颜色")]: "银色",
      [at("照片网址")]: [4, 5, 6].map((v) => `${SITE}/upload/demo/sedan-white-${v}.webp`).join(" "),
    });
    return row;
  });
  // Only the three cars: the shop's other cars would be taken down, so the file lists them too.
  const whole = parseCsv((await res.text()).replace(/^\uFEFF/, "")).filter((r) => r.some((c) => c !== ""));
  const csv = [...whole, ...rows].map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(",")).join("\r\n");
  await page.goto(`${BASE}/space/stock-import`);
  await page.setInputFiles("#import-file", { name: "库存.csv", mimeType: "text/csv", buffer: Buffer.from("\uFEFF" + csv, "utf8") });
  await page.locator("button", { hasText: "上传并预览" }).click();
  await page.waitForURL(/\/space\/stock-import\/\d+$/);
  const counts = await page.locator(".import-counts").innerText();
  assert.match(counts, /3\s*新建/);
  assert.match(counts, /0\s*下架/);
  await page.locator("button", { hasText: "确认导入" }).click();
  await page.waitForURL(/applied=1/, { timeout: 60_000 });
  await page.goto(`${BASE}/space/personcarlist`);
  assert.equal(await pending(), before + 3);
  await page.goBack();
  await page.locator("button", { hasText: "撤销这次导入" }).click();
  await page.waitForURL(/undone=1/);
  assert.match(await page.locator(".notice").first().innerText(), /已撤销/);
  await page.goto(`${BASE}/space/personcarlist`);
  assert.equal(await pending(), before, "the three cars are gone again");
  await ctx.close();
});
