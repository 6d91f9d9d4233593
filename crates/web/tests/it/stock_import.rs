//! The dealer centre's stock import on both databases: a file previewed with every row's
//! decision and errors and nothing written; a file with an error not applied; a new car's photo
//! that cannot be fetched puts the file back with the reason and writes nothing; a clean file
//! applied once however often it is sent; the guard against taking down most of the shop; an
//! import undone within the day; a slow import's progress, and an interrupted one's undo; bad
//! files refused with a Chinese message.

use axum::http::StatusCode;
use domain::selling::SellInput;

use crate::support::{Part, TestApp, jpeg, login, owner_mobile};

on_both!(40 =>
    a_stock_file_is_previewed_applied_once_guarded_and_undone,
    bad_stock_files_are_refused_with_a_reason_and_nothing_kept,
    a_slow_import_shows_its_progress_and_an_interrupted_one_its_undo,
);

/// The shop with the most cars in the demo.
async fn stocked_shop(app: &TestApp) -> i64 {
    app.state.store.count_admin("select shop_id from listing where shop_id is not null group by shop_id order by count(*) desc, shop_id limit 1").await.unwrap()
}

/// The shop with the most cars in the demo, `n` of its live cars carrying a VIN the tests know
/// (cars of other sellers are moved in until it has `n`).
pub async fn shop_with_vins(app: &TestApp, n: u64) -> i64 {
    let shop_id = stocked_shop(app).await;
    for k in 0..n {
        let live =
            app.state.store.count_admin(&format!("select count(*) from listing where shop_id = {shop_id} and status in ('online', 'pending')")).await.unwrap();
        if live <= k as i64 {
            app.state
                .store
                .execute_admin(&format!(
                    "update listing set shop_id = {shop_id}, seller_kind = 'dealer' where listing_id = (select min(listing_id) from listing where status = 'online' and (shop_id is null or shop_id <> {shop_id}))"
                ))
                .await
                .unwrap();
        }
    }
    for k in 0..n {
        let vin = domain::report::sandbox_vin(2020, 7_000 + k);
        app.state
            .store
            .execute_admin(&format!(
                "update listing set vin = '{vin}' where listing_id = (select listing_id from listing where shop_id = {shop_id} and status in ('online', 'pending') order by listing_id limit 1 offset {k})"
            ))
            .await
            .unwrap();
    }
    shop_id
}

const HEADER: [&str; 15] = [
    "车架号*",
    "品牌车系*",
    "首次上牌*",
    "表显里程（万公里）*",
    "售价（万元）*",
    "城市*",
    "颜色*",
    "过户次数",
    "变速箱",
    "排放标准",
    "车况描述",
    "联系电话",
    "年款*",
    "排量",
    "配置*",
];

/// The header's form fields, in its order.
const FIELDS: [&str; 15] = [
    "vin",
    "series",
    "reg",
    "mileage",
    "price",
    "city",
    "colour",
    "transfers",
    "gearbox",
    "emission",
    "description",
    "contact",
    "model_year",
    "displacement",
    "trim",
];

/// A CSV file of these rows (each the form's fields, then the photo addresses).
fn csv(rows: &[(SellInput, Vec<String>)]) -> Vec<u8> {
    let mut out = String::from(domain::csv::BOM);
    let mut header: Vec<&str> = HEADER.to_vec();
    header.push("照片网址");
    out.push_str(&domain::csv::row(&header));
    for (input, photos) in rows {
        let mut cells: Vec<String> = FIELDS.iter().map(|f| input.get(f).to_owned()).collect();
        cells.push(photos.join(" "));
        out.push_str(&domain::csv::row(&cells));
    }
    out.into_bytes()
}

/// Uploads a file: the import's id (from the redirect), or the page that refused it.
async fn upload(app: &TestApp, cookie: &str, name: &str, bytes: &[u8]) -> Result<i64, crate::support::Reply> {
    let r = app.post_multipart("/space/stock-import", &[("cookie", cookie)], &[Part::File("file", name, bytes)]).await;
    if r.status != StatusCode::SEE_OTHER {
        return Err(r);
    }
    Ok(r.location().trim_start_matches("/space/stock-import/").parse().unwrap())
}

async fn status_of(app: &TestApp, id: i64) -> String {
    let n = app
        .state
        .store
        .count_admin(&format!(
            "select cast(case status when 'online' then 1 when 'pending' then 2 when 'removed' then 3 when 'deleted' then 4 else 9 end as bigint) from listing where listing_id = {id}"
        ))
        .await
        .unwrap();
    ["", "online", "pending", "removed", "deleted"].get(n as usize).copied().unwrap_or("other").to_owned()
}

async fn a_stock_file_is_previewed_applied_once_guarded_and_undone(app: &TestApp) {
    use wiremock::matchers::{method, path_regex};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let peer = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path_regex("^/car/[0-9]+\\.jpg$"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(jpeg(800, 600, 90), "image/jpeg"))
        .mount(&peer)
        .await;
    let shop_id = shop_with_vins(app, 5).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let h = [("cookie", dealer.as_str())];
    let (cars, _) = app.state.store.import_cars(shop_id).await.unwrap();
    let mine: Vec<(i64, SellInput)> = cars
        .iter()
        .filter(|c| matches!(c.listing.status, domain::selling::ListingStatus::Online | domain::selling::ListingStatus::Pending))
        .map(|c| (c.listing.listing_id, web::features::selling::input_of_listing(&c.listing)))
        .collect();
    assert!(mine.len() >= 4);
    let (changed_id, changed) = mine[0].clone();
    let mut cheaper = changed.clone();
    cheaper.price = "6.66".into();
    let new_car = |n: u64| {
        let series = domain::catalog::series_by_slug("langyi").unwrap();
        let input = SellInput {
            series: "大众 朗逸".into(),
            reg: "2021年6月".into(),
            mileage: "3.2".into(),
            price: "9.8".into(),
            city: "上海".into(),
            colour: "白色".into(),
            gearbox: "自动".into(),
            emission: "国六".into(),
            vin: domain::report::sandbox_vin(2021, 9_000 + n),
            model_year: "2021".into(),
            displacement: series.engines[0].into(),
            trim: "舒适版".into(),
            ..SellInput::default()
        };
        let photos = (1..=3).map(|i| format!("{}/car/{}.jpg", peer.uri(), n * 10 + i)).collect::<Vec<_>>();
        (input, photos)
    };
    let kept: Vec<(SellInput, Vec<String>)> = mine.iter().skip(1).map(|(_, i)| (i.clone(), Vec::new())).collect();
    let mut bad_vin = new_car(3);
    bad_vin.0.vin = "LSVAB12C0E4567890".into();
    let twice = new_car(1);

    // The shop's stock downloaded in the template reads back as it is: every car unchanged.
    let stock = app.get("/space/stock-import/stock.csv", &h).await;
    assert_eq!(stock.status, StatusCode::OK);
    assert_eq!(stock.body.trim_start_matches('\u{feff}').lines().count(), mine.len() + 1, "{}", stock.body);
    let same = upload(app, &dealer, "在售库存.csv", stock.body.as_bytes()).await.map_err(|r| r.body).unwrap();
    let counts = app.get(&format!("/space/stock-import/{same}"), &h).await.page().texts(".import-counts li").join("|");
    assert_eq!(counts, format!("0新建|0更新|{}不变|0下架", mine.len()));
    let workbook = app.get("/space/stock-import/stock.xlsx", &h).await;
    assert_eq!(workbook.headers["content-type"], web::render::download::XLSX);
    let same = upload(app, &dealer, "在售库存.xlsx", &workbook.raw).await.map_err(|r| r.body).unwrap();
    let counts = app.get(&format!("/space/stock-import/{same}"), &h).await.page().texts(".import-counts li").join("|");
    assert_eq!(counts, format!("0新建|0更新|{}不变|0下架", mine.len()), "the workbook too");

    // A file with errors: previewed row by row, its errors beside the row, no way to apply.
    let mut rows = vec![(cheaper.clone(), Vec::new())];
    rows.extend(kept.iter().cloned());
    rows.extend([new_car(1), new_car(2), bad_vin, twice]);
    let id = upload(app, &dealer, "库存.csv", &csv(&rows)).await.map_err(|r| r.body).unwrap();
    let preview = app.get(&format!("/space/stock-import/{id}"), &h).await;
    assert_eq!(preview.status, StatusCode::OK);
    let page = preview.page();
    let counts = page.texts(".import-counts li").join("|");
    assert!(
        counts.contains("2新建") && counts.contains("1更新") && counts.contains(&format!("{}不变", kept.len())) && counts.contains("2行有错误"),
        "{counts}"
    );
    let last = rows.len() + 1;
    let errors = page.texts(&format!("#line-{} .row-errors", last - 1)).concat();
    assert!(errors.contains("车架号") && errors.contains("校验"), "the bad VIN's row says why: {errors}");
    assert!(page.texts(&format!("#line-{last} .row-errors")).concat().contains("已有这个车架号"), "the second row of one VIN");
    assert!(page.texts("#line-2 .row-changes").concat().contains("6.66万"), "the change is shown: {}", page.texts("#line-2").concat());
    assert!(page.texts("form.import-apply").is_empty(), "a file with errors cannot be applied");
    let r = app.post_form(&format!("/space/stock-import/{id}/apply"), &h, "").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let price = |id: i64| async move { app.state.store.count_admin(&format!("select price_yuan from listing where listing_id = {id}")).await.unwrap() };
    let before_price = price(changed_id).await;
    assert_ne!(before_price, 66_600, "nothing written from a file with errors");

    // A new car whose photo cannot be fetched: back to the preview with the reason, nothing written.
    let mut broken = new_car(4);
    broken.1[2] = format!("{}/missing.jpg", peer.uri());
    let mut rows = vec![(cheaper.clone(), Vec::new())];
    rows.extend(kept.iter().cloned());
    rows.push(broken);
    let id = upload(app, &dealer, "库存.csv", &csv(&rows)).await.map_err(|r| r.body).unwrap();
    let listings = app.state.store.count_admin("select count(*) from listing").await.unwrap();
    let r = app.post_form(&format!("/space/stock-import/{id}/apply"), &h, "").await;
    assert_eq!(r.location(), format!("/space/stock-import/{id}?failed=1"));
    let page = app.get(r.location(), &h).await.page();
    let row = page.texts(&format!("#line-{} .row-errors", rows.len() + 1)).concat();
    assert!(row.contains("照片网址") && row.contains("第3张") && row.contains("404"), "{row}");
    assert_eq!(app.state.store.count_admin("select count(*) from listing").await.unwrap(), listings);
    assert_eq!(price(changed_id).await, before_price, "nothing written when a photo fails");

    // The file fixed: applied, once, however often 确认导入 is sent.
    let mut rows = vec![(cheaper.clone(), Vec::new())];
    rows.extend(kept.iter().cloned());
    rows.extend([new_car(1), new_car(2)]);
    let applied = upload(app, &dealer, "库存-改.csv", &csv(&rows)).await.map_err(|r| r.body).unwrap();
    let r = app.post_form(&format!("/space/stock-import/{applied}/apply"), &h, "").await;
    assert_eq!(r.location(), format!("/space/stock-import/{applied}?applied=1"), "{} {}", r.status, r.body.chars().take(600).collect::<String>());
    let again = app.post_form(&format!("/space/stock-import/{applied}/apply"), &h, "").await;
    assert_eq!(again.location(), format!("/space/stock-import/{applied}"), "a second click applies nothing");
    assert_eq!(app.state.store.count_admin("select count(*) from listing").await.unwrap(), listings + 2, "two new cars, once");
    assert_eq!(price(changed_id).await, 66_600);
    let made: Vec<i64> = {
        let mut ids = Vec::new();
        for n in [1, 2] {
            let vin = domain::report::sandbox_vin(2021, 9_000 + n);
            ids.push(app.state.store.count_admin(&format!("select listing_id from listing where vin = '{vin}' and shop_id = {shop_id}")).await.unwrap());
        }
        ids
    };
    for id in &made {
        assert_eq!(status_of(app, *id).await, "pending", "a new car waits for review");
        assert_eq!(app.state.store.count_admin(&format!("select count(*) from listing_photo where listing_id = {id}")).await.unwrap(), 3);
    }
    let done = app.get(&format!("/space/stock-import/{applied}?applied=1"), &h).await;
    assert!(done.body.contains("已导入") && done.body.contains("撤销这次导入"), "{}", done.body);

    // A file that lists one car would take down the rest: asked first, then done.
    let live_before: Vec<(i64, String)> = {
        let mut v = Vec::new();
        for (id, _) in mine.iter().skip(1) {
            v.push((*id, status_of(app, *id).await));
        }
        v
    };
    let only = upload(app, &dealer, "只有一辆.csv", &csv(&[(cheaper.clone(), Vec::new())])).await.map_err(|r| r.body).unwrap();
    let page = app.get(&format!("/space/stock-import/{only}"), &h).await;
    assert!(page.body.contains("我确认下架"), "the guard asks: {}", page.body);
    let r = app.post_form(&format!("/space/stock-import/{only}/apply"), &h, "").await;
    assert_eq!(r.location(), format!("/space/stock-import/{only}?confirm=1#guard"));
    let asked = app.get(&format!("/space/stock-import/{only}?confirm=1"), &h).await;
    assert_eq!(asked.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(asked.page().texts("#confirm-error").concat().contains("请勾选确认"));
    for (id, was) in &live_before {
        assert_eq!(&status_of(app, *id).await, was, "nothing taken down unconfirmed");
    }
    let r = app.post_form(&format!("/space/stock-import/{only}/apply"), &h, "confirm_removal=1").await;
    assert_eq!(r.location(), format!("/space/stock-import/{only}?applied=1"));
    for (id, _) in &live_before {
        assert_eq!(status_of(app, *id).await, "removed", "a car the file no longer lists is taken down");
    }
    for id in &made {
        assert_eq!(status_of(app, *id).await, "removed");
    }

    // Undone: the taken-down cars go back as they were (on sale, or in review), except one
    // changed since it was taken down, which goes through review; then the first import: the
    // new cars deleted, the price restored.
    let (edited, _) = live_before.iter().find(|(_, was)| was == "online").expect("a car that was on sale");
    app.state
        .store
        .execute_admin(&format!(
            "insert into listing_event (listing_id, actor_role, action, from_status, to_status, reason, created_at) \
             values ({edited}, 'seller', 'edit', 'removed', 'removed', '', {})",
            crate::support::NOW + 1
        ))
        .await
        .unwrap();
    let r = app.post_form(&format!("/space/stock-import/{only}/undo"), &h, "").await;
    assert_eq!(r.location(), format!("/space/stock-import/{only}?undone=1"));
    for (id, was) in &live_before {
        let expected = if id == edited { "pending" } else { was.as_str() };
        assert_eq!(status_of(app, *id).await, expected, "car {id} was {was}");
    }
    assert!(live_before.iter().filter(|(id, was)| was == "online" && id != edited).count() > 0, "some car back on sale without review");
    let r = app.post_form(&format!("/space/stock-import/{only}/undo"), &h, "").await;
    assert_eq!(r.location(), format!("/space/stock-import/{only}"), "undone once");
    let r = app.post_form(&format!("/space/stock-import/{applied}/undo"), &h, "").await;
    assert_eq!(r.location(), format!("/space/stock-import/{applied}?undone=1"));
    for id in &made {
        assert_eq!(status_of(app, *id).await, "deleted");
    }
    assert_eq!(price(changed_id).await, before_price, "the change undone");

    // Another shop's import is not found.
    let other = app
        .state
        .store
        .count_admin(&format!("select shop_id from shop where shop_id <> {shop_id} and status = 'open' order by shop_id limit 1"))
        .await
        .unwrap();
    let rival = login(app, &owner_mobile(app, other).await, "").await;
    assert_eq!(app.get(&format!("/space/stock-import/{applied}"), &[("cookie", rival.as_str())]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.post_form(&format!("/space/stock-import/{applied}/undo"), &[("cookie", rival.as_str())], "").await.status, StatusCode::NOT_FOUND);
}

async fn bad_stock_files_are_refused_with_a_reason_and_nothing_kept(app: &TestApp) {
    let shop_id = stocked_shop(app).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let h = [("cookie", dealer.as_str())];
    let page = app.get("/space/stock-import", &h).await;
    assert_eq!(page.status, StatusCode::OK);
    for link in ["/space/stock-import/template.xlsx", "/space/stock-import/template.csv"] {
        assert!(page.body.contains(link));
        let file = app.get(link, &h).await;
        assert_eq!(file.status, StatusCode::OK, "{link}");
        assert!(file.headers["content-disposition"].to_str().unwrap().contains("attachment"));
    }
    let csv = app.get("/space/stock-import/template.csv", &h).await;
    assert!(csv.body.starts_with('\u{feff}') && csv.body.contains("车架号*") && csv.body.contains("LSVAB12C8E4567890"), "{}", csv.body);
    let imports = || async { app.state.store.count_admin("select count(*) from stock_import").await.unwrap() };
    let kept = imports().await;
    let big = vec![b'a'; domain::stock_import::MAX_BYTES + 10];
    let formula =
        "\u{feff}车架号,品牌车系,年款,配置,首次上牌,表显里程,售价,城市,颜色\r\n=HYPERLINK(\"http://x\"),大众 朗逸,2021,舒适版,2021-06,3,9,上海,白色\r\n";
    for (name, bytes, says) in [
        ("库存.xls", b"\xd0\xcf\x11\xe0".to_vec(), "另存为"),
        ("库存.pdf", b"%PDF-1.4".to_vec(), "请上传 .xlsx 或 .csv"),
        ("库存.csv", "车架号,价格\r\nLSVAB12C8E4567890,9\r\n".as_bytes().to_vec(), "表头缺少"),
        ("库存.csv", Vec::new(), "空"),
        ("库存.csv", big, "超过5MB"),
        ("库存.xlsx", b"PK\x03\x04not a workbook".to_vec(), "无法读取"),
        ("库存.csv", b"\xff\xfe\x00\xd8garbage\x80\x80".to_vec(), "编码"),
    ] {
        let r = upload(app, &dealer, name, &bytes).await.expect_err(name);
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{name}");
        let shown = r.page().texts("#import-error").concat();
        assert!(shown.contains(says), "{name}: {shown}");
    }
    assert_eq!(imports().await, kept, "a refused file keeps nothing");
    // A formula is read as a mistake in its row, not run.
    let id = upload(app, &dealer, "公式.csv", formula.as_bytes()).await.map_err(|r| r.body).unwrap();
    let page = app.get(&format!("/space/stock-import/{id}"), &h).await.page();
    assert!(page.texts("#line-2 .row-errors").concat().contains("不要使用公式"), "{:?}", page.texts("#line-2"));
    // Ten thousand rows: too many for one file.
    let mut many = String::from("车架号,品牌车系,年款,配置,首次上牌,表显里程,售价,城市,颜色\r\n");
    for n in 0..10_000 {
        many.push_str(&format!("{},大众 朗逸,2021,舒适版,2021-06,3,9,上海,白色\r\n", domain::report::sandbox_vin(2021, n)));
    }
    let r = upload(app, &dealer, "全部.csv", many.as_bytes()).await.expect_err("10,000 rows");
    assert!(r.page().texts("#import-error").concat().contains("最多1000辆"), "{}", r.body);
    // Not a dealer: not this page.
    let buyer = login(app, "13912345678", "").await;
    assert_ne!(app.get("/space/stock-import", &[("cookie", buyer.as_str())]).await.status, StatusCode::OK);
}

async fn a_slow_import_shows_its_progress_and_an_interrupted_one_its_undo(app: &TestApp) {
    use wiremock::matchers::{method, path_regex};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    // Photos that take four seconds each: longer than 确认导入 waits.
    let peer = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path_regex("^/slow/[0-9]+\\.jpg$"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(jpeg(800, 600, 120), "image/jpeg").set_delay(std::time::Duration::from_secs(4)))
        .mount(&peer)
        .await;
    let shop_id = shop_with_vins(app, 2).await;
    let dealer = login(app, &owner_mobile(app, shop_id).await, "").await;
    let h = [("cookie", dealer.as_str())];
    let stock = app.get("/space/stock-import/stock.csv", &h).await.body;
    let series = domain::catalog::series_by_slug("langyi").unwrap();
    let vin = domain::report::sandbox_vin(2021, 9_700);
    let car = [vin.as_str(), "大众 朗逸", "2021年6月", "3.2", "9.8", "上海", "白色", "0", "自动", "国六", "一手车", "", "2021", series.engines[0], "舒适版"];
    let photos: Vec<String> = (1..=3).map(|i| format!("{}/slow/{i}.jpg", peer.uri())).collect();
    let mut file = stock.trim_end().to_owned();
    file.push_str("\r\n");
    let mut cells: Vec<String> = car.iter().map(|c| (*c).to_owned()).collect();
    // The downloaded stock's columns are the template's: the new car's cells in that order.
    let header: Vec<String> = stock.trim_start_matches('\u{feff}').lines().next().unwrap().split(',').map(str::to_owned).collect();
    let by_header: Vec<String> = header
        .iter()
        .map(|h| {
            let bare = domain::stock_import::column_of(h).map_or("", |c| c.header);
            match bare {
                "照片网址" => photos.join(" "),
                _ => HEADER
                    .iter()
                    .position(|x| domain::stock_import::column_of(x).is_some_and(|c| c.header == bare))
                    .map_or(String::new(), |i| std::mem::take(&mut cells[i])),
            }
        })
        .collect();
    file.push_str(&domain::csv::row(&by_header));
    let id = upload(app, &dealer, "库存.csv", file.as_bytes()).await.map_err(|r| r.body).unwrap();
    let page = format!("/space/stock-import/{id}");
    let r = app.post_form(&format!("{page}/apply"), &h, "").await;
    assert_eq!(r.location(), format!("{page}?working=1"), "the page does not wait for the photos");
    let working = app.get(&format!("{page}?working=1"), &h).await;
    assert_eq!(working.status, StatusCode::OK);
    assert!(working.body.contains(r#"http-equiv="refresh""#), "it refreshes itself");
    let p = working.page();
    assert!(p.texts(".import-working").concat().contains("3张"), "{}", p.texts(".import-working").concat());
    assert!(!working.body.contains("撤销这次导入"), "no undo while it is written");
    // The refresh once it has ended answers its outcome.
    let mut outcome = String::new();
    for _ in 0..100 {
        let r = app.get(&format!("{page}?working=1"), &h).await;
        if r.status == StatusCode::SEE_OTHER {
            outcome = r.location().to_owned();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(outcome, format!("{page}?applied=1"));
    let made = app.state.store.count_admin(&format!("select count(*) from listing where vin = '{vin}' and status <> 'deleted'")).await.unwrap();
    assert_eq!(made, 1);
    assert!(app.get(&format!("{page}?applied=1"), &h).await.body.contains("撤销这次导入"));

    // A server that stopped midway: after half an hour the page says so and offers the undo of
    // what was written.
    let listing = app.state.store.count_admin(&format!("select listing_id from listing where vin = '{vin}'")).await.unwrap();
    app.state
        .store
        .execute_admin(&format!(
            "update stock_import set applied_at = {}, done = '{{\"finished\":false,\"created\":[{listing}],\"updated\":[],\"taken_down\":[]}}' where import_id = {id}",
            crate::support::NOW - 3_600
        ))
        .await
        .unwrap();
    let r = app.get(&page, &h).await;
    assert!(r.page().texts(".notice").concat().contains("中断"), "{}", r.page().texts(".notice").concat());
    assert!(!r.body.contains(r#"http-equiv="refresh""#));
    assert_eq!(app.post_form(&format!("{page}/undo"), &h, "").await.location(), format!("{page}?undone=1"));
    assert_eq!(status_of(app, listing).await, "deleted", "what was written is undone");
}
