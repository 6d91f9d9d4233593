//! `GET /api/openapi.json`: the OpenAPI 3.1 document of every JSON endpoint — the specification's API
//! (`/api/buycar-api/…`, the statistics call under `/hpi/`), the region list, the dealer API
//! (`/api/dealer/v1/…`, described by its feature) and the callbacks the payment, report, insurance and call-tracking providers post to. It is built here, beside
//! the routes; a test checks that it describes exactly the routes under `/api/` and `/hpi/` the
//! router serves (`tests/it/routes.rs`), so an endpoint cannot be added without its description. `cargo xtask schema`
//! runs schemathesis over it with two users' tokens.

use std::sync::LazyLock;

use axum::response::Response;
use serde_json::{Value, json};

use crate::http::routes::{Access, Routes};

/// `{"$ref": "#/components/…"}`.
fn reference(to: &str) -> Value {
    json!({ "$ref": format!("#/components/{to}") })
}

/// The envelope with `data` as `data`.
fn envelope(data: &Value) -> Value {
    json!({ "allOf": [reference("schemas/Envelope"), { "type": "object", "properties": { "data": data } }] })
}

/// A JSON answer in the envelope.
fn answer(description: &str, data: &Value) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": envelope(data) } } })
}

/// The failures every endpoint of the specification's API may answer, and `extra` of its own.
fn failures(extra: &[&str]) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for code in ["400", "413", "415", "429", "503"].iter().chain(extra) {
        out.insert((*code).to_owned(), reference(&format!("responses/Failure{code}")));
    }
    out
}

/// An operation of the specification's API: `ok` is its 200 answer's `data`.
fn operation(id: &str, summary: &str, ok: &Value, extra_failures: &[&str], secured: bool) -> Value {
    let mut responses = failures(extra_failures);
    responses.insert("200".to_owned(), answer(summary, ok));
    let mut op = json!({ "operationId": id, "summary": summary, "tags": ["app"], "responses": responses });
    if secured {
        op["security"] = json!([{ "token": [] }]);
    } else {
        op["security"] = json!([]);
    }
    op
}

/// A body given as form fields or as a JSON object with these string fields.
fn body(properties: &Value, required: &[&str]) -> Value {
    let schema = json!({ "type": "object", "properties": properties, "required": required });
    json!({ "required": !required.is_empty(), "content": {
        "application/x-www-form-urlencoded": { "schema": schema },
        "application/json": { "schema": schema },
    } })
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

/// A provider's callback: what it posts and what it is answered (signed by the provider, so
/// made-up bodies are refused; `cargo xtask fuzz` fuzzes their readers).
fn callback(id: &str, summary: &str, request: &Value, responses: &Value) -> Value {
    json!({ "post": { "operationId": id, "summary": summary, "tags": ["callbacks"], "security": [], "requestBody": request, "responses": responses } })
}

static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    let city = json!({ "type": ["object", "null"], "properties": {
        "slug": { "type": "string" }, "name": { "type": "string" }, "code": { "type": "integer" }, "province": { "type": "string" } } });
    let recording = json!({ "type": "object", "required": ["id"], "properties": { "id": { "type": "integer" } } });
    let lead = json!({ "type": "object", "required": ["id", "intent", "phone", "opened", "status", "createdAt", "recordings"], "properties": {
        "id": { "type": "integer" }, "intent": { "type": "string" }, "phone": { "type": "string", "description": "masked until the lead is opened" },
        "opened": { "type": "boolean" }, "listingId": { "type": ["integer", "null"] }, "car": { "type": ["string", "null"] },
        "status": { "type": "string", "enum": ["new", "contacted", "closed"] }, "note": { "type": "string" }, "createdAt": { "type": "string" },
        "recordings": { "type": "array", "items": recording } } });
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "二手车网 API",
            "version": "1",
            "description": "JSON endpoints of 二手车网. The app's calls answer in the envelope {success, code, msg, data}: code 0000 is success, CM001 a wrong request (msg names the field), CM002 an invalid session, CM003 a service unavailable, CM004 nothing there (or not yours), CM005 not for this role, CM006 too many requests, CM009 our failure. Bodies are form fields or a JSON object; the session token comes in the `token` header or the `hx_token` cookie.",
        },
        "servers": [{ "url": "/" }],
        "components": {
            "securitySchemes": {
                "token": { "type": "apiKey", "in": "header", "name": "token", "description": "A session token (from /api/buycar-api/user/cookietotoken or appscantotoken)." },
            },
            "schemas": {
                "Envelope": { "type": "object", "required": ["success", "code", "msg", "data"], "properties": {
                    "success": { "type": "boolean" },
                    "code": { "type": "string", "enum": ["0000", "CM001", "CM002", "CM003", "CM004", "CM005", "CM006", "CM009"] },
                    "msg": { "type": "string" },
                    "data": {},
                } },
            },
            "responses": {
                "Failure400": answer("The request is wrong (msg says how): CM001.", &json!({ "type": "null" })),
                "Failure401": answer("No valid session: CM002 (the session cookies are cleared).", &json!({ "type": "null" })),
                "Failure403": answer("Signed in, but not as a dealer: CM005.", &json!({ "type": "null" })),
                "Failure404": answer("Nothing there, or not yours: CM004.", &json!({ "type": "null" })),
                "Failure413": answer("The body is too large: CM001.", &json!({ "type": "null" })),
                "Failure415": answer("The body's type is not a form or JSON: CM001.", &json!({ "type": "null" })),
                "Failure429": answer("Too many requests from this address or for this phone: CM006.", &json!({ "type": "null" })),
                "Failure503": answer("A service or the database is unavailable, try again later: CM003.", &json!({ "type": "null" })),
            },
        },
        "paths": {
            "/api/buycar-api/tool/wechat/sign": { "post": with(operation("wechatSign", "WeChat JS-SDK signature of a page: \"{timestamp},{nonceStr},{signature},{appId}\"", &json!({ "type": "string" }), &[], false), "requestBody", body(&json!({ "token": { "type": "string", "pattern": "^https?://", "maxLength": 2000, "description": "the page's address (http or https, at most 2,000 characters), signed without its #fragment" } }), &["token"])) },
            "/api/buycar-api/user/userregion": { "post": operation("userRegion", "The caller's address and chosen city", &json!({ "type": "object", "required": ["ip"], "properties": { "ip": { "type": "string" }, "city": city } }), &[], false) },
            "/api/buycar-api/user/cookietotoken": { "post": with(operation("cookieToToken", "A token for the web session; sets hx_token", &json!({ "type": "string" }), &["401"], false), "requestBody", body(&json!({ "cookie": string("the web session cookie's value (else the hx_web cookie is used)") }), &[])) },
            "/api/buycar-api/user/appscantotoken": { "post": with(operation("appScanToToken", "A web session for an app sign-in; sets the cookies", &json!({ "type": "object", "required": ["record", "cookie"], "properties": {
                    "record": { "type": "string" },
                    "cookie": { "type": "object", "properties": { "name": { "type": "string" }, "value": { "type": "string" }, "path": { "type": "string" }, "maxAge": { "type": "integer" } } } } }), &["401"], false), "requestBody", body(&json!({ "mobile": string("the app user's phone"), "appToken": string("the app's signed token") }), &["mobile", "appToken"])) },
            "/api/buycar-api/user/baseinf": { "post": operation("baseInfo", "The signed-in user's base information", &json!({ "type": "object", "required": ["userId", "role"], "properties": {
                "userId": { "type": "integer" }, "mobile": { "type": ["string", "null"] }, "nickname": { "type": "string" }, "avatar": { "type": "string" },
                "role": { "type": "string", "enum": ["buyer", "dealer", "staff"] }, "wechatBound": { "type": "boolean" }, "qqBound": { "type": "boolean" },
                "vip": { "type": ["object", "null"], "properties": { "plan": { "type": "string" }, "endsAt": { "type": "string" } } } } }), &["401"], true) },
            "/api/buycar-api/dealer/clues": { "get": with(operation("dealerClues", "The dealer's shop leads, numbers masked until opened, each with its call recordings", &json!({ "type": "array", "items": lead }), &["401", "403"], true), "parameters", json!([{ "name": "status", "in": "query", "required": false, "description": "empty or absent: every lead", "schema": { "type": "string", "enum": ["", "new", "contacted", "closed"] } }])) },
            "/api/buycar-api/dealer/recordings/{id}": { "get": with(operation("dealerRecording", "One call recording of the dealer's shop (CM004 for any other id)", &recording, &["401", "403", "404"], true), "parameters", json!([{ "name": "id", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 1 } }])) },
            "/hpi/mobile/appdatastatistics.json": { "get": with(operation("statistics", "Records a page view for the statistics (batched; at most 1,000 an hour from one address, then 429); data.from is what was recorded", &json!({ "type": "object", "required": ["from"], "properties": { "from": { "type": "string" } } }), &[], false), "parameters", Value::Array(["devicetoken", "mobile", "from", "plan", "unit", "keyword", "wx_aid", "type"].iter().map(|p| json!({ "name": p, "in": "query", "required": false, "description": "kept to its first 128 characters", "schema": { "type": "string" } })).collect())) },
            "/api/regions": { "get": { "operationId": "regions", "summary": "Provinces A–Z with their cities, for the city chooser", "tags": ["app"], "security": [], "responses": {
                "200": answer("The groups by initial", &json!({ "type": "array", "items": { "type": "object", "properties": { "letter": { "type": "string" }, "provinces": { "type": "array" } } } })),
            } } },
            "/api/pay/alipay/notify": callback("alipayNotify", "Alipay's asynchronous notify (RSA2-signed form)",
                &json!({ "required": true, "content": { "application/x-www-form-urlencoded": { "schema": { "type": "object", "additionalProperties": { "type": "string" } } } } }),
                &json!({ "200": { "description": "success once applied (or nothing to apply), fail otherwise so Alipay tries again", "content": { "text/plain": { "schema": { "type": "string", "enum": ["success", "fail"] } } } },
                        "413": { "description": "Too large" } })),
            "/api/pay/wechat/notify": callback("wechatPayNotify", "WeChat Pay v3's notify (signed headers, AES-256-GCM resource)",
                &json!({ "required": true, "content": { "application/json": { "schema": { "type": "object" } } } }),
                &json!({ "204": { "description": "Received" },
                        "400": { "description": "Refused, so WeChat Pay tries again", "content": { "application/json": { "schema": { "type": "object", "properties": { "code": { "type": "string" }, "message": { "type": "string" } } } } } },
                        "413": { "description": "Too large" } })),
            "/api/insurance/notify": callback("insuranceNotify", "The insurer gateway's quote callback (signed, sealed envelope)",
                &json!({ "required": true, "content": { "application/json": { "schema": { "type": "object" } } } }),
                &json!({ "200": { "description": "Received", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "400": { "description": "Not a verified callback", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "413": { "description": "Too large" } })),
            "/api/report/jumdata/notify": callback("reportNotify", "The history-report provider's signed push",
                &json!({ "required": true, "content": { "application/json": { "schema": { "type": "object" } } } }),
                &json!({ "200": { "description": "Received", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "400": { "description": "Not a verified push", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "413": { "description": "Too large" } })),
            "/api/calltrack/aliyun/recording": callback("callRecording", "The call-tracking service's recording receipts",
                &json!({ "required": true, "content": { "application/json": { "schema": { "type": "array" } } } }),
                &json!({ "200": { "description": "Kept", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "400": { "description": "Not receipts", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "403": { "description": "Not from the service", "content": { "application/json": { "schema": { "type": "object" } } } },
                        "413": { "description": "Too large" },
                        "502": { "description": "A recording could not be fetched; the service pushes again", "content": { "application/json": { "schema": { "type": "object" } } } } })),
        },
    });
    // The dealer API's paths and its key.
    for (path, item) in crate::features::dealer_api::doc::paths() {
        doc["paths"][path] = item;
    }
    doc["components"]["securitySchemes"][crate::features::dealer_api::doc::SCHEME] = crate::features::dealer_api::doc::scheme();
    // For the stateful phase: a lead's recording is read next by its id.
    doc["paths"]["/api/buycar-api/dealer/clues"]["get"]["responses"]["200"]["links"] = json!({
        "GetRecording": { "operationId": "dealerRecording", "parameters": { "id": "$response.body#/data/0/recordings/0/id" } },
    });
    doc.to_string()
});

/// `op` with `key` set to `value`.
fn with(mut op: Value, key: &str, value: Value) -> Value {
    op[key] = value;
    op
}

/// `GET /api/openapi.json`.
pub async fn document() -> Response {
    crate::http::envelope::static_json(DOCUMENT.as_str(), "public, max-age=3600")
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Plain, "/api/openapi.json", document);
}
