//! The stock sync on both databases, its feed served by a mock peer: the sandbox's reading of the
//! shop's own stock changes nothing; the address checked when saved; a reading asked for on the page only previews; the nightly reading applies a clean
//! feed (a price changed, a new car with its photos), holds one that would take down most of the
//! shop and one that cannot be read, telling the owner by SMS, and writes nothing for them; once
//! the shop is in step, the feed is asked for only if it changed, while no car changed on the site.

use axum::http::StatusCode;
use domain::selling::{ListingStatus, SellInput};
use web::config::StockSyncAdapter;

use crate::stock_import::shop_with_vins;
use crate::support::{TestApp, get_on, jpeg, login, owner_mobile, post_on};

on_both!(40 => a_shops_feed_is_read_nightly_applied_when_clean_and_held_when_not);

/// One car as a feed row (Meta's automotive inventory fields, flattened), photos at `photos`.
fn feed_row(input: &SellInput, price_yuan: i64, photos: &[String], available: bool) -> Vec<String> {
    let series = domain::catalog::series_by_slug(&input.series).expect("a known series");
    let brand = domain::catalog::brand(series.brand_slug).expect("its brand");
    let km = domain::selling::parse_wan(&input.mileage).expect("a mileage");
    let city = domain::region::city_by_slug(&input.city).expect("a city");
    let mut row = vec![
        format!("V{}", input.vin),
        input.vin.clone(),
        brand.name.to_owned(),
        series.name.to_owned(),
        input.model_year.clone(),
        input.trim.clone(),
        km.to_string(),
        "KM".to_owned(),
        format!("{},{:03} CNY", price_yuan / 1000, price_yuan % 1000),
        input.colour.clone(),
        if input.gearbox == "1" { "MANUAL" } else { "AUTOMATIC" }.to_owned(),
        city.name.to_owned(),
        input.reg.clone(),
        input.displacement.clone(),
        if available { "AVAILABLE" } else { "NOT_AVAILABLE" }.to_owned(),
    ];
    row.extend((0..3).map(|i| photos.get(i).cloned().unwrap_or_default()));
    row
}

/// A TSV feed of these rows.
fn feed(rows: &[Vec<String>]) -> String {
    let header = "vehicle_id\tvin\tmake\tmodel\tyear\ttrim\tmileage.value\tmileage.unit\tprice\texterior_color\ttransmission\taddress.city\tregistration_date\tdisplacement\tavailability\timage[0].url\timage[1].url\timage[2].url";
    let mut out = format!("{header}\n");
    for r in rows {
        out.push_str(&r.join("\t"));
        out.push('\n');
    }
    out
}

/// The same rows in the feed's XML form.
fn xml_feed(rows: &[Vec<String>]) -> String {
    let esc = |v: &str| v.replace('&', "&amp;").replace('<', "&lt;");
    let mut out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<listings>\n  <title>库存</title>\n".to_owned();
    for r in rows {
        let plain = |names: &[(&str, usize)]| names.iter().map(|(n, i)| format!("<{n}>{}</{n}>", esc(&r[*i]))).collect::<String>();
        out.push_str("  <listing>");
        out.push_str(&plain(&[("vehicle_id", 0), ("vin", 1), ("make", 2), ("model", 3), ("year", 4), ("trim", 5)]));
        out.push_str(&format!("<mileage><value>{}</value><unit>{}</unit></mileage>", r[6], r[7]));
        out.push_str(&plain(&[("price", 8), ("exterior_color", 9), ("transmission", 10)]));
        out.push_str(&format!("<address format=\"simple\"><component name=\"city\">{}</component></address>", esc(&r[11])));
        out.push_str(&plain(&[("registration_date", 12), ("displacement", 13), ("availability", 14)]));
        for url in r[15..].iter().filter(|u| !u.is_empty()) {
            out.push_str(&format!("<image><url>{}</url></image>", esc(url)));
        }
        out.push_str("</listing>\n");
    }
    out.push_str("</listings>\n");
    out
}

async fn a_shops_feed_is_read_nightly_applied_when_clean_and_held_when_not(app: &TestApp) {
    use wiremock::matchers::{header, header_regex, method, path, path_regex};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let shop_id = shop_with_vins(app, 5).await;
    let mobile = owner_mobile(app, shop_id).await;
    let dealer = login(app, &mobile, "").await;
    let h = [("cookie", dealer.as_str())];
    let mut config = app.state.config.clone();
    config.stock_sync.adapter = StockSyncAdapter::Feed;
    let node = app.variant(config, crate::support::NOW);
    let (cars, _) = app.state.store.import_cars(shop_id).await.unwrap();
    let live: Vec<(i64, i64, SellInput)> = cars
        .iter()
        .filter(|c| matches!(c.listing.status, ListingStatus::Online | ListingStatus::Pending))
        .map(|c| (c.listing.listing_id, c.listing.price_yuan, web::features::selling::input_of_listing(&c.listing)))
        .collect();
    assert!(live.len() >= 5, "{}", live.len());

    let peer = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path_regex("^/car/[0-9]+\\.jpg$"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(jpeg(800, 600, 60), "image/jpeg"))
        .mount(&peer)
        .await;
    // The whole stock, one price lowered, and a new car with three photos.
    let (changed_id, changed_price, _) = live[0].clone();
    let lower = changed_price - 3_000;
    let mut rows: Vec<Vec<String>> = live.iter().map(|(id, price, input)| feed_row(input, if *id == changed_id { lower } else { *price }, &[], true)).collect();
    let new_vin = domain::report::sandbox_vin(2021, 9_500);
    let new_car = SellInput {
        series: "langyi".into(),
        reg: "2021-06".into(),
        mileage: "3.2".into(),
        city: "shanghai".into(),
        colour: "white".into(),
        gearbox: "2".into(),
        vin: new_vin.clone(),
        model_year: "2021".into(),
        trim: "舒适版".into(),
        displacement: domain::catalog::series_by_slug("langyi").unwrap().engines[0].into(),
        ..SellInput::default()
    };
    let photos: Vec<String> = (1..=3).map(|i| format!("{}/car/{i}.jpg", peer.uri())).collect();
    rows.push(feed_row(&new_car, 98_000, &photos, true));
    // A car the dealer system no longer offers is left blank: it is not stock.
    rows.push(feed_row(&SellInput { vin: domain::report::sandbox_vin(2021, 9_501), ..new_car.clone() }, 50_000, &photos, false));
    Mock::given(method("GET"))
        .and(path("/feed.tsv"))
        .respond_with(ResponseTemplate::new(200).insert_header("etag", "\"v1\"").set_body_string(feed(&rows)))
        .mount(&peer)
        .await;
    // Asked only if it changed since "v1", the dealer system answers that it did not.
    Mock::given(method("GET"))
        .and(path("/feed.tsv"))
        .and(header("if-none-match", "\"v1\""))
        .respond_with(ResponseTemplate::new(304))
        .with_priority(1)
        .mount(&peer)
        .await;
    Mock::given(method("GET"))
        .and(path("/feed.xml"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(xml_feed(&rows), "application/xml"))
        .mount(&peer)
        .await;
    // A feed listing one car: it would take down the rest.
    Mock::given(method("GET"))
        .and(path("/one.tsv"))
        .respond_with(ResponseTemplate::new(200).insert_header("last-modified", "Fri, 04 Dec 2026 19:00:00 GMT").set_body_string(feed(&rows[..1])))
        .mount(&peer)
        .await;
    Mock::given(method("GET"))
        .and(path("/one.tsv"))
        .and(header_regex("if-modified-since", "^Fri, 04 Dec 2026 19:00:00 GMT$"))
        .respond_with(ResponseTemplate::new(304))
        .with_priority(1)
        .mount(&peer)
        .await;

    // The sandbox (development, the demo) fetches nothing: the feed is the shop's own stock, so
    // a reading changes nothing and makes no import.
    let r = app.post_form("/space/stock-sync", &h, "feed_url=https%3A%2F%2Fdms.example.com%2Ffeed.csv").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let r = app.post_form("/space/stock-sync/read", &h, "").await;
    assert_eq!(r.location(), "/space/stock-sync?done=read");
    let sync = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
    assert_eq!((sync.outcome, sync.import_id), (Some(domain::stock_feed::SyncOutcome::Unchanged), None), "{}", sync.message);
    let page = app.get("/space/stock-sync", &h).await.page();
    assert!(page.texts(".sync-state").concat().contains(&format!("有车架号的{}辆车一致", live.len())), "{}", page.texts(".sync-state").concat());
    app.post_form("/space/stock-sync/stop", &h, "").await;

    // The address is checked when saved, and kept with its message when it is wrong.
    for (typed, says) in [("", "请填写库存数据地址"), ("ftp://127.0.0.1/feed.csv", "https://"), ("https://dms.example.com/feed.csv", "本机地址")] {
        let r = post_on(&node, "/space/stock-sync", &h, &format!("feed_url={}", domain::text::percent_encode(typed))).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{typed}");
        assert!(r.page().texts("#feed-url-error").concat().contains(says), "{typed}: {}", r.page().texts("#feed-url-error").concat());
        assert_eq!(r.page().attrs("#feed-url", "value").concat(), typed);
    }
    assert!(app.state.store.stock_sync(shop_id).await.unwrap().is_none(), "nothing saved for a wrong address");
    let url = format!("{}/feed.tsv", peer.uri());
    let r = post_on(&node, "/space/stock-sync", &h, &format!("feed_url={}", domain::text::percent_encode(&url))).await;
    assert_eq!((r.status, r.location()), (StatusCode::SEE_OTHER, "/space/stock-sync?done=saved"), "{}", r.body);
    let page = get_on(&node, "/space/stock-sync?done=saved", &h).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.page().texts(".sync-state").concat().contains("03:00"), "the next reading is at 03:00");

    // Read now: a preview, nothing written.
    let r = post_on(&node, "/space/stock-sync/read", &h, "").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().starts_with("/space/stock-import/"), "{}", r.location());
    let preview = get_on(&node, r.location(), &h).await.page();
    let counts = preview.texts(".import-counts li").join("|");
    assert!(preview.texts(".row-errors").is_empty(), "{:?}", preview.texts(".row-errors"));
    assert_eq!(counts, format!("1新建|1更新|{}不变|0下架", live.len() - 1));
    let price = |id: i64| async move { app.state.store.count_admin(&format!("select price_yuan from listing where listing_id = {id}")).await.unwrap() };
    assert_eq!(price(changed_id).await, changed_price, "a reading on the page only previews");
    let made =
        || async { app.state.store.count_admin(&format!("select count(*) from listing where vin = '{new_vin}' and status <> 'deleted'")).await.unwrap() };
    assert_eq!(made().await, 0);

    // The night: the clean feed is applied.
    let due = |at: i64| async move {
        app.state.store.execute_admin(&format!("update stock_sync set next_at = {at} where shop_id = {shop_id}")).await.unwrap();
    };
    due(crate::support::NOW - 1).await;
    assert_eq!(web::features::dealer_api::sync::nightly(&node).await.unwrap(), 1);
    assert_eq!(price(changed_id).await, (lower + 50) / 100 * 100, "the price as the feed has it, to the hundred yuan");
    assert_eq!(made().await, 1, "the new car is made");
    let new_id = app.state.store.count_admin(&format!("select listing_id from listing where vin = '{new_vin}' and status <> 'deleted'")).await.unwrap();
    assert_eq!(app.state.store.listing_photos(new_id).await.unwrap().len(), 3);
    let sync = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
    assert_eq!(sync.outcome, Some(domain::stock_feed::SyncOutcome::Applied), "{}", sync.message);
    assert!(sync.next_at > crate::support::NOW, "moved to the next night");
    assert!(node.adapters.sms.sandbox_stock_sync_notices(&mobile).is_empty(), "an applied sync sends nothing");
    assert_eq!(web::features::dealer_api::sync::nightly(&node).await.unwrap(), 0, "read once a night");
    let page = get_on(&node, "/space/stock-sync", &h).await.page();
    assert!(page.texts(".sync-state").concat().contains("已同步"), "{}", page.texts(".sync-state").concat());

    // The nights after: the feed is read whole once more and found in step with the shop; from
    // then on the dealer system is asked for it only if it changed, and its 304 costs nothing.
    let conditional = || async {
        let asked = peer.received_requests().await.unwrap_or_default();
        let feed_asks: Vec<_> = asked.iter().filter(|r| r.url.path() == "/feed.tsv").collect();
        feed_asks.last().map(|r| r.headers.get("if-none-match").is_some()).unwrap_or(false)
    };
    let node_ref = &node;
    let night = |says: &'static str| async move {
        due(crate::support::NOW - 1).await;
        assert_eq!(web::features::dealer_api::sync::nightly(node_ref).await.unwrap(), 1);
        let sync = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
        assert!(sync.message.contains(says), "{says}: {}", sync.message);
        sync.outcome
    };
    assert_eq!(night("一致").await, Some(domain::stock_feed::SyncOutcome::Unchanged));
    assert!(!conditional().await, "the night after an applied sync reads the feed whole");
    assert_eq!(night("没有变化").await, Some(domain::stock_feed::SyncOutcome::Unchanged));
    assert!(conditional().await, "asked only if it changed");
    let r = post_on(&node, "/space/stock-sync/read", &h, "").await;
    assert_eq!(r.location(), "/space/stock-sync?done=read", "in step: nothing to preview");
    assert!(!conditional().await, "a reading asked for on the page reads the feed whole");
    assert_eq!(price(changed_id).await, (lower + 50) / 100 * 100);
    // A car changed on the site: the feed is read whole again, and its price is the feed's once more.
    app.state
        .store
        .execute_admin(&format!("update listing set price_yuan = price_yuan + 10000, updated_at = updated_at + 1 where listing_id = {changed_id}"))
        .await
        .unwrap();
    assert_eq!(night("已同步").await, Some(domain::stock_feed::SyncOutcome::Applied));
    assert!(!conditional().await, "a shop changed since is read against the whole feed");
    assert_eq!(price(changed_id).await, (lower + 50) / 100 * 100, "the feed's price again");
    assert!(node.adapters.sms.sandbox_stock_sync_notices(&mobile).is_empty(), "nights in step send nothing");

    // A feed that would take down most of the shop is held, and the owner told.
    let live_now = || async {
        app.state.store.count_admin(&format!("select count(*) from listing where shop_id = {shop_id} and status in ('online', 'pending')")).await.unwrap()
    };
    let before = live_now().await;
    let one = format!("{}/one.tsv", peer.uri());
    post_on(&node, "/space/stock-sync", &h, &format!("feed_url={}", domain::text::percent_encode(&one))).await;
    due(crate::support::NOW - 1).await;
    web::features::dealer_api::sync::nightly(&node).await.unwrap();
    assert_eq!(live_now().await, before, "nothing taken down");
    let sync = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
    assert_eq!(sync.outcome, Some(domain::stock_feed::SyncOutcome::Held));
    assert!(sync.message.contains("下架"), "{}", sync.message);
    let notices = node.adapters.sms.sandbox_stock_sync_notices(&mobile);
    assert!(notices.len() == 1 && notices[0].contains("下架过多"), "{notices:?}");
    let held = get_on(&node, &format!("/space/stock-import/{}", sync.import_id.unwrap()), &h).await.page();
    assert_eq!(held.count(".import-guard"), 1, "the preview asks for the confirmation");
    assert_eq!(held.attrs(".import-apply a.btn-ghost", "href"), ["/space/stock-sync"], "cancelling leads back to the sync");
    // The next night nothing changed: still held, the same preview, and the owner not told again.
    let imports = || async { app.state.store.count_admin(&format!("select count(*) from stock_import where shop_id = {shop_id}")).await.unwrap() };
    let before_imports = imports().await;
    due(crate::support::NOW - 1).await;
    web::features::dealer_api::sync::nightly(&node).await.unwrap();
    let again = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
    assert_eq!((again.outcome, again.import_id), (sync.outcome, sync.import_id), "{}", again.message);
    assert!(again.message.contains("没有变化"), "{}", again.message);
    assert_eq!(imports().await, before_imports, "no second preview");
    assert_eq!(node.adapters.sms.sandbox_stock_sync_notices(&mobile).len(), 1, "told once");
    assert_eq!(live_now().await, before);

    // A feed that cannot be read changes nothing.
    let gone = format!("{}/gone.tsv", peer.uri());
    post_on(&node, "/space/stock-sync", &h, &format!("feed_url={}", domain::text::percent_encode(&gone))).await;
    due(crate::support::NOW - 1).await;
    web::features::dealer_api::sync::nightly(&node).await.unwrap();
    let sync = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
    assert_eq!(sync.outcome, Some(domain::stock_feed::SyncOutcome::Failed));
    assert!(sync.message.contains("HTTP 404"), "{}", sync.message);
    assert_eq!(live_now().await, before);
    assert!(node.adapters.sms.sandbox_stock_sync_notices(&mobile).last().unwrap().contains("无法读取"));

    // The same stock in the feed's XML form: the shop is in step with it.
    let xml = format!("{}/feed.xml", peer.uri());
    post_on(&node, "/space/stock-sync", &h, &format!("feed_url={}", domain::text::percent_encode(&xml))).await;
    let r = post_on(&node, "/space/stock-sync/read", &h, "").await;
    assert_eq!(r.location(), "/space/stock-sync?done=read", "nothing to preview");
    let sync = app.state.store.stock_sync(shop_id).await.unwrap().unwrap();
    assert_eq!(sync.outcome, Some(domain::stock_feed::SyncOutcome::Unchanged), "{}", sync.message);
    assert!(sync.message.contains(&format!("{}辆车一致", live.len() + 1)), "{}", sync.message);

    // Every reading is in the page's 同步记录, newest first.
    let log = get_on(&node, "/space/stock-sync", &h).await.page();
    let entries = log.texts(".sync-log li");
    assert_eq!(entries.len(), 11, "{entries:?}");
    assert!(entries[0].contains("立即读取") && entries[0].contains("无变化"), "{entries:?}");
    assert!(entries[1].contains("每晚") && entries[1].contains("读取失败") && entries[1].contains("HTTP 404"), "{entries:?}");
    assert!(entries.iter().filter(|e| e.contains("每晚") && e.contains("已同步")).count() == 2, "{entries:?}");

    // Stopped: never read again.
    let r = post_on(&node, "/space/stock-sync/stop", &h, "").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(app.state.store.stock_sync(shop_id).await.unwrap().is_none());
}
