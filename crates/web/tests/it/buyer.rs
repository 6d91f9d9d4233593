//! The buyer journey over HTTP, each test on SQLite and on PostgreSQL: the car list with its
//! filters, sorts, pages and SEO; the detail page with its rating, freshness, JSON-LD and lead
//! forms; news; compare; the inspected and campaign lists; sitemaps and robots.txt.

use crate::support::{IPHONE, NOW, TestApp, detail_links};
use axum::http::StatusCode;

on_both!(300 =>
    followers_are_alerted_once_a_day_or_at_once_with_a_vip_plan,
    the_car_list_filters_sorts_and_pages,
    an_empty_search_suggests_widening,
    the_detail_page_shows_the_car_and_its_history,
    made_up_device_ids_from_one_address_keep_a_bounded_history,
    sold_removed_and_legacy_detail_links,
    lead_forms_validate_deduplicate_and_limit,
    news_tabs_pages_and_articles,
    compare_keeps_three_cars_in_a_cookie,
    quality_and_campaign_lists,
    sitemaps_cover_every_online_listing,
    legal_pages_show_their_version_and_every_footer_link_resolves,
    dealer_plans_promote_their_cars_where_they_apply,
);

/// The listing ids of a list page's promoted cards.
fn promoted_ids(body: &str) -> Vec<i64> {
    crate::support::Page::parse(body)
        .attrs("li.card.promoted > a", "href")
        .iter()
        .map(|href| {
            href.split("/details/")
                .nth(1)
                .unwrap()
                .split(['"', '?', '/', '.'])
                .next()
                .unwrap()
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .unwrap()
        })
        .collect()
}

/// Online cars of `shop` in `city` (anywhere without one).
async fn cars_of(app: &TestApp, shop: i64, city: Option<&'static domain::region::City>) -> usize {
    let q = domain::search::CarQuery { city, ..Default::default() };
    let scope = store::Scope { shop_id: Some(shop), ..store::Scope::ALL };
    app.state.store.count_matching(&q, scope, domain::time::year(NOW)).await.unwrap() as usize
}

/// The seed gives three demo shops dealer plans (two for their own city, one nationwide): page 1
/// of 综合 opens with up to three cars of the shops whose plan applies to the list (the
/// nationwide one everywhere, a city one in its city's list), each labelled 推广; other orders
/// and pages have none; the shops carry the VIP badge; all of it ends with the plan.
async fn dealer_plans_promote_their_cars_where_they_apply(app: &TestApp) {
    let promotions = app.state.store.promotions(NOW).await.unwrap();
    assert_eq!(promotions.len(), 3, "{promotions:?}");
    let nationwide = promotions.iter().find(|p| p.city_code.is_none()).unwrap().shop_id;
    let r = app.get("/carlist", &[]).await;
    let ids = promoted_ids(&r.body);
    assert_eq!(ids.len(), cars_of(app, nationwide, None).await.min(3), "{}", r.body);
    assert_eq!(r.body.matches(r#"<span class="tag promo" title="商家付费推广">推广</span>"#).count(), ids.len(), "every paid place says so");
    for id in &ids {
        assert_eq!(app.state.store.listing_detail(*id).await.unwrap().shop_id, Some(nationwide), "only a nationwide plan applies to the whole list");
    }
    // Only the first page of 综合 on the whole stock.
    for path in ["/carlist?sort=new", "/carlist?page=2", "/servicehall/qualitycarlist"] {
        assert!(promoted_ids(&app.get(path, &[]).await.body).is_empty(), "{path}");
    }
    // In a city plan's city, its shop's cars join the nationwide shop's there.
    let city_plan = promotions.iter().find(|p| p.city_code.is_some()).unwrap();
    let city = domain::region::city(city_plan.city_code.unwrap() as u32).unwrap();
    let in_city = promoted_ids(&app.get(&format!("/carlist?city={}", city.slug), &[]).await.body);
    let expected = (cars_of(app, city_plan.shop_id, Some(city)).await + cars_of(app, nationwide, Some(city)).await).min(3);
    assert!(expected > 0, "the demo dealer has cars in its own city");
    assert_eq!(in_city.len(), expected);
    for id in in_city {
        let d = app.state.store.listing_detail(id).await.unwrap();
        assert!(d.city_code == city.code as i32 && [Some(city_plan.shop_id), Some(nationwide)].contains(&d.shop_id));
    }
    // The shops' badge.
    let shop_path = app.get(&format!("/shop/profile/{}", city_plan.shop_id), &[]).await.location().to_owned();
    assert!(app.get(&shop_path, &[]).await.body.contains("VIP商家"), "{shop_path}");
    let plain = app.get("/shop/profile/9", &[]).await;
    assert!(!app.get(plain.location(), &[]).await.body.contains("VIP商家"));
    // A year on every plan has ended: no paid places, no badge.
    let later = app.variant(app.state.config.clone(), NOW + 400 * 86_400);
    let r = crate::support::get_on(&later, &format!("/carlist?city={}", city.slug), &[]).await;
    assert!(promoted_ids(&r.body).is_empty() && !r.body.contains("推广</span>"));
    assert!(!crate::support::get_on(&later, &shop_path, &[]).await.body.contains("VIP商家"));
}

async fn legal_pages_show_their_version_and_every_footer_link_resolves(app: &TestApp) {
    for doc in domain::legal::docs() {
        let r = app.get(&format!("/actives/help/{}", doc.slug), &[]).await;
        assert_eq!(r.status, StatusCode::OK, "{}", doc.slug);
        assert!(r.body.contains(&format!("<h1>{}</h1>", doc.title)));
        assert!(r.body.contains(&format!("版本 {} · {} 起生效", doc.version, doc.effective)), "{}", doc.slug);
        assert!(doc.sections.iter().all(|(h, _)| r.body.contains(&format!("<h2>{h}</h2>"))));
    }
    assert_eq!(app.get("/actives/help/nosuchdoc", &[]).await.status, StatusCode::NOT_FOUND);
    // The footer's and the sell form's links lead to these pages, not to a 404.
    let home = app.get("/", &[]).await;
    let seller = crate::support::login(app, "13900007777", "").await;
    let sell = app.get("/personalsell", &[("cookie", &seller)]).await;
    for page in [&home.body, &sell.body] {
        for href in crate::support::Page::parse(page).attrs(r#"a[href^="/actives/help/"]"#, "href") {
            assert_eq!(app.get(&href, &[]).await.status, StatusCode::OK, "{href}");
        }
    }
    assert!(sell.body.contains(r#"href="/actives/help/vippersonalsellcar""#));
}

async fn online(app: &TestApp) -> i64 {
    app.state.store.count_online(None).await.unwrap()
}

async fn the_car_list_filters_sorts_and_pages(app: &TestApp) {
    let r = app.get("/carlist", &[("user-agent", IPHONE)]).await;
    assert_eq!(r.status, StatusCode::OK);
    let total = online(app).await;
    assert!(r.body.contains(&format!("共 <b>{total}</b> 辆")), "result count");
    // 20 results a page (the structured list below has them all); paid places come on top, and a
    // result that is also one is shown once.
    let promoted = r.body.matches(r#"<li class="card promoted">"#).count();
    assert!(promoted <= 3);
    assert!((20 - promoted..=20).contains(&r.body.matches(r#"<li class="card" id="car-"#).count()), "20 per page");
    assert!(r.body.contains(r#"<link rel="canonical" href="http://127.0.0.1:8080/carlist">"#));
    assert!(r.body.contains(r#"<meta name="robots" content="index,follow">"#));
    assert!(r.body.contains(r#"href="/carlist?page=2" rel="next""#), "crawlable paging");
    assert!(r.body.contains(r#"href="/carlist?sort=price_asc" rel="nofollow""#), "sort links are nofollow");
    let ld = r.json_ld();
    assert_eq!(ld[0]["@type"], "ItemList");
    assert_eq!(ld[0]["numberOfItems"], total);
    assert_eq!(ld[0]["itemListElement"].as_array().unwrap().len(), 20);
    assert_eq!(ld[1]["@type"], "BreadcrumbList");
    // The same filters in another order and spelling give the same canonical URL.
    let a = app.get("/carlist?sort=price_asc&price=5.0-8&brand=dazhong", &[]).await;
    let b = app.get("/carlist?brand=dazhong&price=5-8&sort=price_asc", &[]).await;
    let canonical = r#"<link rel="canonical" href="http://127.0.0.1:8080/carlist?brand=dazhong&#38;price=5-8&#38;sort=price_asc">"#;
    assert!(a.body.contains(canonical) && b.body.contains(canonical));
    assert!(a.body.contains(r#"<meta name="robots" content="noindex,follow">"#), "two filters and a sort are not indexed");
    // Chips remove one filter each.
    assert!(a.body.contains(r#"<a class="chip" href="/carlist?price=5-8&#38;sort=price_asc""#), "remove the brand");
    assert!(a.body.contains(r#"<a class="chip" href="/carlist?brand=dazhong&#38;sort=price_asc""#), "remove the price");
    // Prices on the sorted page rise and stay in the band.
    let prices: Vec<f64> = a.page().texts("p.price > b").iter().map(|p| p.parse::<f64>().unwrap()).collect();
    assert!(!prices.is_empty(), "the band has cars: {}", a.body);
    assert!(prices.iter().all(|p| (5.0..8.0).contains(p)), "{prices:?}");
    assert!(prices.windows(2).all(|w| w[0] <= w[1]), "rising: {prices:?}");
    // A series page lists the brand's series and every card of it.
    let series = app.get("/carlist?keyword=langyi", &[]).await;
    assert!(series.body.contains(r#"<link rel="canonical" href="http://127.0.0.1:8080/carlist?brand=dazhong&#38;series=langyi">"#), "pinyin keyword → series");
    assert!(series.body.contains("大众朗逸二手车"));
    let chinese = app.get("/carlist?keyword=%E6%9C%97%E9%80%B8", &[]).await;
    assert_eq!(detail_links(&chinese.body), detail_links(&series.body), "朗逸 in Chinese finds the same cars");
    // Filters as plain links, a GET form for the keyword.
    assert!(r.body.contains(r#"<form class="search slim" action="/carlist" method="get""#));
    assert!(r.body.contains(r#"href="/carlist?fuel=3""#));
    assert!(r.body.contains(r#"href="/carlist?province=hunan""#));
    let hunan = app.get("/carlist?province=hunan", &[]).await;
    assert!(hunan.body.contains(r#"href="/carlist?city=changsha""#), "a province shows its cities");
    // Past the last page is 404; garbage is ignored.
    assert_eq!(app.get("/carlist?page=400", &[]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/carlist?price=abc&page=-1&brand=%ZZ", &[]).await.status, StatusCode::OK);
    // Ratings are shown on cards.
    assert!(r.body.contains(r#"class="rating rating-"#));
    assert!(r.body.contains(r#"srcset="/upload/demo/"#) && r.body.contains(r#"_w320.webp 320w"#), "WebP thumbnails with srcset");
    assert!(r.body.contains(r#"width="320" height="240" loading="lazy""#), "below the fold is lazy, with its size set");
    // A card writes its title four times and its photo's address in two attributes, each escaped
    // once where the card is made: markup in a title is text, an ampersand in an address is read
    // back as one.
    let newest = app.state.store.latest_listings(None, 1).await.unwrap()[0].listing_id;
    let (title, cover) = (r#"宝马 <X5> "M&S" 版"#, "https://img.example.com/c.jpg?w=1&h=2");
    app.state.store.execute_admin(&format!("update listing set title = '{title}', cover = '{cover}' where listing_id = {newest}")).await.unwrap();
    let list = app.get("/carlist?sort=new", &[]).await;
    assert!(!list.body.contains("<X5>"), "{}", list.body);
    let card = format!(r#"li#car-{newest}"#);
    let page = list.page();
    assert_eq!(page.texts(&format!("{card} h3")), [title]);
    assert_eq!(page.attrs(&format!("{card} img.cover"), "alt"), [title]);
    assert_eq!(page.attrs(&format!("{card} img.cover"), "src"), [cover]);
    assert_eq!(page.attrs(&format!("{card} button"), "aria-label"), [format!("收藏 {title}"), format!("加入对比 {title}")]);
}

async fn an_empty_search_suggests_widening(app: &TestApp) {
    let r = app.get("/carlist?keyword=%E6%B2%A1%E6%9C%89%E8%BF%99%E7%A7%8D%E8%BD%A6&price=5-8", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("共 <b>0</b> 辆"));
    assert!(r.body.contains("没有找到符合条件的车源"));
    assert!(r.body.contains(r#"<a href="/carlist?keyword=%E6%B2%A1%E6%9C%89%E8%BF%99%E7%A7%8D%E8%BD%A6">去掉「5-8万」</a>"#));
    assert!(r.body.contains(r#"<meta name="robots" content="noindex,follow">"#));
    assert!(r.body.contains(r#"value="没有这种车""#), "the keyword is kept in the box");
}

async fn the_detail_page_shows_the_car_and_its_history(app: &TestApp) {
    let id = detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    app.state.store.execute_admin(&format!("update listing set vin = 'LSVAU2180N2183456' where listing_id = {id}")).await.unwrap();
    let did = "0123456789abcdef0123456789abcdef";
    let r = app.get(&format!("/details/{id}"), &[("user-agent", IPHONE), ("cookie", &format!("hx_did={did}"))]).await;
    assert_eq!(r.status, StatusCode::OK);
    let d = app.state.store.listing_detail(id).await.unwrap();
    assert!(r.body.contains(&d.title.replace('&', "&amp;")));
    assert!(r.body.contains("新车指导价") && r.body.contains("车辆档案") && r.body.contains("上牌时间"));
    assert!(r.body.contains("已上架") && r.body.contains("确认在售"), "freshness");
    assert!(r.body.contains("询底价") && r.body.contains("预约看车"));
    assert!(!r.body.contains("LSVAU2180N2183456"), "the VIN is never shown");
    assert!(r.body.contains(&format!(r#"<meta property="og:url" content="http://127.0.0.1:8080/details/{id}">"#)));
    assert!(r.body.contains(r#"<meta property="og:image" content="http://127.0.0.1:8080/upload/demo/"#));
    assert!(r.body.contains(r#"fetchpriority="high""#), "the first photo loads first");
    let ld = r.json_ld();
    let car = &ld[0];
    assert_eq!(car["@type"], "Car");
    assert_eq!(car["name"], d.title);
    assert_eq!(car["brand"]["name"], d.brand_name);
    assert_eq!(car["model"], d.series_name);
    assert_eq!(car["mileageFromOdometer"]["value"], d.mileage_km);
    assert_eq!(car["dateVehicleFirstRegistered"], format!("{}-{:02}", d.first_reg_year, d.first_reg_month));
    assert_eq!(car["offers"]["price"], d.price_yuan);
    assert_eq!(car["offers"]["priceCurrency"], "CNY");
    assert!(car.get("vehicleIdentificationNumber").is_none());
    assert_eq!(ld[1]["@type"], "BreadcrumbList");
    // The rating block says what it rests on.
    assert!(r.body.contains("rating-box"));
    assert!(r.body.contains("基于") || r.body.contains("估算"));
    // The view was recorded against the device cookie (in a batch off the page).
    app.state.views.flush().await;
    let viewed = app.state.store.viewed_by_device(did, 10).await.unwrap();
    assert_eq!(viewed.first().map(|v| v.0), Some(id));
    // Price cuts are listed when there are some.
    app.state.store.execute_admin(&format!("update listing set price_cut_count = 1 where listing_id = {id}")).await.unwrap();
    app.state
        .store
        .execute_admin(&format!(
            "insert into price_change (listing_id, old_price_yuan, new_price_yuan, changed_at) values ({id}, {}, {}, {})",
            d.price_yuan + 5000,
            d.price_yuan,
            NOW - 86_400
        ))
        .await
        .unwrap();
    let r = app.get(&format!("/details/{id}"), &[]).await;
    assert!(r.body.contains("降价") && r.body.contains("价格变化"));
    // A request without the device cookie (a first visit, a crawler) is handed an id but keeps
    // no history under it: it would never be sent back.
    let issued = r.cookies().iter().find_map(|c| c.strip_prefix("hx_did=").map(|v| v[..32].to_owned())).expect("a device id is issued");
    app.state.views.flush().await;
    assert!(app.state.store.viewed_by_device(&issued, 10).await.unwrap().is_empty());
}

/// A device id is whatever the browser sends back, so a client can make up a new one for every
/// request: what one address adds to anonymous history is bounded per hour, while another
/// address, and a signed-in buyer on the same one, keep theirs.
async fn made_up_device_ids_from_one_address_keep_a_bounded_history(app: &TestApp) {
    let id = detail_links(&app.get("/carlist", &[]).await.body)[0];
    let limit = web::services::history::ANONYMOUS_VIEWS_PER_HOUR as usize;
    let device = |n: usize| format!("{n:032x}");
    let open = |n: usize, peer: &'static str| {
        let cookie = format!("hx_did={}", device(n));
        async move {
            let r = app.get(&format!("/details/{id}"), &[("cookie", cookie.as_str()), ("x-test-peer", peer)]).await;
            assert_eq!(r.status, StatusCode::OK);
        }
    };
    for n in 0..limit + 5 {
        open(n, "203.0.113.9").await;
    }
    open(10_000, "198.51.100.4").await;
    let buyer = crate::support::login(app, "13100000777", "").await;
    let cookie = format!("{buyer}; hx_did={}", device(20_000));
    app.get(&format!("/details/{id}"), &[("cookie", cookie.as_str()), ("x-test-peer", "203.0.113.9")]).await;
    app.state.views.flush().await;
    let mut kept = 0;
    for n in 0..limit + 5 {
        kept += app.state.store.viewed_by_device(&device(n), 10).await.unwrap().len();
    }
    assert_eq!(kept, limit, "one address's made-up devices keep {limit} views an hour");
    assert_eq!(app.state.store.viewed_by_device(&device(10_000), 10).await.unwrap().len(), 1, "another address keeps its own");
    let mine = app.get("/space/history", &[("cookie", buyer.as_str())]).await;
    assert_eq!(mine.page().count("ul.cards > li"), 1, "a signed-in buyer's view is kept on a spent address");
}

async fn sold_removed_and_legacy_detail_links(app: &TestApp) {
    let ids = detail_links(&app.get("/carlist", &[]).await.body);
    let (sold, removed) = (ids[0], ids[1]);
    let store = &app.state.store;
    store.execute_admin(&format!("update listing set status = 'sold' where listing_id = {sold}")).await.unwrap();
    store.execute_admin(&format!("update listing set status = 'removed' where listing_id = {removed}")).await.unwrap();
    let r = app.get(&format!("/details/{sold}"), &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("已售") && r.body.contains("相似车源"));
    assert!(r.body.contains(r#"content="noindex,follow""#));
    assert_eq!(r.json_ld()[0]["offers"]["availability"], "https://schema.org/SoldOut");
    assert_eq!(app.get(&format!("/details/{removed}"), &[]).await.status, StatusCode::NOT_FOUND);
    for bad in ["/details/0", "/details/abc", "/details/99999999", "/details/-3", "/details/1.5"] {
        assert_eq!(app.get(bad, &[]).await.status, StatusCode::NOT_FOUND, "{bad}");
    }
    let old = app.get(&format!("/details/old?id={sold}"), &[]).await;
    assert_eq!(old.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(old.location(), format!("/details/{sold}"));
    for bad in ["/details/old", "/details/old?id=x", "/details/old?id=0"] {
        assert_eq!(app.get(bad, &[]).await.status, StatusCode::NOT_FOUND, "{bad}");
    }
}

async fn lead_forms_validate_deduplicate_and_limit(app: &TestApp) {
    let id = detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    let url = format!("/details/{id}/lead");
    // A bad phone: the message beside the field, the input kept, nothing stored.
    let r = app.post_form(&url, &[], "intent=ask_price&mobile=1381234").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("请输入正确的手机号"));
    assert!(r.body.contains(r#"value="1381234""#));
    // The answer lands on the form (its address ends in #ask), the wrong field focused.
    assert!(r.body.contains(&format!(r#"action="/details/{id}/lead#ask""#)), "{}", r.body);
    assert!(r.body.contains(r#"aria-describedby="ask-mobile-err" autofocus"#), "{}", r.body);
    // A signed-in buyer's forms start with their own number.
    let me = crate::support::login(app, "13812340001", "").await;
    let mine = app.get(&format!("/details/{id}"), &[("cookie", me.as_str())]).await;
    assert_eq!(mine.body.matches(r#"value="13812340001""#).count(), 2, "both lead forms prefilled");
    assert!(!app.get(&format!("/details/{id}"), &[]).await.body.contains("13812340001"), "never for anyone else");
    let r = app.post_form(&url, &[], "intent=ask_price&mobile=").await;
    assert!(r.body.contains("请填写手机号"));
    let r = app.post_form(&url, &[], "intent=book_viewing&mobile=13812345678&date=2020-01-01").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("看车日期不能早于今天") && r.body.contains(r#"value="13812345678""#));
    assert_eq!(app.state.store.count_leads(id).await.unwrap(), 0);
    // A good one is stored and confirmed; the same again today is stored once but answered as a
    // first one (the answer never tells that this phone already asked about this car).
    let r = app.post_form(&url, &[], "intent=ask_price&mobile=13812345678").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), format!("/details/{id}?lead=ok#lead"));
    assert!(app.get(&format!("/details/{id}?lead=ok"), &[]).await.body.contains("提交成功"));
    let again = app.post_form(&url, &[], "intent=ask_price&mobile=13812345678").await;
    assert_eq!(again.location(), format!("/details/{id}?lead=ok#lead"));
    let booking = app.post_form(&url, &[], "intent=book_viewing&mobile=13812345678&date=2026-11-25").await;
    assert_eq!(booking.location(), format!("/details/{id}?lead=ok#lead"));
    assert_eq!(app.state.store.count_leads(id).await.unwrap(), 2);
    // Garbage bodies get messages, not errors.
    let r = app.post_form(&url, &[], "%%%&mobile=%E0%A4").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    // One IP is limited per hour.
    let mut statuses = Vec::new();
    for i in 0..store::LEADS_PER_IP_PER_HOUR + 1 {
        let r = app.post_form(&url, &[("x-test-peer", "10.1.2.3")], &format!("intent=ask_price&mobile=139000001{i:02}")).await;
        statuses.push(r.status);
    }
    assert!(statuses[..statuses.len() - 1].iter().all(|s| *s == StatusCode::SEE_OTHER));
    assert_eq!(statuses.last(), Some(&StatusCode::TOO_MANY_REQUESTS));
    // So is one IPv6 host, however many addresses of its /64 it sends from.
    let mut statuses = Vec::new();
    for i in 0..store::LEADS_PER_IP_PER_HOUR + 1 {
        let peer = format!("2001:db8:7:7::{i:x}");
        let r = app.post_form(&url, &[("x-test-peer", peer.as_str())], &format!("intent=ask_price&mobile=139000002{i:02}")).await;
        statuses.push(r.status);
    }
    assert!(statuses[..statuses.len() - 1].iter().all(|s| *s == StatusCode::SEE_OTHER), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&StatusCode::TOO_MANY_REQUESTS));
    let other = app.post_form(&url, &[("x-test-peer", "2001:db8:7:8::1")], "intent=ask_price&mobile=13900000399").await;
    assert_eq!(other.status, StatusCode::SEE_OTHER, "another /64 is another host");
    assert_eq!(app.post_form("/details/99999999/lead", &[], "mobile=13812345678").await.status, StatusCode::NOT_FOUND);
    // The form's address opened again (after a wrong phone the address bar shows it) leads to the
    // car's form, never a 405.
    let opened = app.get(&url, &[]).await;
    assert_eq!((opened.status, opened.location()), (StatusCode::SEE_OTHER, format!("/details/{id}#lead").as_str()));
}

async fn news_tabs_pages_and_articles(app: &TestApp) {
    let r = app.get("/news", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains(r#"<nav class="tabs""#) && r.body.contains("全部"));
    assert_eq!(r.body.matches("<li><a href=\"/news/").count(), 10);
    assert!(r.body.contains(r#"href="/news?page=2" rel="next""#));
    let cats = app.state.store.news_categories().await.unwrap();
    let (cat, n) = &cats[0];
    let tab = format!("/news?category={}", domain::text::percent_encode(cat));
    assert!(r.body.contains(&format!(r#"href="{tab}""#)));
    let in_cat = app.get(&tab, &[]).await;
    assert_eq!(in_cat.body.matches("<li><a href=\"/news/").count() as i64, (*n).min(10));
    assert_eq!(app.get("/news?page=999", &[]).await.status, StatusCode::NOT_FOUND);
    let id: i64 = r.page().attrs(r#"li > a[href^="/news/"]"#, "href").iter().find_map(|h| h["/news/".len()..].parse().ok()).unwrap();
    let a = app.get(&format!("/news/{id}"), &[]).await;
    assert_eq!(a.status, StatusCode::OK);
    let ld = a.json_ld();
    assert_eq!(ld[0]["@type"], "NewsArticle");
    assert!(ld[0]["datePublished"].as_str().unwrap().ends_with("+08:00"));
    assert!(a.body.contains(r#"<meta property="og:type" content="article">"#));
    assert!(a.body.contains("相关资讯"));
    for bad in ["/news/0", "/news/abc", "/news/99999999"] {
        assert_eq!(app.get(bad, &[]).await.status, StatusCode::NOT_FOUND, "{bad}");
    }
}

async fn compare_keeps_three_cars_in_a_cookie(app: &TestApp) {
    let ids = detail_links(&app.get("/carlist", &[]).await.body);
    let empty = app.get("/actives/threecar", &[]).await;
    assert!(empty.body.contains("还没有添加对比车辆"));
    let mut cookie = String::new();
    for id in &ids[..3] {
        let r = app.post_form("/actives/threecar", &[("cookie", &cookie)], &format!("add={id}")).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER);
        let set = r.cookies().into_iter().find(|c| c.starts_with("hx_cmp=")).unwrap();
        cookie = set.split(';').next().unwrap().to_owned();
    }
    assert_eq!(cookie, format!("hx_cmp={}.{}.{}", ids[0], ids[1], ids[2]));
    let full = app.post_form("/actives/threecar", &[("cookie", &cookie)], &format!("add={}", ids[3])).await;
    assert_eq!(full.location(), "/actives/threecar?msg=full");
    let page = app.get("/actives/threecar", &[("cookie", &cookie)]).await;
    assert_eq!(page.body.matches(r#"name="remove""#).count(), 3);
    assert!(page.body.contains("价格评级") && page.body.contains("表显里程"));
    let r = app.post_form("/actives/threecar", &[("cookie", &cookie)], &format!("remove={}", ids[1])).await;
    assert!(r.cookies().iter().any(|c| c.starts_with(&format!("hx_cmp={}.{};", ids[0], ids[2]))));
    assert_eq!(app.post_form("/actives/threecar", &[], "add=99999999").await.status, StatusCode::NOT_FOUND);
    let junk = app.get("/actives/threecar", &[("cookie", "hx_cmp=1.x.-5.%00")]).await;
    assert_eq!(junk.status, StatusCode::OK);

    // Added from a list's card: back to the same list, filters kept, at the card; the list says
    // how many are picked and links the comparison, whose 继续添加车辆 goes back to that list.
    let list = "/carlist?price=5-20&sort=new";
    let from = format!("http://127.0.0.1:8080{list}");
    let card = detail_links(&app.get(list, &[]).await.body)[0];
    let r = app.post_form("/actives/threecar", &[("referer", from.as_str())], &format!("add={card}&back=1")).await;
    assert_eq!(r.location(), format!("{list}#car-{card}"));
    let picked = r.cookies().into_iter().find(|c| c.starts_with("hx_cmp=")).unwrap().split(';').next().unwrap().to_owned();
    let shown = app.get(list, &[("cookie", picked.as_str())]).await;
    assert!(shown.body.contains("已选 <b>1</b> 辆车对比") && shown.body.contains(&format!(r#"id="car-{card}""#)), "{}", shown.body);
    let compare = app.get("/actives/threecar", &[("cookie", picked.as_str()), ("referer", from.as_str())]).await;
    assert!(compare.body.contains(r#"<a href="/carlist?price=5-20&#38;sort=new">继续添加车辆"#), "{}", compare.body);
    let foreign = app.post_form("/actives/threecar", &[("referer", "https://evil.example/carlist")], &format!("add={}&back=1", ids[1])).await;
    assert_eq!(foreign.location(), "/actives/threecar", "only this site's lists are gone back to");
    // The card's form names its list, so a browser that sends no `Referer` (an in-app browser, a
    // privacy setting) comes back to the list too.
    let body = app.get(list, &[]).await.body;
    assert!(body.contains(r#"<input type="hidden" name="back" value="/carlist?price=5-20&amp;sort=new">"#), "{body}");
    let r = app.post_form("/actives/threecar", &[], &format!("add={card}&back=%2Fcarlist%3Fprice%3D5-20%26sort%3Dnew")).await;
    assert_eq!(r.location(), format!("{list}#car-{card}"));
    for hostile in ["%2F%2Fevil.example%2Fcarlist", "https%3A%2F%2Fevil.example%2Fcarlist", "%2Fspace%2Fsettings"] {
        let r = app.post_form("/actives/threecar", &[], &format!("add={card}&back={hostile}")).await;
        assert_eq!(r.location(), "/actives/threecar", "{hostile}: only this site's lists");
    }
}

async fn quality_and_campaign_lists(app: &TestApp) {
    let q = app.get("/servicehall/qualitycarlist", &[]).await;
    assert_eq!(q.status, StatusCode::OK);
    assert!(q.body.contains("精品二手车"));
    let cards = q.page().count(r#"li.card[id^="car-"]"#);
    assert!(cards > 0);
    assert_eq!(q.body.matches(r#"<span class="tag">精品</span>"#).count(), cards, "only inspected cars");
    assert!(q.body.contains(r#"href="/servicehall/qualitycarlist?price=5-8""#), "the same filters");
    let f = app.get("/actives/buyflow/carlist?plan=p1&unit=u2", &[]).await;
    assert_eq!(f.status, StatusCode::OK);
    assert!(f.body.contains(r#"data-layout="flow""#));
    assert!(!f.body.contains(r#"<header class="site-header">"#), "no site navigation in a flow");
}

async fn sitemaps_cover_every_online_listing(app: &TestApp) {
    let robots = app.get("/robots.txt", &[]).await;
    assert!(robots.body.contains("Sitemap: http://127.0.0.1:8080/sitemap.xml"));
    let index = app.get("/sitemap.xml", &[]).await;
    assert_eq!(index.status, StatusCode::OK);
    assert!(index.body.contains("<sitemapindex"));
    assert!(index.body.contains("<loc>http://127.0.0.1:8080/sitemap/listings-1.xml</loc><lastmod>"));
    let listings = app.get("/sitemap/listings-1.xml", &[]).await;
    assert_eq!(listings.body.matches("<url>").count() as i64, online(app).await);
    assert!(listings.body.contains("<lastmod>2026-"));
    assert_eq!(app.get("/sitemap/listings-2.xml", &[]).await.status, StatusCode::NOT_FOUND);
    let news = app.get("/sitemap/news.xml", &[]).await;
    assert_eq!(news.body.matches("<url>").count() as i64, app.state.store.news_categories().await.unwrap().iter().map(|c| c.1).sum::<i64>());
    let pages = app.get("/sitemap/pages.xml", &[]).await;
    assert!(pages.body.contains("<loc>http://127.0.0.1:8080/carlist?brand=dazhong&amp;series=langyi</loc>"));
    assert!(pages.body.contains("<loc>http://127.0.0.1:8080/actives/service/sellcarPlan</loc>"));
    assert!(!pages.body.contains("/actives/collect/"), "campaign pages are not for search engines");
    let shop = app.state.store.shop_oname(1).await.unwrap();
    assert!(pages.body.contains(&format!("<loc>http://127.0.0.1:8080/shop/{shop}</loc>")), "shops are listed");
    assert_eq!(app.get("/sitemap/other.xml", &[]).await.status, StatusCode::NOT_FOUND);
}

on_both!(120 => the_expiry_job_takes_unconfirmed_cars_offline);

async fn the_expiry_job_takes_unconfirmed_cars_offline(app: &TestApp) {
    let id = detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    let before = online(app).await;
    app.state.store.execute_admin(&format!("update listing set expires_at = {} where listing_id = {id}", NOW - 1)).await.unwrap();
    web::jobs::tick(&app.state, "node-a").await;
    web::jobs::tick(&app.state, "node-b").await;
    assert_eq!(online(app).await, before - 1, "exactly one expired, however often the job runs");
    let r = app.get(&format!("/details/{id}"), &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("已下架") && r.body.contains("卖家未确认在售"));
    assert!(!detail_links(&app.get("/carlist?sort=new", &[]).await.body).contains(&id));
}

/// Alerts: a saved search's new cars and a favourite's price cut reach the follower by SMS in the
/// 20:00 digest, once; with a buyer VIP plan the same news goes out in the next minute's round.
async fn followers_are_alerted_once_a_day_or_at_once_with_a_vip_plan(app: &TestApp) {
    let store = &app.state.store;
    let sms = &app.state.adapters.sms;
    // NOW is 10:30 China time: the next digest is at 20:00.
    let digest = domain::alert::latest_digest_at(NOW) + 86_400;
    assert!(digest > NOW && digest - NOW < 86_400);
    let online = |brand: &str, cmp: &str| {
        format!("select min(l.listing_id) from listing l join brand b on b.brand_id = l.brand_id where l.status = 'online' and b.slug {cmp} '{brand}'")
    };
    let vw = store.count_admin(&online("dazhong", "=")).await.unwrap();
    let other = store.count_admin(&online("dazhong", "<>")).await.unwrap();
    let (plain, vip) = ("13811110001", "13811110002");
    for mobile in [plain, vip] {
        let u = store.sign_in_by_mobile(mobile, NOW).await.unwrap();
        store.save_search(u.user_id, "brand=dazhong", "大众二手车", NOW).await.unwrap();
        if mobile == plain {
            store.add_favourite(u.user_id, other, NOW).await.unwrap();
        } else {
            let grant = format!(
                "insert into vip_membership (user_id, vip_plan_id, starts_at, ends_at) select {}, vip_plan_id, {NOW}, {} from vip_plan where code = 'buyer-month'",
                u.user_id,
                NOW + 30 * 86_400
            );
            store.execute_admin(&grant).await.unwrap();
        }
    }
    assert_eq!(web::features::accounts::alerts::run(&app.state, NOW + 60).await.unwrap(), 0, "nothing new yet");

    // A 大众 is published and the favourite's price is cut.
    store.execute_admin(&format!("update listing set published_at = {} where listing_id = {vw}", NOW + 100)).await.unwrap();
    store
        .execute_admin(&format!(
            "insert into price_change (listing_id, old_price_yuan, new_price_yuan, changed_at) values ({other}, 100000, 90000, {})",
            NOW + 100
        ))
        .await
        .unwrap();
    assert_eq!(web::features::accounts::alerts::run(&app.state, NOW + 120).await.unwrap(), 1, "the VIP at once");
    assert_eq!(sms.sandbox_alerts(vip), ["您订阅的「大众二手车」有1辆新车。"]);
    assert!(sms.sandbox_alerts(plain).is_empty(), "the others wait for the digest");
    assert_eq!(web::features::accounts::alerts::run(&app.state, digest - 60).await.unwrap(), 0);
    assert_eq!(web::features::accounts::alerts::run(&app.state, digest + 30).await.unwrap(), 1);
    assert_eq!(sms.sandbox_alerts(plain), ["您订阅的「大众二手车」有1辆新车；您收藏的车有1辆降价。"]);
    assert_eq!(web::features::accounts::alerts::run(&app.state, digest + 90).await.unwrap(), 0, "once a day, and the VIP heard it already");
    assert_eq!(sms.sandbox_alerts(vip).len(), 1);
}

/// A lead form sent back with its errors is the same visit, not a second one: the car is not read
/// again for it, and the visitor's history does not gain (or move) the car.
#[tokio::test]
async fn a_failed_lead_form_is_not_a_second_view() {
    let app = crate::support::spawn_app(20).await;
    let cards = app.state.store.latest_listings(None, 1).await.unwrap();
    let (id, title) = (cards[0].listing_id, cards[0].title.clone());
    let device = [("cookie", "hx_did=fedcba9876543210fedcba9876543210")];
    let bad = app.post_form(&format!("/details/{id}/lead"), &device, "intent=ask_price&mobile=123").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains(&title), "the page comes back with the car");
    assert!(!app.get("/space/history", &device).await.body.contains(&title), "a failed form is not a view");
    app.get(&format!("/details/{id}"), &device).await;
    assert!(app.get("/space/history", &device).await.body.contains(&title), "a visit is");
}
