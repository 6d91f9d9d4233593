//! The dealer API on both databases: a shop's keys (made in the dealer centre and shown once,
//! scoped, limited, logged, revoked at once, another shop's untouchable), the stock (photos
//! through the pipeline, a create checked like the form and made once however often it is
//! retried, another shop's cars not found, take down with `If-Match`), and leads (masked until
//! marked contacted), messages (masked until both sides wrote) and reservations (a sale
//! confirmed once); a car's statement of condition and damage marks written by key with the
//! site's checks; the shop's desk (who holds each thread, its members, a thread given to one);
//! and the leads desk's download of a date range.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{NOW, Reply, TestApp, jpeg, login, owner_mobile, post_on, send_body, send_method};

on_both!(10 =>
    a_shops_key_is_shown_once_scoped_limited_logged_and_revoked,
    a_car_created_by_api_is_checked_like_the_form_and_made_once,
    leads_are_read_masked_and_opened_when_marked_contacted,
    the_leads_desk_downloads_a_date_range_as_csv_masked_until_opened,
    messages_and_reservations_are_read_and_a_sale_confirmed_by_key,
    a_photo_is_fetched_by_its_address_and_never_from_inside,
    a_shop_answers_a_buyer_by_key_under_the_sites_rules,
    a_shops_desk_is_read_and_its_threads_given_out_by_key,
    a_cars_condition_is_written_by_key_as_on_the_site,
);

/// Makes a key on the dealer centre's page: its secret (read off the page that shows it once).
pub(crate) async fn make_key(app: &TestApp, cookie: &str, name: &str, scopes: &[&str]) -> String {
    let mut form = format!("name={}", form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>());
    for s in scopes {
        form.push_str(&format!("&scope={}", form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()));
    }
    let r = app.post_form("/space/api-keys", &[("cookie", cookie)], &form).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.headers["cache-control"].to_str().unwrap().contains("no-store"), "the page with the secret is never cached");
    let secret = r.page().texts(".key-secret code").concat();
    assert!(domain::dealer_api::looks_like_key(&secret), "{secret}");
    secret
}

pub(crate) async fn call(app: &TestApp, method: &str, uri: &str, key: &str, extra: &[(&str, &str)], body: Option<Value>) -> Reply {
    let bearer = format!("Bearer {key}");
    let mut h = vec![("authorization", bearer.as_str())];
    h.extend_from_slice(extra);
    if method == "GET" {
        app.get(uri, &h).await
    } else {
        let bytes = body.map_or_else(Vec::new, |b| b.to_string().into_bytes());
        send_body(app.router(), uri, &h, "application/json", bytes).await
    }
}

/// The user who owns a shop.
async fn owner_user(app: &TestApp, shop_id: i64) -> i64 {
    app.state.store.user_by_mobile(&owner_mobile(app, shop_id).await).await.unwrap().unwrap().user_id
}

/// The shop with the most cars in the demo.
async fn stocked_shop(app: &TestApp) -> i64 {
    app.state.store.count_admin("select shop_id from listing where shop_id is not null group by shop_id order by count(*) desc, shop_id limit 1").await.unwrap()
}

async fn a_shops_key_is_shown_once_scoped_limited_logged_and_revoked(app: &TestApp) {
    let shop_id = stocked_shop(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let d = [("cookie", dealer.as_str())];
    let page = app.get("/space/api-keys", &d).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("开放接口") && page.body.contains(r#"href="/space/api-keys" aria-current="page""#));
    // Without a name or a scope: both said beside their fields, the name kept.
    let r = app.post_form("/space/api-keys", &d, "name=").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("请给密钥起个名字") && r.body.contains("请至少选择一项权限"), "{}", r.body);
    let r = app.post_form("/space/api-keys", &d, "name=%E5%BA%93%E5%AD%98%3Cb%3E").await;
    assert!(r.page().one("#key-name").attr("value") == Some("库存<b>") && r.body.contains("请至少选择一项权限"));
    let key = make_key(app, &dealer, "ERP主系统", &["stock:read"]).await;
    // Shown once: the page afterwards names it by its prefix only.
    let again = app.get("/space/api-keys", &d).await;
    assert!(!again.body.contains(&key) && again.body.contains(&key[..12]) && again.body.contains("读取库存"));
    assert_eq!(
        app.state.store.count_admin(&format!("select count(*) from api_key where secret_hash = '{}'", domain::dealer_api::secret_hash(&key))).await.unwrap(),
        1
    );
    assert_eq!(
        app.state.store.count_admin(&format!("select count(*) from api_key where secret_hash = '{key}' or prefix = '{key}'")).await.unwrap(),
        0,
        "never kept in clear"
    );

    // Without a key, with a made-up one or a malformed one: 401 in the envelope, in Chinese.
    for auth in [None, Some(format!("Bearer {}", domain::dealer_api::new_secret(&[7; 20]))), Some("Bearer nonsense".to_owned()), Some(format!("Basic {key}"))] {
        let h: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
        let r = app.get("/api/dealer/v1/stock", &h).await;
        assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("CM002")), "{auth:?}");
        assert!(r.json()["msg"].as_str().unwrap().contains("密钥"));
    }
    // The key reads its shop's stock, and only that.
    let r = call(app, "GET", "/api/dealer/v1/stock?per_page=100", &key, &[], None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let items = r.json()["data"]["items"].as_array().unwrap().clone();
    let own = app.state.store.count_admin(&format!("select count(*) from listing where shop_id = {shop_id}")).await.unwrap();
    assert!(!items.is_empty() && r.json()["data"]["total"] == own, "{}", r.body);
    for it in &items {
        assert_eq!(
            app.state.store.count_admin(&format!("select count(*) from listing where listing_id = {} and shop_id = {shop_id}", it["id"])).await.unwrap(),
            1
        );
    }
    // A page at a time, by last change.
    let first = call(app, "GET", "/api/dealer/v1/stock?per_page=1&page=1", &key, &[], None).await.json()["data"]["items"][0]["id"].clone();
    let second = call(app, "GET", "/api/dealer/v1/stock?per_page=1&page=2", &key, &[], None).await.json()["data"]["items"].clone();
    assert!(own < 2 || (second[0]["id"] != first && second.as_array().unwrap().len() == 1));
    // Scopes: a stock:read key may not write, nor read leads.
    let r = call(app, "POST", "/api/dealer/v1/stock", &key, &[("idempotency-key", "k1")], Some(json!({}))).await;
    assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::FORBIDDEN, Some("CM005")));
    assert!(r.json()["msg"].as_str().unwrap().contains("发布和修改车源"));
    assert_eq!(call(app, "GET", "/api/dealer/v1/leads", &key, &[], None).await.status, StatusCode::FORBIDDEN);
    // Bad parameters: named, in Chinese.
    let r = call(app, "GET", "/api/dealer/v1/stock?per_page=0&updated_since=yesterday", &key, &[], None).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.json()["data"]["errors"]["per_page"].is_string() && r.json()["data"]["errors"]["updated_since"].as_str().unwrap().contains("RFC 3339"));

    // Every call is logged with its key; the page lists them.
    let page = app.get("/space/api-keys", &d).await;
    assert!(page.body.contains("GET /api/dealer/v1/stock") && page.body.contains("<td>403</td>") && page.body.contains("24小时内调用"), "{}", page.body);

    // Another dealer cannot revoke it; a buyer cannot see the page.
    let id = app.state.store.api_keys(shop_id, NOW).await.unwrap()[0].api_key_id;
    let rival = login(app, &owner_mobile(app, if shop_id == 2 { 3 } else { 2 }).await, "").await;
    assert_eq!(app.post_form(&format!("/space/api-keys/{id}/revoke"), &[("cookie", &rival)], "").await.status, StatusCode::NOT_FOUND);
    assert!(!app.get("/space/api-keys", &[("cookie", &rival)]).await.body.contains("ERP主系统"));
    let buyer = login(app, "13712380001", "").await;
    assert_eq!(app.get("/space/api-keys", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);

    // The limit: 120 calls a minute per key, then 429 with Retry-After (another key unaffected).
    let other = make_key(app, &dealer, "第二个系统", &["stock:read", "leads:read"]).await;
    let mut refused = None;
    for n in 0..200 {
        let r = call(app, "GET", "/api/dealer/v1/stock?per_page=1", &key, &[], None).await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some((n, r));
            break;
        }
    }
    let (n, r) = refused.expect("the limit holds");
    assert!(n < app.state.config.dealer_api.calls_per_minute as usize, "refused after {n} more calls");
    assert_eq!(r.json()["code"], "CM006");
    assert!(r.headers.contains_key("retry-after"));
    assert_eq!(call(app, "GET", "/api/dealer/v1/stock?per_page=1", &other, &[], None).await.status, StatusCode::OK);

    // Revoked: refused at once, and listed as revoked.
    let r = app.post_form(&format!("/space/api-keys/{id}/revoke"), &d, "").await;
    assert_eq!(r.location(), "/space/api-keys?revoked=1");
    assert_eq!(call(app, "GET", "/api/dealer/v1/stock", &key, &[], None).await.status, StatusCode::UNAUTHORIZED);
    assert!(app.get("/space/api-keys?revoked=1", &d).await.body.contains("已吊销"));
    assert_eq!(app.post_form(&format!("/space/api-keys/{id}/revoke"), &d, "").await.status, StatusCode::NOT_FOUND, "a revoked key stays revoked");
}

/// A VIN with its check digit right.
fn vin(body: &str) -> String {
    let mut v: Vec<char> = body.chars().collect();
    v[8] = '0';
    let digit = domain::validate::vin_check_digit(&v.iter().collect::<String>()).unwrap();
    v[8] = digit;
    v.into_iter().collect()
}

async fn patch(app: &TestApp, key: &str, id: i64, if_match: Option<&str>, body: Value) -> Reply {
    let bearer = format!("Bearer {key}");
    let mut h = vec![("authorization", bearer.as_str())];
    h.extend(if_match.map(|e| ("if-match", e)));
    send_method(app.router(), Method::PATCH, &format!("/api/dealer/v1/stock/{id}"), &h, "application/json", body.to_string().into_bytes()).await
}

async fn upload(app: &TestApp, key: &str, bytes: Vec<u8>) -> Reply {
    let bearer = format!("Bearer {key}");
    send_body(app.router(), "/api/dealer/v1/photos", &[("authorization", bearer.as_str())], "image/jpeg", bytes).await
}

async fn a_car_created_by_api_is_checked_like_the_form_and_made_once(app: &TestApp) {
    let dealer = login(app, &owner_mobile(app, 1).await, "").await;
    let key = make_key(app, &dealer, "库存系统", &["stock:read", "stock:write"]).await;
    // Photos through the pipeline: a broken file refused in Chinese, good ones answered with ids.
    let r = upload(app, &key, b"not a photo at all".to_vec()).await;
    assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("CM001")), "{}", r.body);
    assert!(r.json()["msg"].as_str().unwrap().chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)));
    let mut photos = Vec::new();
    for shade in [10, 90, 170] {
        let r = upload(app, &key, jpeg(1200, 900, shade)).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        photos.push(r.json()["data"]["id"].as_str().unwrap().to_owned());
    }
    let series = domain::catalog::series().iter().find(|s| s.engines.len() > 1).unwrap();
    let car = json!({
        "series": series.slug, "firstRegistration": "2021-03", "mileage": "3.2", "price": 18.8, "city": "changsha", "colour": "white",
        "transfers": 0, "gearbox": "2", "emission": "6", "vin": vin("LBV5S3100LSN12345"), "description": "4S店保养，车况精品",
        "contact": owner_mobile(app, 1).await, "modelYear": "2021", "displacement": series.engines[1], "trim": "豪华版", "photos": photos,
    });
    let before = app.state.store.count_admin("select count(*) from listing where shop_id = 1").await.unwrap();
    // No idempotency key: refused before anything.
    let r = call(app, "POST", "/api/dealer/v1/stock", &key, &[], Some(car.clone())).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.json()["data"]["errors"]["Idempotency-Key"].is_string());
    // The form's checks, each field named as the API names it.
    let mut wrong = car.clone();
    wrong["firstRegistration"] = json!("2031-01");
    wrong["price"] = json!("abc");
    wrong["vin"] = json!("LBV5S3100LSN1234O");
    wrong["photos"] = json!([photos[0], "nope"]);
    wrong.as_object_mut().unwrap().remove("trim");
    let r = call(app, "POST", "/api/dealer/v1/stock", &key, &[("idempotency-key", "car-1")], Some(wrong)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    let errors = r.json()["data"]["errors"].clone();
    for field in ["firstRegistration", "price", "vin", "photos", "trim"] {
        assert!(errors[field].is_string(), "{field}: {errors}");
    }
    assert!(errors["photos"].as_str().unwrap().contains("nope"));
    let r = send_body(
        app.router(),
        "/api/dealer/v1/stock",
        &[("authorization", &format!("Bearer {key}")), ("idempotency-key", "car-1")],
        "application/json",
        b"[1,2".to_vec(),
    )
    .await;
    assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::BAD_REQUEST, Some("CM001")));
    assert_eq!(app.state.store.count_admin("select count(*) from listing where shop_id = 1").await.unwrap(), before, "nothing half-made");

    // Made once: the retry answers the same car, a different body under the key is refused.
    let made = call(app, "POST", "/api/dealer/v1/stock", &key, &[("idempotency-key", "car-1")], Some(car.clone())).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let d = made.json()["data"].clone();
    assert_eq!((d["status"].as_str(), d["priceYuan"].as_i64(), d["photos"].as_array().map(Vec::len)), (Some("pending"), Some(188_000), Some(3)));
    assert!(d["title"].as_str().unwrap().contains("豪华版") && d["url"] == "", "{d}");
    let id = d["id"].as_i64().unwrap();
    assert_eq!((&d["disclosure"], &d["damageMarks"]), (&Value::Null, &json!([])), "no statement or marks yet: {d}");
    // The statement of condition and the damage marks made on the site are read with the car.
    use domain::disclosure::{Answer, Check, Item, Statement};
    let said = [(Statement { item: Item::Structural, answer: Answer::No, note: String::new() }, Check::Unverified)];
    app.state.store.add_disclosure(id, &said, owner_user(app, 1).await, NOW).await.unwrap();
    let mark =
        domain::damage::Mark { area: domain::damage::Area::Left, kind: domain::damage::Kind::Scratch, x: 30, y: 40, note: "左后门轻微划痕".into() };
    let added = app.state.store.add_damage_mark(id, owner_user(app, 1).await, &mark, "p/202612/mark.webp", NOW).await.unwrap();
    assert!(matches!(added, store::MarkAdded::Added(_)), "{added:?}");
    let read = call(app, "GET", &format!("/api/dealer/v1/stock/{id}"), &key, &[], None).await.json()["data"].clone();
    let item = &read["disclosure"]["items"][0];
    // The mark made the statement's second version (a statement lists the marks it was made with).
    assert_eq!(
        (read["disclosure"]["version"].as_i64(), item["item"].as_str(), item["answer"].as_str(), item["check"].as_str()),
        (Some(2), Some("structural"), Some("no"), Some("unverified")),
        "{read}"
    );
    assert_eq!((item["itemLabel"].as_str(), item["checkLabel"].as_str()), (Some("结构件事故"), Some("未核查")));
    let m = &read["damageMarks"][0];
    assert_eq!(
        (m["area"].as_str(), m["areaLabel"].as_str(), m["kindLabel"].as_str(), m["x"].as_i64(), m["note"].as_str()),
        (Some("left"), Some("左侧"), Some("划痕"), Some(30), Some("左后门轻微划痕"))
    );
    assert!(m["photo"].as_str().unwrap().ends_with("p/202612/mark.webp"), "{m}");
    for _ in 0..2 {
        let again = call(app, "POST", "/api/dealer/v1/stock", &key, &[("idempotency-key", "car-1")], Some(car.clone())).await;
        assert_eq!((again.status, again.json()["data"]["id"].as_i64()), (StatusCode::OK, Some(id)), "{}", again.body);
        assert_eq!(again.headers["idempotent-replayed"], "true");
    }
    let mut cheaper = car.clone();
    cheaper["price"] = json!(17.8);
    let r = call(app, "POST", "/api/dealer/v1/stock", &key, &[("idempotency-key", "car-1")], Some(cheaper.clone())).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(app.state.store.count_admin("select count(*) from listing where shop_id = 1").await.unwrap(), before + 1, "one car");
    // A new key with the same VIN meets the one-live-listing rule.
    let r = call(app, "POST", "/api/dealer/v1/stock", &key, &[("idempotency-key", "car-2")], Some(cheaper)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.json()["data"]["errors"]["vin"], domain::selling::VIN_LISTED);

    // It reads back by id and in the changes since before it was made.
    let one = call(app, "GET", &format!("/api/dealer/v1/stock/{id}"), &key, &[], None).await;
    assert_eq!(one.json()["data"]["vin"], car["vin"]);
    let etag = one.headers["etag"].to_str().unwrap().to_owned();
    // `updated_since` includes its own second: a client asking from the last change it holds
    // misses nothing changed later within that second.
    let since = call(app, "GET", &format!("/api/dealer/v1/stock?updated_since={NOW}"), &key, &[], None).await;
    assert!(since.json()["data"]["items"].as_array().unwrap().iter().any(|i| i["id"] == id), "{}", since.body);
    let later = call(app, "GET", &format!("/api/dealer/v1/stock?updated_since={}", NOW + 1), &key, &[], None).await;
    assert!(!later.json()["data"]["items"].as_array().unwrap().iter().any(|i| i["id"] == id), "{}", later.body);

    // Another shop's key finds nothing of it.
    let rival = login(app, &owner_mobile(app, 2).await, "").await;
    let theirs = make_key(app, &rival, "对手", &["stock:read", "stock:write"]).await;
    assert_eq!(call(app, "GET", &format!("/api/dealer/v1/stock/{id}"), &theirs, &[], None).await.status, StatusCode::NOT_FOUND);
    assert_eq!(call(app, "POST", &format!("/api/dealer/v1/stock/{id}/take-down"), &theirs, &[], None).await.status, StatusCode::NOT_FOUND);
    assert!(!call(app, "GET", "/api/dealer/v1/stock?per_page=100", &theirs, &[], None).await.body.contains(&format!("\"id\":{id},")));

    // A change: If-Match required, a stale version refused with nothing written, a wrong field
    // named; the right version changes what was given and moves the version on.
    assert_eq!(patch(app, &key, id, None, json!({ "price": 17.6 })).await.status, StatusCode::PRECONDITION_REQUIRED);
    assert_eq!(patch(app, &key, id, Some("\"1\""), json!({ "price": 17.6 })).await.status, StatusCode::PRECONDITION_FAILED);
    let r = patch(app, &key, id, Some(&etag), json!({ "city": null, "description": 5, "photos": "x" })).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "a field of the wrong kind is named, not taken as empty");
    assert_eq!(r.json()["data"]["errors"].as_object().map(|e| e.len()), Some(3), "{}", r.body);
    let r = patch(app, &key, id, Some(&etag), json!({ "price": "abc", "description": "改了" })).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.json()["data"]["errors"]["price"].is_string());
    let r = patch(app, &key, id, Some(&etag), json!({ "price": 17.6, "description": "一手车，新换轮胎" })).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let d = r.json()["data"].clone();
    assert_eq!(
        (d["priceYuan"].as_i64(), d["description"].as_str(), d["vin"].clone()),
        (Some(176_000), Some("一手车，新换轮胎"), car["vin"].clone()),
        "the rest kept"
    );
    let newer = r.headers["etag"].to_str().unwrap().to_owned();
    assert_ne!(newer, etag, "a change moves the version on, even within the second");
    let r = patch(app, &key, id, Some(&etag), json!({ "price": 16.6 })).await;
    assert_eq!(r.status, StatusCode::PRECONDITION_FAILED, "a second writer holding the old version loses nothing of the first's");
    assert_eq!(call(app, "GET", &format!("/api/dealer/v1/stock/{id}"), &key, &[], None).await.json()["data"]["priceYuan"], 176_000);
    let etag = newer;

    // Take down: a stale version refused, the right one done, again changes nothing.
    let r = call(app, "POST", &format!("/api/dealer/v1/stock/{id}/take-down"), &key, &[("if-match", "\"1\"")], None).await;
    assert_eq!(r.status, StatusCode::PRECONDITION_FAILED);
    let r = call(app, "POST", &format!("/api/dealer/v1/stock/{id}/take-down"), &key, &[("if-match", etag.as_str())], None).await;
    assert_eq!((r.status, r.json()["data"]["status"].as_str()), (StatusCode::OK, Some("removed")), "{}", r.body);
    let r = call(app, "POST", &format!("/api/dealer/v1/stock/{id}/take-down"), &key, &[], None).await;
    assert_eq!((r.status, r.json()["data"]["status"].as_str()), (StatusCode::OK, Some("removed")));
    let r = call(app, "POST", &format!("/api/dealer/v1/stock/{id}/mark-sold"), &key, &[], None).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "a car taken down is not sold: {}", r.body);
    assert_eq!(call(app, "POST", &format!("/api/dealer/v1/stock/{id}/polish"), &key, &[], None).await.status, StatusCode::NOT_FOUND);
}

async fn leads_are_read_masked_and_opened_when_marked_contacted(app: &TestApp) {
    let oname = app.state.store.shop_oname(1).await.unwrap();
    let ok = app.post_form(&format!("/shop/{oname}/sellCar"), &[], "mobile=13955551234&car=2018%E6%AC%BE%E6%9C%97%E9%80%B8").await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    let dealer = login(app, &owner_mobile(app, 1).await, "").await;
    let key = make_key(app, &dealer, "线索同步", &["leads:read"]).await;
    let r = call(app, "GET", "/api/dealer/v1/leads?limit=100", &key, &[], None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let lead = r.json()["data"]["items"].as_array().unwrap().iter().find(|l| l["phone"] == "139****1234").cloned().expect("the new lead, masked");
    assert!(!r.body.contains("13955551234"));
    let id = lead["id"].as_i64().unwrap();
    // Reading on from `next` gives nothing older; a page at a time, every lead comes once, those
    // of one second too (the test's clock stands still: every lead here came in at one second).
    let all: Vec<i64> = r.json()["data"]["items"].as_array().unwrap().iter().map(|l| l["id"].as_i64().unwrap()).collect();
    let next = r.json()["data"]["next"].as_str().unwrap().to_owned();
    let later = call(app, "GET", &format!("/api/dealer/v1/leads?after={next}"), &key, &[], None).await;
    assert!(later.json()["data"]["items"].as_array().unwrap().is_empty(), "{}", later.body);
    let (mut paged, mut after) = (Vec::new(), String::new());
    loop {
        let page = call(app, "GET", &format!("/api/dealer/v1/leads?limit=2{after}"), &key, &[], None).await;
        let items = page.json()["data"]["items"].as_array().cloned().unwrap();
        if items.is_empty() {
            break;
        }
        paged.extend(items.iter().map(|l| l["id"].as_i64().unwrap()));
        after = format!("&after={}", page.json()["data"]["next"].as_str().unwrap());
    }
    assert!(all.len() >= 3 && paged == all, "two at a time: {paged:?}, at once: {all:?}");
    // `since` includes its own second: polling from the last createdAt held misses nothing that
    // came in later within it (the client de-duplicates by id).
    let same_second = call(app, "GET", &format!("/api/dealer/v1/leads?since={NOW}&limit=100"), &key, &[], None).await;
    let again: Vec<i64> = same_second.json()["data"]["items"].as_array().unwrap().iter().map(|l| l["id"].as_i64().unwrap()).collect();
    // Only the lead that came in at the test's second (the others are the demo's, older); before,
    // `since` of that second answered none of it.
    assert_eq!(again, [id], "{}", same_second.body);
    assert_eq!(call(app, "GET", "/api/dealer/v1/leads?after=2026-12-01", &key, &[], None).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    // Marked contacted: opened (its number answered), as on the leads desk.
    let r = call(app, "POST", &format!("/api/dealer/v1/leads/{id}/contacted"), &key, &[], None).await;
    assert_eq!((r.json()["data"]["status"].as_str(), r.json()["data"]["phone"].as_str()), (Some("contacted"), Some("13955551234")), "{}", r.body);
    assert_eq!(app.state.store.lead_openings(id).await.unwrap(), 1);
    // Another shop's key: not found.
    let rival = login(app, &owner_mobile(app, 2).await, "").await;
    let theirs = make_key(app, &rival, "对手", &["leads:read"]).await;
    let r = call(app, "POST", &format!("/api/dealer/v1/leads/{id}/contacted"), &theirs, &[], None).await;
    assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::NOT_FOUND, Some("CM004")));
    assert!(!call(app, "GET", "/api/dealer/v1/leads?limit=100", &theirs, &[], None).await.body.contains("139****1234"));
}

async fn the_leads_desk_downloads_a_date_range_as_csv_masked_until_opened(app: &TestApp) {
    let oname = app.state.store.shop_oname(1).await.unwrap();
    let formula = form_urlencoded::byte_serialize("=HYPERLINK(\"http://x.example\",\"点我\")".as_bytes()).collect::<String>();
    for (mobile, car) in [("13955557777", formula.as_str()), ("13955558888", "2019%E6%AC%BE%E6%9C%97%E9%80%B8%2C%E8%87%AA%E5%8A%A8")] {
        let r = app.post_form(&format!("/shop/{oname}/sellCar"), &[], &format!("mobile={mobile}&car={car}")).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    }
    let dealer = login(app, &owner_mobile(app, 1).await, "").await;
    let d = [("cookie", dealer.as_str())];
    let owner = app.state.store.user_by_mobile(&owner_mobile(app, 1).await).await.unwrap().unwrap().user_id;
    let opened = app.state.store.shop_leads(owner, None, 50).await.unwrap().into_iter().find(|l| l.mobile == "13955557777").unwrap().lead_id;
    assert_eq!(app.post_form("/actives/zhikeclues", &d, &format!("id={opened}&action=open")).await.status, StatusCode::SEE_OTHER);

    // The desk offers the last seven days.
    let today = domain::time::date(NOW);
    let desk = app.get("/actives/zhikeclues", &d).await.page();
    assert_eq!(desk.one("#export-to").attr("value"), Some(today.as_str()));
    assert_eq!(desk.one("#export-from").attr("value"), Some(domain::time::date(NOW - 6 * 86_400).as_str()));

    let r = app.get(&format!("/actives/zhikeclues/export?from={today}&to={today}"), &d).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["content-type"], "text/csv; charset=utf-8");
    assert!(r.headers["content-disposition"].to_str().unwrap().contains(&format!("leads-{today}-{today}.csv")));
    assert!(r.body.starts_with('\u{feff}'), "a byte-order mark, so Excel reads UTF-8");
    let lines: Vec<&str> = r.body.trim_start_matches('\u{feff}').split("\r\n").collect();
    assert!(lines[0].starts_with("线索编号,时间,类型"), "{}", lines[0]);
    let line = |mobile_shown: &str| lines.iter().find(|l| l.contains(mobile_shown)).copied().unwrap_or_else(|| panic!("{mobile_shown} in {}", r.body));
    // Opened: the number in full; its formula made text (a leading quote, quoted for its comma).
    let first = line("13955557777");
    assert!(first.contains("\"'=HYPERLINK(") && first.contains(",已查看,"), "{first}");
    // Not opened: masked, and said so; a comma in a cell is quoted.
    let second = line("139****8888");
    assert!(second.contains("未查看，已隐藏") && second.contains("\"2019款朗逸,自动\""), "{second}");
    assert!(!r.body.contains("13955558888"));
    // A buyer's online question follows, its number masked while the shop has not answered.
    let car = app.state.store.count_admin("select min(listing_id) from listing where status = 'online'").await.unwrap();
    app.state.store.execute_admin(&format!("update listing set shop_id = 1 where listing_id = {car}")).await.unwrap();
    let buyer = app.state.store.user_by_mobile(&owner_mobile(app, 2).await).await.unwrap().unwrap().user_id;
    let store::Asked::Thread(thread) = app.state.store.ask_about(car, buyer, "还在吗？我电话13812345678\n第二行", NOW).await.unwrap() else {
        panic!("no thread")
    };
    let r = app.get(&format!("/actives/zhikeclues/export?from={today}&to={today}"), &d).await;
    let asked = r.body.split("\r\n").find(|l| l.starts_with(&format!("咨询{thread},"))).unwrap_or_else(|| panic!("the question in {}", r.body)).to_owned();
    assert!(asked.contains(",在线咨询,") && asked.contains(domain::message::HIDDEN) && asked.contains(",未回复,"), "{asked}");
    assert!(!r.body.contains("13812345678") && !r.body.contains("第二行"), "masked, its first line only: {asked}");

    // The same as an Excel workbook: every cell text (a number stays a number's digits, a
    // formula is a string, not run), the same masking.
    let r = app.get(&format!("/actives/zhikeclues/export?from={today}&to={today}&format=xlsx"), &d).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["content-type"], web::render::download::XLSX);
    assert!(r.headers["content-disposition"].to_str().unwrap().contains(&format!("leads-{today}-{today}.xlsx")));
    let cells = workbook_cells(&r.raw);
    assert_eq!(cells[0][..3], ["线索编号", "时间", "类型"]);
    let row = |shown: &str| cells.iter().find(|r| r.iter().any(|c| c == shown)).unwrap_or_else(|| panic!("{shown} in {cells:?}")).clone();
    assert!(row("13955557777").iter().any(|c| c.starts_with("=HYPERLINK(")), "the formula is kept as text");
    assert!(row("139****8888").contains(&"未查看，已隐藏".to_owned()));
    assert!(!cells.iter().flatten().any(|c| c.contains("13955558888") || c.contains("13812345678")));

    // A range ending before it starts: said beside the dates, which stay as typed.
    let r = app.get("/actives/zhikeclues/export?from=2026-11-21&to=2026-11-01", &d).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let page = r.page();
    assert_eq!(page.texts("#export-error"), vec!["结束日期不能早于开始日期".to_owned()]);
    assert_eq!(page.one("#export-from").attr("value"), Some("2026-11-21"));
    assert_eq!(app.get("/actives/zhikeclues/export?from=&to=x", &d).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    // Another dealer's download holds none of them; a buyer has no desk.
    let rival = login(app, &owner_mobile(app, 2).await, "").await;
    let theirs = app.get(&format!("/actives/zhikeclues/export?from={today}&to={today}"), &[("cookie", &rival)]).await;
    assert!(theirs.status == StatusCode::OK && !theirs.body.contains("7777") && !theirs.body.contains("8888"));
    let buyer = login(app, "13712380009", "").await;
    assert_eq!(app.get(&format!("/actives/zhikeclues/export?from={today}&to={today}"), &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
}

/// Every cell of a workbook's first sheet as text, row by row; a formula cell would read as
/// `=` and its formula.
fn workbook_cells(bytes: &[u8]) -> Vec<Vec<String>> {
    use calamine::{Reader as _, Xlsx};
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).unwrap();
    let first = book.sheet_names()[0].clone();
    let formulas = book.worksheet_formula(&first).unwrap();
    assert_eq!(formulas.used_cells().filter(|(_, _, f)| !f.is_empty()).count(), 0, "no cell is a formula");
    let range = book.worksheet_range(&first).unwrap();
    range.rows().map(|r| r.iter().map(ToString::to_string).collect()).collect()
}

async fn messages_and_reservations_are_read_and_a_sale_confirmed_by_key(app: &TestApp) {
    let (id, seller) = crate::reservations::offered_car(app).await;
    let key = make_key(app, &seller, "消息与预订", &["messages:read", "reservations"]).await;
    let items = |r: &Reply| r.json()["data"]["items"].as_array().cloned().unwrap_or_default();
    // A buyer reserves the car (not paid yet) and asks about it with their number in the
    // question: read masked by key.
    let (buyer, query) = crate::reservations::reserve(app, id, "13712349001").await;
    let asked = app
        .post_form(
            &format!("/space/messages/ask/{id}"),
            &[("cookie", buyer.as_str())],
            "body=%E8%BD%A6%E8%BF%98%E5%9C%A8%E5%90%97%EF%BC%9F%E7%94%B5%E8%AF%9D13812345678",
        )
        .await;
    assert_eq!(asked.status, StatusCode::SEE_OTHER, "{}", asked.body);
    let thread: i64 = asked.location().trim_start_matches("/space/messages/").trim_end_matches("#latest").parse().unwrap();
    let r = call(app, "GET", "/api/dealer/v1/messages?limit=100", &key, &[], None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let question = items(&r).into_iter().find(|m| m["threadId"] == thread).expect("the question");
    assert_eq!((question["from"].as_str(), question["masked"].as_bool(), question["listingId"].as_i64()), (Some("buyer"), Some(true), Some(id)));
    assert!(question["text"].as_str().unwrap().contains(domain::message::HIDDEN) && !r.body.contains("13812345678"), "{}", r.body);
    let next = r.json()["data"]["next"].as_i64().unwrap();
    assert!(items(&call(app, "GET", &format!("/api/dealer/v1/messages?after={next}"), &key, &[], None).await).is_empty(), "nothing after the last");
    // The shop answers on the site: the answer follows `next`, and the question reads whole now.
    let answered = app.post_form(&format!("/space/messages/{thread}"), &[("cookie", seller.as_str())], "body=%E5%9C%A8%E7%9A%84").await;
    assert_eq!(answered.status, StatusCode::SEE_OTHER);
    let r = call(app, "GET", &format!("/api/dealer/v1/messages?after={next}"), &key, &[], None).await;
    assert_eq!(
        items(&r).iter().map(|m| (m["from"].as_str().unwrap().to_owned(), m["text"].as_str().unwrap().to_owned())).collect::<Vec<_>>(),
        [("shop".to_owned(), "在的".to_owned())]
    );
    let again = call(app, "GET", &format!("/api/dealer/v1/messages?after={}", next - 1), &key, &[], None).await;
    assert!(again.body.contains("13812345678") && items(&again)[0]["masked"] == false, "{}", again.body);
    assert_eq!(call(app, "GET", "/api/dealer/v1/messages?after=-1", &key, &[], None).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    // A reservation not paid yet cannot be confirmed; paid, the shop confirms it once.
    let r = call(app, "GET", "/api/dealer/v1/reservations", &key, &[], None).await;
    let listed = items(&r).into_iter().find(|x| x["listingId"] == id).expect("the reservation");
    assert_eq!(listed["state"], "pending");
    let rid = listed["id"].as_i64().unwrap();
    let confirm = format!("/api/dealer/v1/reservations/{rid}/confirm");
    let early = call(app, "POST", &confirm, &key, &[], None).await;
    assert_eq!((early.status, early.json()["data"]["state"].as_str()), (StatusCode::CONFLICT, Some("pending")), "{}", early.body);
    crate::reservations::pay(app, &buyer, &query).await;
    let r = call(app, "GET", "/api/dealer/v1/reservations?limit=100", &key, &[], None).await;
    assert!(items(&r).iter().any(|x| x["id"] == rid && x["state"] == "held" && x["depositYuan"] == 1000), "paid: {}", r.body);
    let after = format!("/api/dealer/v1/reservations?after={}", r.json()["data"]["next"].as_str().unwrap());
    assert!(items(&call(app, "GET", &after, &key, &[], None).await).is_empty(), "nothing moved since");
    // Another shop's key finds nothing; a key without the scope is refused.
    let rival = login(app, &owner_mobile(app, 2).await, "").await;
    let rival = if rival == seller { login(app, &owner_mobile(app, 3).await, "").await } else { rival };
    let theirs = make_key(app, &rival, "对手", &["messages:read", "reservations", "leads:read"]).await;
    assert_eq!(call(app, "POST", &confirm, &theirs, &[], None).await.status, StatusCode::NOT_FOUND);
    assert!(!call(app, "GET", "/api/dealer/v1/reservations?limit=100", &theirs, &[], None).await.body.contains(&format!("\"id\":{rid},")));
    assert!(!call(app, "GET", "/api/dealer/v1/messages?limit=100", &theirs, &[], None).await.body.contains("在的"));
    let leads_only = make_key(app, &seller, "线索", &["leads:read"]).await;
    assert_eq!(call(app, "POST", &confirm, &leads_only, &[], None).await.status, StatusCode::FORBIDDEN);
    let r = call(app, "POST", &confirm, &key, &[], None).await;
    assert_eq!(
        (r.status, r.json()["data"]["shopConfirmed"].as_bool(), r.json()["data"]["state"].as_str()),
        (StatusCode::OK, Some(true), Some("held")),
        "{}",
        r.body
    );
    let r = call(app, "POST", &confirm, &key, &[], None).await;
    assert_eq!((r.status, r.json()["data"]["shopConfirmed"].as_bool()), (StatusCode::OK, Some(true)), "again: {}", r.body);
    let log = app.state.store.reservation_log(rid).await.unwrap();
    assert_eq!(log.iter().filter(|e| e.event == domain::reservation::Event::SellerConfirms.name()).count(), 1, "confirmed once: {log:?}");
    // A minute later the buyer confirms on the site: sold, and it is listed as moved since.
    let later = app.variant(app.state.config.clone(), NOW + 60);
    let done = post_on(&later, &format!("/space/reservations/{rid}"), &[("cookie", buyer.as_str())], "action=confirm").await;
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    let r = call(app, "GET", &after, &key, &[], None).await;
    assert_eq!(
        items(&r).iter().map(|x| (x["id"].as_i64(), x["state"].as_str(), x["buyerConfirmed"].as_bool())).collect::<Vec<_>>(),
        [(Some(rid), Some("sold"), Some(true))],
        "{}",
        r.body
    );
}

async fn a_photo_is_fetched_by_its_address_and_never_from_inside(app: &TestApp) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let peer = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/stock/1.jpg"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(jpeg(1200, 900, 70), "image/jpeg"))
        .mount(&peer)
        .await;
    Mock::given(method("GET"))
        .and(path("/moved.jpg"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", "http://169.254.169.254/"))
        .mount(&peer)
        .await;
    Mock::given(method("GET"))
        .and(path("/page.html"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("<html>车源</html>", "text/html"))
        .mount(&peer)
        .await;
    Mock::given(method("GET"))
        .and(path("/huge.jpg"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(vec![0xff; 10 * 1024 * 1024 + 1], "image/jpeg"))
        .mount(&peer)
        .await;
    let dealer = login(app, &owner_mobile(app, stocked_shop(app).await).await, "").await;
    let key = make_key(app, &dealer, "图片同步", &["stock:write"]).await;
    let key = key.as_str();
    let by_url = |url: String| async move { call(app, "POST", "/api/dealer/v1/photos", key, &[], Some(json!({ "url": url }))).await };
    // In development (the tests' environment) a local peer stands in for the dealer's image server.
    let r = by_url(format!("{}/stock/1.jpg", peer.uri())).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let token = r.json()["data"]["id"].as_str().unwrap().to_owned();
    let stored = format!("select count(*) from upload where token = '{token}' and width = 1200");
    assert_eq!(app.state.store.count_admin(&stored).await.unwrap(), 1, "through the pipeline, as an upload of the shop");
    // What is refused, beside `url`, with nothing stored.
    let uploads = app.state.store.count_admin("select count(*) from upload").await.unwrap();
    for (url, says) in [
        (format!("{}/moved.jpg", peer.uri()), "跳转"),
        (format!("{}/missing.jpg", peer.uri()), "HTTP 404"),
        (format!("{}/page.html", peer.uri()), ""),
        ("ftp://img.example.com/1.jpg".to_owned(), "https://"),
        ("不是网址".to_owned(), "不是有效的网址"),
        ("https://user:secret@img.example.com/1.jpg".to_owned(), "用户名或密码"),
    ] {
        let r = by_url(url.clone()).await;
        assert_eq!((r.status, r.json()["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("CM001")), "{url}: {}", r.body);
        assert!(r.body.contains(says), "{url}: {}", r.body);
    }
    let huge = by_url(format!("{}/huge.jpg", peer.uri())).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", huge.body);
    let r = call(app, "POST", "/api/dealer/v1/photos", key, &[], Some(json!({ "link": "x" }))).await;
    assert!(r.status == StatusCode::UNPROCESSABLE_ENTITY && r.json()["data"]["errors"]["url"].as_str().is_some(), "{}", r.body);
    assert_eq!(app.state.store.count_admin("select count(*) from upload").await.unwrap(), uploads);
    // Outside development: https only, and never an address inside (the machine, its network,
    // the metadata service), however the name resolves.
    for (url, says) in [
        (format!("{}/stock/1.jpg", peer.uri()), "https://"),
        (format!("{}/stock/1.jpg", peer.uri().replace("http://", "https://")), "内部网络"),
        ("https://169.254.169.254/latest/meta-data/".to_owned(), "内部网络"),
        ("https://[::1]/1.jpg".to_owned(), "内部网络"),
        ("https://localhost/1.jpg".to_owned(), "内部网络"),
        ("https://10.1.2.3/1.jpg".to_owned(), "内部网络"),
    ] {
        match web::services::photos::fetch(&url, web::services::photos::Reach::Public).await {
            Err(Err(why)) => assert!(why.contains(says), "{url}: {why}"),
            other => panic!("{url}: {:?}", other.map(|_| ())),
        }
    }
    // …and development sends nothing off the machine.
    for url in ["http://1.1.1.1/1.jpg", "https://img.example.com/1.jpg"] {
        let r = by_url(url.to_owned()).await;
        assert!(r.status == StatusCode::UNPROCESSABLE_ENTITY && r.body.contains("开发环境只能使用本机地址"), "{url}: {}", r.body);
    }
}

async fn a_shop_answers_a_buyer_by_key_under_the_sites_rules(app: &TestApp) {
    let shop_id = stocked_shop(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let car = app.state.store.count_admin(&format!("select min(listing_id) from listing where shop_id = {shop_id} and status = 'online'")).await.unwrap();
    let buyer = app.state.store.sign_in_by_mobile("13712368801", NOW).await.unwrap().user_id;
    let store::Asked::Thread(thread) = app.state.store.ask_about(car, buyer, "周六能看车吗？我的电话13812345678", NOW).await.unwrap() else {
        panic!("no thread")
    };
    let reader = make_key(app, &dealer, "只读消息", &["messages:read"]).await;
    let writer = make_key(app, &dealer, "客服系统", &["messages:read", "messages:write"]).await;
    let uri = format!("/api/dealer/v1/messages/{thread}/reply");
    let r = call(app, "POST", &uri, &reader, &[], Some(json!({"text": "可以"}))).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.json()["msg"].as_str().unwrap().contains("回复消息"));

    // The site's rules for a message, each said beside `text`; nothing written.
    for (body, said) in
        [(json!({"text": "   "}), "请输入消息内容"), (json!({"text": "好".repeat(1001)}), "消息不能超过1000字"), (json!({}), "请用 text 写回复内容")]
    {
        let r = call(app, "POST", &uri, &writer, &[], Some(body)).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{said}");
        assert_eq!(r.json()["data"]["errors"]["text"], said);
    }
    let r = send_body(app.router(), &uri, &[("authorization", &format!("Bearer {writer}"))], "application/json", b"not json".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(app.state.store.messages(thread).await.unwrap().len(), 1);

    // Another shop's key finds no such thread; nor does a made-up one.
    let rival = login(app, &owner_mobile(app, stocked_rival(app, shop_id).await).await, "").await;
    let theirs = make_key(app, &rival, "对手", &["messages:write"]).await;
    assert_eq!(call(app, "POST", &uri, &theirs, &[], Some(json!({"text": "你好"}))).await.status, StatusCode::NOT_FOUND);
    assert_eq!(call(app, "POST", "/api/dealer/v1/messages/999999/reply", &writer, &[], Some(json!({"text": "你好"}))).await.status, StatusCode::NOT_FOUND);

    // Answered: the buyer reads it in the thread, and now that both wrote the number shows.
    let r = call(app, "POST", &uri, &writer, &[], Some(json!({"text": "可以，<b>周六上午</b>在店里"}))).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let m = &r.json()["data"];
    assert_eq!((m["from"].as_str(), m["threadId"].as_i64(), m["text"].as_str()), (Some("shop"), Some(thread), Some("可以，<b>周六上午</b>在店里")));
    let written = app.state.store.messages(thread).await.unwrap();
    assert_eq!((written.len(), written[1].from_buyer, written[1].body.as_str()), (2, false, "可以，<b>周六上午</b>在店里"));
    let listed = call(app, "GET", &format!("/api/dealer/v1/messages?after={}", written[0].message_id - 1), &writer, &[], None).await.json();
    assert_eq!(listed["data"]["items"][0]["masked"], false);
    assert!(listed["data"]["items"][0]["text"].as_str().unwrap().contains("13812345678"));

    // The writer's limits of the site: ten a minute.
    for n in 2..=10 {
        let r = call(app, "POST", &uri, &writer, &[], Some(json!({"text": format!("补充{n}")}))).await;
        assert_eq!(r.status, StatusCode::CREATED, "{n}");
    }
    let r = call(app, "POST", &uri, &writer, &[], Some(json!({"text": "再补充"}))).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.json()["msg"], "发送太频繁，请稍后再试");
}

/// The desk by key, as the owner has it on the site: who holds each thread and which member
/// wrote, the members, and a thread given to a member (told by SMS), to the owner or to no one;
/// what names no member is refused beside `to`, and nothing changes.
async fn a_shops_desk_is_read_and_its_threads_given_out_by_key(app: &TestApp) {
    let store = &app.state.store;
    let shop_id = stocked_shop(app).await;
    let owner = owner_user(app, shop_id).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let car = store.count_admin(&format!("select min(listing_id) from listing where shop_id = {shop_id} and status = 'online'")).await.unwrap();
    let buyer = store.sign_in_by_mobile("13712368901", NOW).await.unwrap().user_id;
    let store::Asked::Thread(thread) = store.ask_about(car, buyer, "这台车还在吗？", NOW).await.unwrap() else { panic!("no thread") };
    let mut ids = Vec::new();
    for (mobile, name) in [("13712368902", "赵敏"), ("13712368903", "钱进")] {
        let store::Added::Added(id) = store.add_member(owner, (mobile, name), NOW).await.unwrap() else { panic!("{name} not added") };
        ids.push(id);
    }
    let (zhao, qian) = (ids[0], ids[1]);
    // 赵敏 answers on the site, and so holds the thread.
    assert!(store.seller_reply(thread, zhao, ("在的，欢迎来看车", ""), NOW + 60).await.unwrap().is_ok());
    let reader = make_key(app, &dealer, "客服读取", &["messages:read"]).await;
    let writer = make_key(app, &dealer, "客服分配", &["messages:read", "messages:write"]).await;

    let members = call(app, "GET", "/api/dealer/v1/members", &reader, &[], None).await;
    assert_eq!(members.status, StatusCode::OK, "{}", members.body);
    let listed = members.json()["data"]["items"].as_array().unwrap().clone();
    let zhao_row = listed.iter().find(|m| m["id"] == zhao).expect("赵敏 listed");
    assert_eq!((zhao_row["name"].as_str(), zhao_row["mobile"].as_str(), zhao_row["holding"].as_i64()), (Some("赵敏"), Some("137****8902"), Some(1)));
    assert!(listed.iter().any(|m| m["id"] == qian && m["holding"] == 0));

    let read = |key: String| async move {
        let r = call(app, "GET", "/api/dealer/v1/messages?limit=100", &key, &[], None).await;
        r.json()["data"]["items"].as_array().unwrap().iter().filter(|m| m["threadId"] == thread).cloned().collect::<Vec<Value>>()
    };
    let items = read(reader.clone()).await;
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["holder"], json!({ "heldBy": "member", "memberId": zhao, "memberName": "赵敏" }));
    assert_eq!((items[0]["from"].as_str(), &items[0]["writerMemberId"]), (Some("buyer"), &Value::Null));
    assert_eq!((items[1]["from"].as_str(), items[1]["writerMemberId"].as_i64(), items[1]["writerName"].as_str()), (Some("shop"), Some(zhao), Some("赵敏")));

    // Giving out threads needs messages:write.
    let uri = format!("/api/dealer/v1/messages/{thread}/assign");
    let r = call(app, "POST", &uri, &reader, &[], Some(json!({ "to": qian }))).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // To 钱进: he holds it, is told by SMS with a link into it, and the log names the owner.
    let r = call(app, "POST", &uri, &writer, &[], Some(json!({ "to": qian }))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.json()["data"], json!({ "heldBy": "member", "memberId": qian, "memberName": "钱进", "threadId": thread }));
    assert_eq!(store.thread_by_id(thread).await.unwrap().unwrap().holder_user_id, Some(qian));
    let told = app.state.adapters.sms.sandbox_desk_notices("13712368903");
    assert_eq!(told.len(), 1, "{told:?}");
    let last = store.desk(thread).await.unwrap().unwrap().log.pop().unwrap();
    assert_eq!((last.holder_user_id, last.by_user_id), (Some(qian), owner));
    // Again to him (his id written as JSON may write an integer, 233.0): nothing changes, no second text.
    assert_eq!(call(app, "POST", &uri, &writer, &[], Some(json!({ "to": qian as f64 }))).await.status, StatusCode::OK);
    assert_eq!(app.state.adapters.sms.sandbox_desk_notices("13712368903").len(), 1);
    // To the owner, then to no one.
    let r = call(app, "POST", &uri, &writer, &[], Some(json!({ "to": "owner" }))).await;
    assert_eq!(r.json()["data"]["heldBy"], "owner");
    assert_eq!(read(reader.clone()).await[0]["holder"], json!({ "heldBy": "owner", "memberId": null, "memberName": null }));
    let r = call(app, "POST", &uri, &writer, &[], Some(json!({ "to": null }))).await;
    assert_eq!(r.json()["data"]["heldBy"], "none");
    assert_eq!(store.thread_by_id(thread).await.unwrap().unwrap().holder_user_id, None);

    // Someone not on the desk: refused as the site does (409), said beside `to`; what names no
    // one is bad input (422); nothing moved either way.
    let r = call(app, "POST", &uri, &writer, &[], Some(json!({ "to": buyer }))).await;
    assert_eq!((r.status, &r.json()["data"]["errors"]["to"]), (StatusCode::CONFLICT, &json!("只能分配给本店店员")), "{}", r.body);
    for (body, said) in [
        (json!({ "to": "钱进" }), "请用 to 指定负责人：店员编号、\"owner\"（店主）或 null（未分配）"),
        (json!({ "to": -3 }), "to 应为店员编号（正整数）、\"owner\" 或 null"),
        (json!({}), "请用 to 指定负责人：店员编号、\"owner\"（店主）或 null（未分配）"),
    ] {
        let r = call(app, "POST", &uri, &writer, &[], Some(body.clone())).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {}", r.body);
        assert_eq!(r.json()["data"]["errors"]["to"], said, "{body}");
    }
    let r = send_body(app.router(), &uri, &[("authorization", &format!("Bearer {writer}"))], "application/json", b"[1]".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(store.thread_by_id(thread).await.unwrap().unwrap().holder_user_id, None);
    // Another shop's key, and a made-up thread: not found.
    let rival = login(app, &owner_mobile(app, stocked_rival(app, shop_id).await).await, "").await;
    let theirs = make_key(app, &rival, "对手", &["messages:read", "messages:write"]).await;
    assert_eq!(call(app, "POST", &uri, &theirs, &[], Some(json!({ "to": null }))).await.status, StatusCode::NOT_FOUND);
    assert_eq!(call(app, "POST", "/api/dealer/v1/messages/999999/assign", &writer, &[], Some(json!({ "to": null }))).await.status, StatusCode::NOT_FOUND);
    let their_members = call(app, "GET", "/api/dealer/v1/members", &theirs, &[], None).await.json();
    assert!(their_members["data"]["items"].as_array().unwrap().iter().all(|m| m["id"] != zhao && m["id"] != qian));
}

/// A shop other than `shop_id` that has an owner.
async fn stocked_rival(app: &TestApp, shop_id: i64) -> i64 {
    app.state.store.count_admin(&format!("select min(shop_id) from shop where shop_id <> {shop_id} and owner_user_id is not null")).await.unwrap()
}

/// Every item of the statement answered, as a key sends it.
fn statement(mileage: &str, confirm: bool) -> Value {
    json!({ "items": {
        "use": { "answer": "private" }, "structural": { "answer": "no" }, "flood": { "answer": "no" }, "fire": { "answer": "no" },
        "repairs": { "answer": "yes", "note": "2024年右后门钣金喷漆" }, "mileage": { "answer": mileage }, "mortgage": { "answer": "no" },
        "seizure": { "answer": "no" }, "dues": { "answer": "no" }, "inspection": { "answer": "2027-05" }, "insurance": "2027-03", "scrap": { "answer": "none" } },
        "confirmContradictions": confirm })
}

async fn a_cars_condition_is_written_by_key_as_on_the_site(app: &TestApp) {
    // A shop's online car of private use.
    let id = app
        .state
        .store
        .count_admin("select coalesce(min(listing_id), 0) from listing where shop_id is not null and status = 'online' and use_kind <> 2")
        .await
        .unwrap();
    assert!(id > 0, "the seed has an online private car of a shop");
    let shop = app.state.store.count_admin(&format!("select shop_id from listing where listing_id = {id}")).await.unwrap();
    let dealer = login(app, &owner_mobile(app, shop).await, "").await;
    let key = make_key(app, &dealer, "车况", &["stock:read", "stock:write"]).await;
    let reader = make_key(app, &dealer, "只读", &["stock:read"]).await;
    let bearer = format!("Bearer {key}");
    let h = [("authorization", bearer.as_str())];
    let put = |id: i64, body: Value| async move {
        send_method(app.router(), Method::PUT, &format!("/api/dealer/v1/stock/{id}/disclosure"), &h, "application/json", body.to_string().into_bytes()).await
    };
    // A car of the shop stated at 1 km, whose VIN's record has readings far above that: our
    // records contradict an answer of 未调整.
    let vin = (0..200)
        .map(|n| domain::report::sandbox_vin(2019, 4_000 + n))
        .find(|v| domain::report::sandbox_record(&domain::validate::Vin::parse(v).unwrap(), NOW).verdict(Some(1)).suspected())
        .expect("a sandbox VIN whose readings pass 1 km");
    let got = call(app, "GET", &format!("/api/dealer/v1/stock/{id}"), &key, &[], None).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    app.state.store.execute_admin(&format!("update listing set vin = '{vin}', mileage_km = 1 where listing_id = {id}")).await.unwrap();
    let version = || async move { app.state.store.disclosure_of(id).await.unwrap().map(|d| d.version) };
    let before = version().await;

    // Another key's scope, another shop's car, a body that is not the statement: refused, nothing written.
    let r = send_method(
        app.router(),
        Method::PUT,
        &format!("/api/dealer/v1/stock/{id}/disclosure"),
        &[("authorization", &format!("Bearer {reader}"))],
        "application/json",
        statement("no", true).to_string().into_bytes(),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let rival = app.state.store.count_admin(&format!("select min(listing_id) from listing where shop_id is null or shop_id <> {shop}")).await.unwrap();
    assert_eq!(put(rival, statement("no", true)).await.status, StatusCode::NOT_FOUND);
    let mut missing = statement("no", false);
    missing["items"].as_object_mut().unwrap().remove("flood");
    missing["items"]["repairs"] = json!({ "answer": "yes" });
    let r = put(id, missing).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    let errors = r.json()["data"]["errors"].clone();
    assert!(errors["items.flood"].as_str().unwrap().contains("泡水"), "{errors}");
    assert!(errors["items.repairs"].as_str().unwrap().contains("说明"), "{errors}");
    let mut unknown = statement("no", false);
    unknown["items"]["sunroof"] = json!({ "answer": "no" });
    assert!(put(id, unknown).await.json()["data"]["errors"]["items.sunroof"].is_string());
    assert_eq!(put(id, json!([1])).await.status, StatusCode::BAD_REQUEST);
    // Contradicted by our records: refused until confirmed, then shown as 与记录不符.
    let r = put(id, statement("no", false)).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.body);
    assert!(r.json()["msg"].as_str().unwrap().contains("表显里程"), "{}", r.body);
    assert_eq!(version().await, before, "nothing written");
    let r = put(id, statement("no", true)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let items = r.json()["data"]["disclosure"]["items"].clone();
    let mileage = items.as_array().unwrap().iter().find(|i| i["item"] == "mileage").unwrap().clone();
    assert_eq!(mileage["check"], "contradicted", "{mileage}");
    let made = version().await;
    assert!(made > before);
    // A retry makes no new version; a changed answer makes one.
    assert_eq!(put(id, statement("no", true)).await.status, StatusCode::OK);
    assert_eq!(version().await, made, "the same statement again");
    assert_eq!(put(id, statement("yes", false)).await.status, StatusCode::UNPROCESSABLE_ENTITY, "yes needs its note");
    // The buyer's page shows the statement the key wrote.
    let detail = app.get(&format!("/details/{id}"), &[]).await;
    assert!(detail.body.contains("2024年右后门钣金喷漆"), "the note is on the car's page");

    // Damage marks: with a photo from /photos, once however often retried, removed by id.
    let photo = upload(app, &key, jpeg(1200, 900, 33)).await.json()["data"]["id"].as_str().unwrap().to_owned();
    let mark = json!({ "area": "front", "kind": "scratch", "x": 30, "y": 60, "note": "前保险杠轻微划痕", "photo": photo });
    let uri = format!("/api/dealer/v1/stock/{id}/damage-marks");
    let r = call(app, "POST", &uri, &key, &[], Some(json!({ "area": "wing", "x": 300, "photo": "nope" }))).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    let errors = r.json()["data"]["errors"].clone();
    for field in ["area", "kind", "x", "photo"] {
        assert!(errors[field].is_string(), "{field}: {errors}");
    }
    assert!(errors["photo"].as_str().unwrap().contains("nope"));
    let marks = || async move { app.state.store.damage_marks(id).await.unwrap().len() };
    let had = marks().await;
    let r = call(app, "POST", &uri, &key, &[], Some(mark.clone())).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let made = r.json()["data"]["damageMarks"].as_array().unwrap().iter().find(|m| m["note"] == "前保险杠轻微划痕").unwrap().clone();
    assert_eq!((made["area"].as_str(), made["kindLabel"].as_str(), made["y"].as_i64()), (Some("front"), Some("划痕"), Some(60)));
    let again = call(app, "POST", &uri, &key, &[], Some(mark)).await;
    assert_eq!(again.status, StatusCode::OK, "a retry answers the mark made");
    assert_eq!(marks().await, had + 1);
    let gone = format!("{uri}/{}", made["id"]);
    let r = send_method(app.router(), Method::DELETE, &gone, &h, "application/json", Vec::new()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(marks().await, had);
    let r = send_method(app.router(), Method::DELETE, &gone, &h, "application/json", Vec::new()).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}
