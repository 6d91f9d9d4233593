//! The dealer API's part of `/api/openapi.json`: its paths, with examples, and its security
//! scheme (a shop's key as a bearer token). The site's document adds them (`site::openapi`).

use serde_json::{Map, Value, json};

/// The security scheme's name.
pub const SCHEME: &str = "dealerKey";

/// The security scheme: `Authorization: Bearer uck_…`.
pub fn scheme() -> Value {
    json!({ "type": "http", "scheme": "bearer", "bearerFormat": "uck_ and 40 hex digits",
        "description": "A shop's API key, made in the dealer centre (/space/api-keys) and shown once. Each key has scopes (stock:read, stock:write, leads:read, messages:read, messages:write, reservations, webhooks) and may make 120 calls a minute by default (the setting dealer_api.calls_per_minute)." })
}

fn failure(description: &str) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Envelope" } } } })
}

/// The answers every call may give besides its own.
fn failures(extra: &[(&str, &str)]) -> Map<String, Value> {
    let mut out = Map::new();
    for (code, what) in [
        ("400", "The request cannot be read (a query, header or body that is not well-formed): CM001."),
        ("401", "No key, or a key unknown or revoked: CM002."),
        ("413", "The body is too large: CM001."),
        ("414", "The address (its query) is too long: CM001."),
        ("403", "The key lacks the scope: CM005 (msg names it)."),
        ("429", "The key's calls a minute (120 by default) are used: CM006, with Retry-After."),
        ("503", "The database is unavailable: CM003."),
    ]
    .iter()
    .chain(extra)
    {
        out.insert((*code).to_owned(), failure(what));
    }
    out
}

fn op(id: &str, summary: &str, ok_status: &str, ok: &Value, extra: &[(&str, &str)]) -> Value {
    let mut responses = failures(extra);
    responses.insert(
        ok_status.to_owned(),
        json!({ "description": summary, "content": { "application/json": { "schema": { "allOf": [{ "$ref": "#/components/schemas/Envelope" }, { "type": "object", "properties": { "data": ok } }] } } } }),
    );
    json!({ "operationId": id, "summary": summary, "tags": ["dealer"], "security": [{ SCHEME: [] }], "responses": responses })
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

/// A time a caller gives: Unix seconds or RFC 3339 (`domain::time::parse_instant`).
fn instant() -> Value {
    json!({ "anyOf": [{ "type": "integer", "minimum": 0, "maximum": 253_402_300_799_i64 }, { "type": "string", "format": "date-time" }] })
}

/// A list's `next`: where the next page starts.
fn next_position() -> Value {
    json!({ "type": ["string", "null"], "description": "`{unix seconds}.{id}` of the last item; pass it as `after` for the next page (null: nothing listed)", "example": "1733300000.42" })
}

/// A list's `after`: the previous page's `next`.
fn after_position() -> Value {
    json!({ "name": "after", "in": "query", "required": false, "description": "the previous page's next: what follows it, even within the same second", "schema": { "type": "string", "pattern": "^-?[0-9]{1,18}\\.[0-9]{1,18}$" } })
}

fn id_param() -> Value {
    json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 1 } })
}

/// The paths of the dealer API.
pub fn paths() -> Map<String, Value> {
    let photo = json!({ "type": "object", "properties": { "url": { "type": "string" }, "width": { "type": "integer" }, "height": { "type": "integer" } } });
    let status = json!({ "type": "string", "enum": ["online", "pending", "rejected", "draft", "sold", "removed", "expired", "deleted"] });
    let mut car = json!({ "type": "object", "required": ["id", "status", "title", "priceYuan", "version"], "properties": {
        "id": { "type": "integer" }, "status": status, "statusLabel": { "type": "string" }, "rejectReason": { "type": "string" },
        "title": { "type": "string" }, "series": { "type": "string" }, "firstRegistration": { "type": "string", "example": "2020-05" },
        "mileage": { "type": "string", "description": "万公里" }, "mileageKm": { "type": "integer" }, "price": { "type": "string", "description": "万元" },
        "priceYuan": { "type": "integer" }, "city": { "type": "string" }, "cityName": { "type": "string" }, "colour": { "type": "string" },
        "transfers": { "type": "integer" }, "gearbox": { "type": "integer" }, "emission": { "type": "integer" }, "fuel": { "type": "integer" },
        "vin": { "type": "string" }, "description": { "type": "string" }, "modelYear": { "type": "integer" }, "displacement": { "type": "string" },
        "trim": { "type": "string" }, "cover": { "type": "string" }, "url": { "type": "string", "description": "the public page, once it has one" },
        "createdAt": { "type": "string" }, "updatedAt": { "type": "string" }, "publishedAt": { "type": ["string", "null"] },
        "version": { "type": "string", "description": "as in ETag, for If-Match" }, "photos": { "type": "array", "items": photo } } });
    // One car also carries what was said of its condition on the site (the schema in parts:
    // one json! of it all passes the macro's recursion limit).
    let said = json!({ "type": "object", "properties": {
        "item": { "type": "string", "example": "structural" }, "itemLabel": { "type": "string", "example": "结构件事故" },
        "answer": { "type": "string", "example": "no" }, "answerText": { "type": "string" }, "note": { "type": "string" },
        "check": { "type": "string", "enum": ["verified", "contradicted", "unverified"] }, "checkLabel": { "type": "string", "example": "已核查" },
        "source": { "type": ["string", "null"], "enum": ["report", "inspection", "document", null] }, "sourceLabel": { "type": ["string", "null"] },
        "says": { "type": "string", "description": "what the source says, where it contradicts" } } });
    let mark = json!({ "type": "object", "properties": {
        "id": { "type": "integer" }, "area": { "type": "string", "enum": ["front", "rear", "left", "right", "roof", "interior"] }, "areaLabel": { "type": "string" },
        "kind": { "type": "string" }, "kindLabel": { "type": "string", "example": "划痕" }, "x": { "type": "integer", "minimum": 0, "maximum": 100 },
        "y": { "type": "integer", "minimum": 0, "maximum": 100 }, "note": { "type": "string" }, "photo": { "type": "string" } } });
    car["properties"]["disclosure"] = json!({ "type": ["object", "null"], "description": "one car only: the latest statement of condition (车况声明, made on the site or by PUT …/disclosure), null before one",
        "properties": { "version": { "type": "integer" }, "madeAt": { "type": "string" }, "items": { "type": "array", "items": said } } });
    car["properties"]["damageMarks"] = json!({ "type": "array", "description": "one car only: the marks on its damage diagram (车况标注, made on the site or by POST …/damage-marks)", "items": mark });
    let lead = json!({ "type": "object", "required": ["id", "intent", "phone", "opened", "status", "createdAt"], "properties": {
        "id": { "type": "integer" }, "intent": { "type": "string" }, "intentLabel": { "type": "string" },
        "phone": { "type": "string", "description": "masked until the lead is opened (marking it contacted opens it)" },
        "opened": { "type": "boolean" }, "listingId": { "type": ["integer", "null"] }, "car": { "type": ["string", "null"] },
        "name": { "type": "string" }, "appointmentDate": { "type": "string" }, "status": { "type": "string", "enum": ["new", "contacted", "closed"] },
        "note": { "type": "string" }, "createdAt": { "type": "string" } } });
    let text = |d: &str| json!({ "type": ["string", "number"], "description": d });
    let new_car = json!({ "type": "object", "required": ["series", "firstRegistration", "mileage", "price", "city", "photos", "modelYear", "displacement", "trim"], "properties": {
        "series": { "type": "string", "description": "the catalogue's series slug" },
        "firstRegistration": { "type": "string", "description": "首次上牌, yyyy-MM" },
        "mileage": text("表显里程, 万公里"), "price": text("售价, 万元"), "city": { "type": "string", "description": "city slug" },
        "colour": { "type": "string" }, "transfers": text("过户次数"), "gearbox": text("1 手动, 2 自动"), "emission": text("排放标准 code"),
        "vin": { "type": "string", "description": "17 characters, check digit verified; one live listing per VIN" },
        "description": { "type": "string" }, "contact": { "type": "string", "description": "the phone buyers call" },
        "modelYear": text("年款"), "displacement": { "type": "string", "example": "2.0T" }, "trim": { "type": "string", "example": "豪华套装" },
        "photos": { "type": "array", "minItems": 3, "maxItems": 30, "items": { "type": "string" }, "description": "ids from POST /api/dealer/v1/photos, the cover first" } },
        "example": { "series": "bmw-x3", "firstRegistration": "2020-05", "mileage": "3.2", "price": "23.8", "city": "beijing", "colour": "white",
            "transfers": "0", "gearbox": "2", "emission": "6", "vin": "LBV5S3102LSN12345", "description": "一手车，4S店保养", "contact": "13100000000",
            "modelYear": "2020", "displacement": "2.0T", "trim": "xDrive28i 豪华套装", "photos": ["3f2b8c1e9d4a4c5e8f7a1b2c3d4e5f60"] } });
    // A change: any of a new car's fields.
    let mut changes = new_car.clone();
    changes["required"] = json!([]);
    changes["example"] = json!({ "price": "22.8", "description": "一手车，4S店保养，新换轮胎" });
    let idem = json!({ "name": "Idempotency-Key", "in": "header", "required": true, "description": "1–64 letters, digits or -_.: — a retry with the same key and body answers the car the first made", "schema": { "type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$" } });
    let if_match = json!({ "name": "If-Match", "in": "header", "required": false, "description": "the car's version (ETag); a car changed since is refused with 412", "schema": { "type": "string" } });
    let page = json!({ "type": "object", "properties": { "items": { "type": "array", "items": car }, "page": { "type": "integer" }, "perPage": { "type": "integer" }, "total": { "type": "integer" } } });
    let bad = ("422", "A parameter or field is wrong: CM001, data.errors names each with its Chinese message.");
    let mut out = Map::new();
    out.insert(
        "/api/dealer/v1/stock".to_owned(),
        json!({
            "get": with(op("stockList", "The shop's cars by last change (deleted ones too), a page at a time", "200", &page, &[bad]), "parameters", json!([
                { "name": "updated_since", "in": "query", "required": false, "description": "only cars changed in this second or after (Unix seconds or RFC 3339; de-duplicate by id)", "schema": instant() },
                { "name": "page", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 100000 } },
                { "name": "per_page", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 100 } } ])),
            "post": with(with(op("stockCreate", "A new car, under review until approved (the 发布车源 form's checks)", "201", &car,
                    &[bad, ("200", "The same request was made before under this Idempotency-Key: its car (Idempotent-Replayed: true)."), ("400", "The body is no JSON object: CM001."), ("409", "The Idempotency-Key was used by another request: CM001.")]),
                "parameters", json!([idem])),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": new_car } } })),
        }),
    );
    out.insert(
        "/api/dealer/v1/stock/{id}".to_owned(),
        json!({
            "get": with(op("stockGet", "One car of the shop with its photos; its version in ETag", "200", &car, &[("404", "No such car of this shop: CM004.")]), "parameters", json!([id_param()])),
            "patch": with(with(op("stockUpdate", "Changes the fields given (photos: the whole new list), with the form's checks; an online car whose price, photos, model, registration, mileage or VIN changed goes back to review", "200", &car,
                    &[bad, ("400", "The body is no JSON object: CM001."), ("404", "No such car of this shop: CM004."), ("412", "If-Match does not match the car's version: CM001, nothing written."), ("428", "No If-Match: CM001.")]),
                "parameters", json!([id_param(), { "name": "If-Match", "in": "header", "required": true, "description": "the car's version (its ETag)", "schema": { "type": "string" } }])),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": changes } } })),
        }),
    );
    out.insert(
        "/api/dealer/v1/stock/{id}/{action}".to_owned(),
        json!({ "post": with(op("stockAction", "Take a car down or mark it sold; again once done changes nothing", "200", &car,
                &[("404", "No such car or action: CM004."), ("409", "Not possible from the car's state: CM001."), ("412", "If-Match does not match the car's version: CM001.")]),
            "parameters", json!([id_param(), { "name": "action", "in": "path", "required": true, "schema": { "type": "string", "enum": ["take-down", "mark-sold"] } }, if_match])) }),
    );
    // The statement of condition as written: every item answered (the site's form, item by item).
    let answer = json!({ "type": "object", "required": ["answer"], "properties": {
        "answer": { "type": "string", "description": "no / yes (with a note) for the yes-or-no items; private, commercial or rental for use; a month yyyy-MM for the dates; none or a month for scrap" },
        "note": { "type": "string", "maxLength": 200, "description": "what happened, required with yes" } } });
    let statement = json!({ "type": "object", "required": ["items"], "properties": {
        "items": { "type": "object", "description": "one entry per item (use, structural, flood, fire, repairs, mileage, mortgage, seizure, dues, inspection, insurance, scrap), keyed by item", "additionalProperties": answer },
        "confirmContradictions": { "type": "boolean", "description": "true to keep answers our records contradict (buyers then see 与记录不符)" } },
        "example": { "items": { "use": { "answer": "private" }, "structural": { "answer": "no" }, "flood": { "answer": "no" }, "fire": { "answer": "no" },
            "repairs": { "answer": "yes", "note": "2024年右后门钣金喷漆，有4S店单据" }, "mileage": { "answer": "no" }, "mortgage": { "answer": "no" },
            "seizure": { "answer": "no" }, "dues": { "answer": "no" }, "inspection": { "answer": "2027-05" }, "insurance": { "answer": "2027-03" }, "scrap": { "answer": "none" } } } });
    out.insert(
        "/api/dealer/v1/stock/{id}/disclosure".to_owned(),
        json!({ "put": with(with(op("stockDisclosure", "The car's statement of condition (车况声明), as on the site: every item answered and checked against our records; its next version (the same statement again makes none). Answers the car", "200", &car,
                &[bad, ("400", "The body is no JSON object: CM001."), ("404", "No such car of this shop: CM004."), ("409", "Our records contradict an answer and confirmContradictions is not true: CM001, msg names each; nothing written.")]),
                "parameters", json!([id_param()])),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": statement } } })) }),
    );
    let new_mark = json!({ "type": "object", "required": ["area", "kind", "photo"], "properties": {
        "area": { "type": "string", "enum": ["front", "rear", "left", "right", "roof", "interior"] }, "kind": { "type": "string", "enum": ["scratch", "dent", "paint", "replaced", "glass", "wear"] },
        "x": { "type": "integer", "minimum": 0, "maximum": 100 }, "y": { "type": "integer", "minimum": 0, "maximum": 100 },
        "spot": { "type": "string", "description": "one of the diagram's named places, instead of x and y" }, "note": { "type": "string", "maxLength": 60 },
        "photo": { "type": "string", "description": "an id from POST /api/dealer/v1/photos" } },
        "example": { "area": "front", "kind": "scratch", "x": 30, "y": 60, "note": "前保险杠轻微划痕", "photo": "3f2b8c1e9d4a4c5e8f7a1b2c3d4e5f60" } });
    out.insert(
        "/api/dealer/v1/stock/{id}/damage-marks".to_owned(),
        json!({ "post": with(with(op("damageMarkAdd", "A mark on the car's damage diagram (车况标注) with its photo; answers the car, the mark in damageMarks (200 when the photo already marks the car: a retry)", "201", &car,
                &[bad, ("400", "The body is no JSON object: CM001."), ("404", "No such car of this shop: CM004."), ("409", "The car has 20 marks: CM001.")]),
                "parameters", json!([id_param()])),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": new_mark } } })) }),
    );
    out.insert(
        "/api/dealer/v1/stock/{id}/damage-marks/{mark}".to_owned(),
        json!({ "delete": with(op("damageMarkRemove", "Removes one mark; answers the car", "200", &car, &[("404", "No such car of this shop, or no such mark on it: CM004.")]),
            "parameters", json!([id_param(), { "name": "mark", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 1 } }])) }),
    );
    out.insert(
        "/api/dealer/v1/photos".to_owned(),
        json!({ "post": with(op("photoUpload", "One photo (JPEG, PNG or WebP, at most 10 MB) through the photo pipeline, sent as the body or fetched from its https address; data.id goes in a new car's photos", "201",
                &json!({ "type": "object", "required": ["id", "url"], "properties": { "id": { "type": "string" }, "url": { "type": "string" } } }),
                &[("413", "Larger than 10 MB: CM001."), ("422", "Not a photo, broken or too small; or an address that is not https, points inside a private network, redirects, fails or does not answer within 10 s: CM001 (data.errors.url).")]),
            "requestBody", json!({ "required": true, "content": {
                "image/jpeg": { "schema": { "type": "string", "format": "binary" } }, "image/png": { "schema": { "type": "string", "format": "binary" } }, "image/webp": { "schema": { "type": "string", "format": "binary" } },
                "application/json": { "schema": { "type": "object", "required": ["url"], "properties": { "url": { "type": "string", "description": "the photo's https address, on the public internet; redirects are not followed" } } },
                    "example": { "url": "https://img.example.com/stock/LBV5S3102LSN12345/1.jpg" } } } })) }),
    );
    out.insert(
        "/api/dealer/v1/leads".to_owned(),
        json!({ "get": with(op("leadsList", "The shop's leads that came in after `since` (or after the previous page: `after`), oldest first; `next` is the `after` of the next page", "200",
                &json!({ "type": "object", "properties": { "items": { "type": "array", "items": lead }, "next": next_position() } }), &[bad]),
            "parameters", json!([
                { "name": "since", "in": "query", "required": false, "description": "Unix seconds or RFC 3339: that second included (de-duplicate by id); absent: from the first", "schema": instant() },
                after_position(),
                { "name": "limit", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 100 } } ])) }),
    );
    out.insert(
        "/api/dealer/v1/leads/{id}/contacted".to_owned(),
        json!({ "post": with(op("leadContacted", "Marks a lead contacted (and opens it: its number is answered, as on the leads desk)", "200", &lead, &[("404", "No such lead of this shop: CM004.")]),
            "parameters", json!([id_param()])) }),
    );
    let holder = json!({ "type": "object", "required": ["heldBy"], "description": "who answers the thread at the shop's desk now", "properties": {
        "heldBy": { "type": "string", "enum": ["none", "owner", "member"], "description": "no one (未分配), the owner, or a member (店员)" },
        "memberId": { "type": ["integer", "null"], "description": "the member's id, as /api/dealer/v1/members lists it" },
        "memberName": { "type": ["string", "null"] } } });
    let message = json!({ "type": "object", "required": ["id", "threadId", "from", "text", "masked", "createdAt", "holder"], "properties": {
        "id": { "type": "integer" }, "threadId": { "type": "integer" },
        "listingId": { "type": ["integer", "null"], "description": "the car the thread is about; null when the buyer asked the shop itself (在线咨询 on the shop's page)" },
        "car": { "type": "string", "description": "the car's title; empty in a thread about the shop" },
        "buyer": { "type": "string", "description": "the buyer's nickname" }, "from": { "type": "string", "enum": ["buyer", "shop"] },
        "text": { "type": "string", "description": "as written; in a buyer's message, phone numbers and WeChat ids are masked until both sides have written in the thread" },
        "masked": { "type": "boolean" }, "photo": { "type": ["string", "null"] }, "url": { "type": "string", "description": "the thread in the dealer centre, to answer there" },
        "createdAt": { "type": "string" },
        "writerMemberId": { "type": ["integer", "null"], "description": "the member of the shop's desk (店员) who wrote this answer; null for the buyer's messages and the owner's" },
        "writerName": { "type": ["string", "null"], "description": "that member's name at the desk" },
        "holder": holder },
        "example": { "id": 812, "threadId": 57, "listingId": 1024, "car": "宝马X3 2020款 xDrive28i 豪华套装", "buyer": "王先生", "from": "buyer",
            "text": "请问这台车可以周六去看吗？电话 138****", "masked": true, "photo": null, "url": "/space/messages/57", "createdAt": "2026-12-04T10:15:00+08:00",
            "writerMemberId": null, "writerName": null, "holder": { "heldBy": "member", "memberId": 233, "memberName": "王磊" } } });
    out.insert(
        "/api/dealer/v1/messages".to_owned(),
        json!({ "get": with(op("messagesList", "Messages in the shop's threads after message `after`, oldest first; `next` is the id to ask after next", "200",
                &json!({ "type": "object", "properties": { "items": { "type": "array", "items": message }, "next": { "type": "integer" } } }), &[bad]),
            "parameters", json!([
                { "name": "after", "in": "query", "required": false, "description": "the last message id you have; absent: from the first", "schema": { "type": "integer", "minimum": 0, "maximum": 9_223_372_036_854_775_807_i64 } },
                { "name": "limit", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 100 } } ])) }),
    );
    out.insert(
        "/api/dealer/v1/messages/{id}/reply".to_owned(),
        json!({ "post": with(with(op("messageReply", "The shop answers in one of its threads (id: threadId); the buyer is told as on the site. Answers the message written", "201", &message,
                    &[bad, ("400", "The body is no JSON object: CM001."), ("404", "No such thread of this shop: CM004."), ("403", "The key lacks the scope, or the shop may not write messages: CM005."), ("429", "The shop's messages a minute (10) or an hour (120) are used, or the key's calls: CM006.")]),
                "parameters", json!([id_param()])),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["text"], "properties": {
                    "text": { "type": "string", "minLength": 1, "maxLength": 1000, "pattern": "\\S", "description": "at most 1,000 characters; markup is kept as text" } } },
                    "example": { "text": "您好，周六上午可以来看车，地址在店铺主页。" } } } })) }),
    );
    out.insert(
        "/api/dealer/v1/messages/{id}/assign".to_owned(),
        json!({ "post": with(with(op("messageAssign", "The owner gives one of the shop's threads (id: threadId) to a member of its desk, takes it, or leaves it to no one, as on the thread's page; a member given it is told by SMS. Answers who holds it (with threadId)", "200", &holder,
                    &[("422", "`to` is none of a member's id, \"owner\" or null: CM001."), ("409", "`to` names no member of the shop's desk: CM001, said beside `to`."), ("400", "The body is no JSON object: CM001."), ("404", "No such thread of this shop: CM004."), ("403", "The key lacks messages:write: CM005.")]),
                "parameters", json!([id_param()])),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["to"], "properties": {
                    "to": { "oneOf": [{ "type": "integer", "minimum": 1, "maximum": 9_223_372_036_854_775_807_i64, "description": "a member's id" }, { "type": "string", "enum": ["owner"] }, { "type": "null", "description": "no one: 未分配" }] } } },
                    "example": { "to": 233 } } } })) }),
    );
    let member = json!({ "type": "object", "required": ["id", "name", "mobile", "holding", "signedIn", "addedAt"], "properties": {
        "id": { "type": "integer", "description": "to give a thread to (messages/{id}/assign)" }, "name": { "type": "string" },
        "mobile": { "type": "string", "description": "masked: 139****0000" }, "holding": { "type": "integer", "description": "threads they hold now" },
        "signedIn": { "type": "boolean", "description": "whether they have signed in since they were added" }, "addedAt": { "type": "string" } },
        "example": { "id": 233, "name": "王磊", "mobile": "159****0000", "holding": 3, "signedIn": true, "addedAt": "2026-11-20T09:30:00+08:00" } });
    out.insert(
        "/api/dealer/v1/members".to_owned(),
        json!({ "get": op("membersList", "The members of the shop's desk (店员), added in the dealer centre (/space/shop-members), in the order added (needs messages:read)", "200",
                &json!({ "type": "object", "properties": { "items": { "type": "array", "items": member } } }), &[]) }),
    );
    let reservation = json!({ "type": "object", "required": ["id", "listingId", "state", "depositYuan", "buyerConfirmed", "shopConfirmed", "createdAt", "updatedAt"], "properties": {
        "id": { "type": "integer" }, "listingId": { "type": "integer" }, "car": { "type": "string" },
        "state": { "type": "string", "enum": ["pending", "held", "sold", "refunded", "cancelled"] }, "stateLabel": { "type": "string" },
        "depositYuan": { "type": "integer" }, "buyerConfirmed": { "type": "boolean" }, "shopConfirmed": { "type": "boolean" },
        "ending": { "type": ["string", "null"], "description": "why a held deposit went back" }, "paidAt": { "type": ["string", "null"] },
        "deadline": { "type": ["string", "null"], "description": "when a held deposit stops holding the car" },
        "mismatch": { "type": "string", "description": "what the buyer reported differs from the statement" },
        "url": { "type": "string" }, "createdAt": { "type": "string" }, "updatedAt": { "type": "string", "description": "its last move" } },
        "example": { "id": 31, "listingId": 1024, "car": "宝马X3 2020款 xDrive28i 豪华套装", "state": "held", "stateLabel": "已预订", "depositYuan": 2000,
            "buyerConfirmed": false, "shopConfirmed": false, "ending": null, "paidAt": "2026-12-03T18:02:11+08:00", "deadline": "2026-12-06T18:02:11+08:00",
            "mismatch": "", "url": "/space/reservations/31", "createdAt": "2026-12-03T18:01:40+08:00", "updatedAt": "2026-12-03T18:02:11+08:00" } });
    out.insert(
        "/api/dealer/v1/reservations".to_owned(),
        json!({ "get": with(op("reservationsList", "Reservations of the shop's cars made or moved after `since` (or after the previous page: `after`), the least recently moved first; `next` is the `after` of the next page", "200",
                &json!({ "type": "object", "properties": { "items": { "type": "array", "items": reservation }, "next": next_position() } }), &[bad]),
            "parameters", json!([
                { "name": "since", "in": "query", "required": false, "description": "Unix seconds or RFC 3339: that second included (de-duplicate by id); absent: from the first", "schema": instant() },
                after_position(),
                { "name": "limit", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 100 } } ])) }),
    );
    out.insert(
        "/api/dealer/v1/reservations/{id}/confirm".to_owned(),
        json!({ "post": with(op("reservationConfirm", "The shop confirms the sale of a held reservation (the deposit is paid on to the shop once the buyer confirms too); again once done changes nothing", "200", &reservation,
                &[("404", "No such reservation of this shop's cars: CM004."), ("409", "Not held (not paid yet, ended, or its refund under way): CM001, data is the reservation.")]),
            "parameters", json!([id_param()])) }),
    );
    let hook = json!({ "type": "object", "required": ["id", "url", "events", "paused", "waiting", "createdAt"], "properties": {
        "id": { "type": "integer" }, "url": { "type": "string" },
        "events": { "type": "array", "items": { "type": "string", "enum": domain::webhook::Event::ALL.map(domain::webhook::Event::as_str) } },
        "paused": { "type": "boolean", "description": "paused after a day of failed deliveries; its events wait until it is resumed" },
        "pauseReason": { "type": "string" }, "failingSince": { "type": ["string", "null"], "description": "its first failure since the last success" },
        "waiting": { "type": "integer", "description": "deliveries not yet made" }, "createdAt": { "type": "string" },
        "secret": { "type": "string", "description": "only in the answer that made it: the key of each delivery's X-Usedcar-Signature" } },
        "example": { "id": 3, "url": "https://dms.example.com/hooks/usedcar", "events": ["lead.created", "message.received"], "paused": false, "pauseReason": "",
            "failingSince": null, "waiting": 0, "createdAt": "2026-12-04T10:15:00+08:00", "secret": "whsec_5f1c0e9a2b7d4c3e8f6a1b2c3d4e5f60718293a4b5c6d7e8" } });
    let new_hook = json!({ "type": "object", "required": ["url", "events"], "properties": {
        "url": { "type": "string", "maxLength": 500, "description": "https, on the public internet; redirects are not followed" },
        "events": { "type": "array", "minItems": 1, "maxItems": 7, "items": { "type": "string", "enum": domain::webhook::Event::ALL.map(domain::webhook::Event::as_str) } } },
        "example": { "url": "https://dms.example.com/hooks/usedcar", "events": ["lead.created", "message.received", "reservation.made"] } });
    out.insert(
        "/api/dealer/v1/webhooks".to_owned(),
        json!({
            "get": op("webhooksList", "The shop's webhooks", "200", &json!({ "type": "object", "properties": { "items": { "type": "array", "items": hook } } }), &[]),
            "post": with(op("webhookCreate", "Adds a webhook; its signing secret is answered this once. Each delivery is a POST of {id, type, created, shop_id, data} with X-Usedcar-Event, X-Usedcar-Delivery (the same over retries: drop one seen before) and X-Usedcar-Signature: t={unix seconds},v1={hex HMAC-SHA256 of \"{t}.{body}\" under the secret}; refuse a t more than 300 s from now. A 2xx answer within 10 s delivers it; otherwise it is tried again after 1, 5 and 30 minutes, 2 hours and every 6 hours; a hook failing for a day is paused", "201", &hook,
                    &[bad, ("400", "The body is no JSON object: CM001."), ("409", "The shop has this address already: CM001, data is that hook (without its secret).")]),
                "requestBody", json!({ "required": true, "content": { "application/json": { "schema": new_hook } } })),
        }),
    );
    out.insert(
        "/api/dealer/v1/webhooks/{id}/{action}".to_owned(),
        json!({ "post": with(op("webhookAction", "Removes a webhook (delete), or resumes a paused one (resume: what waited is sent first)", "200", &hook, &[("404", "No such webhook of this shop, or no such action: CM004.")]),
            "parameters", json!([id_param(), { "name": "action", "in": "path", "required": true, "schema": { "type": "string", "enum": ["delete", "resume"] } }])) }),
    );
    out
}
