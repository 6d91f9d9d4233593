// The production checkout in a real browser: a server started with the production configuration
// and the real payment adapters, whose Alipay gateway and WeChat Pay API are mock peers on other
// loopback addresses (other origins, as the real cashiers are). Buying a plan must reach the
// cashier: the Content-Security-Policy's form-action also governs the redirects that follow a
// form, so a policy of 'self' alone would stop the buyer on our own page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createPrivateKey, createPublicKey, createSign, randomBytes } from "node:crypto";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IPHONE, appSignIn, useBrowser } from "./browser.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const BIN = join(ROOT, "target/debug/usedcar");
const KEYS = join(ROOT, "crates/web/src/adapters/keys");
const APP_KEY = readFileSync(join(KEYS, "sandbox_app.pem"), "utf8");
const PLATFORM_KEY = createPrivateKey(readFileSync(join(KEYS, "sandbox_platform.pem"), "utf8"));
const PLATFORM_PUBLIC = createPublicKey(PLATFORM_KEY).export({ type: "spki", format: "pem" });
const APP_TOKEN_SECRET = "app-token-secret-for-the-checkout-test-0123456789";
const PLATFORM_SERIAL = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";

/// A loopback HTTP server on `host`, answering with `handle`; resolves to its origin.
function listen(host, handle) {
  const server = createServer(handle);
  return new Promise((resolve) => server.listen(0, host, () => resolve({ server, origin: `http://${host}:${server.address().port}` })));
}

/// A free port on 127.0.0.1.
async function freePort() {
  const { server } = await listen("127.0.0.1", () => {});
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/// A WeChat Pay v3 answer, signed as the platform signs: `timestamp\nnonce\nbody\n`.
function wechatAnswer(res, status, body) {
  const text = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString("hex");
  const signer = createSign("RSA-SHA256");
  signer.update(`${timestamp}\n${nonce}\n${text}\n`);
  res.writeHead(status, {
    "content-type": "application/json",
    "wechatpay-timestamp": timestamp,
    "wechatpay-nonce": nonce,
    "wechatpay-serial": PLATFORM_SERIAL,
    "wechatpay-signature": signer.sign(PLATFORM_KEY, "base64"),
  });
  res.end(text);
}

let gateway;
let h5;
let app;
let base;
let dir;
const seen = [];

before(async () => {
  // Alipay's gateway and WeChat Pay's API on 127.0.0.2; WeChat Pay's H5 cashier on 127.0.0.3.
  h5 = await listen("127.0.0.3", (req, res) => {
    seen.push(`h5 ${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>微信支付</title><h1>微信支付收银台（测试）</h1>");
  });
  gateway = await listen("127.0.0.2", (req, res) => {
    seen.push(`gateway ${req.method} ${req.url}`);
    if (req.url.startsWith("/gateway.do")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>支付宝</title><h1>支付宝收银台（测试）</h1>");
    } else if (req.url.startsWith("/v3/pay/transactions/h5")) {
      wechatAnswer(res, 200, { h5_url: `${h5.origin}/pay/checkmweb?prepay_id=wx2026112515000000001&package=1` });
    } else {
      wechatAnswer(res, 404, { code: "ORDER_NOT_EXIST", message: "订单不存在" });
    }
  });
  dir = mkdtempSync(join(tmpdir(), "usedcar-checkout-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    USEDCAR_LOG: "warn",
    USEDCAR_SITE_URL: base,
    USEDCAR_SITE_COOKIE_DOMAIN: "",
    USEDCAR_UPLOAD_DIR: join(dir, "upload"),
    USEDCAR_SECRET: "site-secret-for-the-checkout-test-0123456789abcdef",
    USEDCAR_APP_TOKEN_SECRET: APP_TOKEN_SECRET,
    USEDCAR_SMS_ACCESS_KEY_ID: "test",
    USEDCAR_SMS_ACCESS_KEY_SECRET: "test",
    USEDCAR_SMS_TEMPLATE_CODE: "SMS_1",
    USEDCAR_SMS_LEAD_TEMPLATE_CODE: "SMS_2",
    USEDCAR_SMS_ALERT_TEMPLATE_CODE: "SMS_3",
    USEDCAR_SMS_LIVE_TEMPLATE_CODE: "SMS_4",
    USEDCAR_SMS_RESERVATION_TEMPLATE_CODE: "SMS_5",
    USEDCAR_SMS_MESSAGE_TEMPLATE_CODE: "SMS_6",
    USEDCAR_SMS_WEBHOOK_TEMPLATE_CODE: "SMS_7",
    USEDCAR_SMS_SYNC_TEMPLATE_CODE: "SMS_8",
    USEDCAR_SMS_DESK_TEMPLATE_CODE: "SMS_9",
    USEDCAR_WX_APP_SECRET: "test",
    USEDCAR_MINI_APP_ID: "wxmini0000000001",
    USEDCAR_MINI_APP_SECRET: "test",
    USEDCAR_MINI_ORIGINAL_ID: "gh_0000000000ab",
    USEDCAR_QQ_APP_KEY: "test",
    USEDCAR_WX_LEAD_TEMPLATE_ID: "test",
    USEDCAR_REPORT_APP_ID: "test",
    USEDCAR_REPORT_APP_SECRET: "test",
    USEDCAR_INSURANCE_ENDPOINT: `${gateway.origin}/insurance`,
    USEDCAR_INSURANCE_APP_ID: "test",
    USEDCAR_INSURANCE_APP_SECRET: "test",
    USEDCAR_INSURANCE_DATA_KEY: "0123456789abcdef0123456789abcdef",
    USEDCAR_ALIPAY_GATEWAY: `${gateway.origin}/gateway.do`,
    USEDCAR_ALIPAY_APP_ID: "2021000000000001",
    USEDCAR_ALIPAY_PRIVATE_KEY: APP_KEY,
    USEDCAR_ALIPAY_PUBLIC_KEY: PLATFORM_PUBLIC,
    USEDCAR_WXPAY_GATEWAY: gateway.origin,
    USEDCAR_WXPAY_H5_ORIGIN: h5.origin,
    USEDCAR_WXPAY_MCH_ID: "1900009191",
    USEDCAR_WXPAY_SERIAL_NO: "3775B6A45ACD588826D15E583A95F5DD00000000",
    USEDCAR_WXPAY_PRIVATE_KEY: APP_KEY,
    USEDCAR_WXPAY_PLATFORM_SERIAL: PLATFORM_SERIAL,
    USEDCAR_WXPAY_PLATFORM_PUBLIC_KEY: PLATFORM_PUBLIC,
    USEDCAR_WXPAY_API_V3_KEY: "0123456789abcdef0123456789abcdef",
    // Conversion reports: production refuses to start with a platform that lacks its credentials.
    USEDCAR_ADS_TENCENT_ACCESS_TOKEN: "test",
    USEDCAR_ADS_TENCENT_ACCOUNT_ID: "25610",
    USEDCAR_ADS_TENCENT_ACTION_SET_ID: "1111",
    USEDCAR_ADS_BAIDU_TOKEN: "test",
  };
  app = spawn(BIN, ["serve", "--env", "production", "--addr", `127.0.0.1:${port}`, "--database-url", join(dir, "prod.db")], { env, stdio: "ignore" });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/vip`)).ok) break;
    } catch {
      // not listening yet
    }
    assert.ok(i < 300, "the production server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
});

after(async () => {
  app?.kill();
  await new Promise((r) => gateway?.server.close(r) ?? r());
  await new Promise((r) => h5?.server.close(r) ?? r());
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const browser = useBrowser();


for (const v of [
  { name: "desktop, Alipay", mobile: false, method: "支付宝付款", lands: () => `${gateway.origin}/gateway.do?`, phone: "13900004001" },
  { name: "phone, WeChat Pay's H5", mobile: true, method: "微信支付", lands: () => `${h5.origin}/pay/checkmweb?`, phone: "13900004002" },
]) {
  test(`production checkout reaches the cashier (${v.name})`, async () => {
    const context = await browser().newContext({
      viewport: v.mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
      ...(v.mobile ? { userAgent: IPHONE, isMobile: true, hasTouch: true } : {}),
    });
    const page = await context.newPage();
    const blocked = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
    });
    const res = await page.goto(appSignIn("/vip", v.phone, { base, secret: APP_TOKEN_SECRET }));
    assert.equal(res.status(), 200);
    const csp = res.headers()["content-security-policy"];
    assert.match(csp, new RegExp(`form-action 'self' ${gateway.origin} ${h5.origin};`), csp);
    const plan = page.locator("form.plan").first();
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(v.lands()), { timeout: 15_000 }),
      plan.locator("button", { hasText: v.method }).click(),
    ]);
    assert.ok(page.url().startsWith(v.lands()), page.url());
    assert.ok(await page.locator("h1", { hasText: "收银台（测试）" }).isVisible());
    assert.deepEqual(blocked, [], "nothing refused by the policy");
    await context.close();
  });
}

test("the cashiers saw the buyers' requests", () => {
  assert.ok(seen.some((s) => s.startsWith("gateway GET /gateway.do?")), seen.join("\n"));
  assert.ok(seen.some((s) => s.startsWith("gateway POST /v3/pay/transactions/h5")), seen.join("\n"));
  assert.ok(seen.some((s) => s.startsWith("h5 GET /pay/checkmweb?prepay_id=")), seen.join("\n"));
});
