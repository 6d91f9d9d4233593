//! Dealer shops and dealer tools over HTTP, on SQLite and PostgreSQL: the directory, a shop's
//! pages with JSON-LD `AutoDealer`, 404 for another shop's car, 301 from the numeric profile,
//! the sell-to-this-shop lead reaching only that shop, masked numbers until a dealer opens the
//! lead (logged), and another dealer seeing none of it.

mod common;

use axum::http::StatusCode;
use common::{TestApp, login};

async fn shop_pages_and_leads_for_one_dealer_only(app: &TestApp) {
    let (shop, other) = (app.state.store.shop_by_oname(&oname(app, 1).await).await.unwrap(), app.state.store.shop_by_oname(&oname(app, 2).await).await.unwrap());
    let dir = app.get("/shop", &[]).await;
    assert_eq!(dir.status, StatusCode::OK);
    assert_eq!(dir.body.matches(r#"<span class="shop-name">"#).count(), 20, "a page of shops");
    assert!(dir.body.contains(r#"href="/shop?page=2" rel="next""#));
    let found = app.get(&format!("/shop?name={}", urlencode(&shop.name)), &[]).await;
    assert!(found.body.contains(&format!("/shop/{}\"", shop.oname)));

    let home = app.get(&format!("/shop/{}", shop.oname), &[]).await;
    assert_eq!(home.status, StatusCode::OK);
    assert!(home.body.contains(r#"data-layout="shop""#));
    let ld = home.json_ld();
    let dealer = ld.iter().find(|d| d["@type"] == "AutoDealer").expect("AutoDealer JSON-LD");
    assert_eq!(dealer["name"], shop.name.as_str());
    assert_eq!(dealer["address"]["streetAddress"], shop.address.as_str());
    for tab in ["buyCar", "search?keyword=a", "sellCar", "business"] {
        let r = app.get(&format!("/shop/{}/{tab}", shop.oname), &[]).await;
        assert_eq!(r.status, StatusCode::OK, "{tab}");
        assert!(r.body.contains("shop-head"), "{tab}");
    }
    let business = app.get(&format!("/shop/{}/business", shop.oname), &[]).await;
    assert!(business.body.contains("https://uri.amap.com/"), "a map link without a maps key");
    assert!(!business.body.contains("restapi.amap.com"), "no map image without a key");
    assert_eq!(app.get("/shop/no-such-shop", &[]).await.status, StatusCode::NOT_FOUND);

    // The shop's inventory holds only its cars; its car opens in the shop layout, another's is 404.
    let list = app.get(&format!("/shop/{}/buyCar", shop.oname), &[]).await;
    let first = list.body.split("href=\"/details/").nth(1).map(|s| s[..s.find('"').unwrap()].to_owned());
    if let Some(id) = first {
        let d = app.state.store.public_listing(id.parse().unwrap()).await.unwrap();
        assert_eq!(d.shop_id, Some(shop.shop_id));
        let r = app.get(&format!("/shop/{}/details/{id}", shop.oname), &[]).await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(r.body.contains(r#"data-layout="shop""#) && r.body.contains(&format!("/details/{id}\"")));
        assert_eq!(app.get(&format!("/shop/{}/details/{id}", other.oname), &[]).await.status, StatusCode::NOT_FOUND);
    }
    let moved = app.get(&format!("/shop/profile/{}", shop.shop_id), &[]).await;
    assert_eq!(moved.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(moved.location(), format!("/shop/{}", shop.oname));
    assert_eq!(app.get("/shop/profile/99999999", &[]).await.status, StatusCode::NOT_FOUND);
    let dy = app.get(&format!("/actives/douyinshop?oname={}", shop.oname), &[]).await;
    assert_eq!(dy.status, StatusCode::OK);
    assert!(dy.body.contains(r#"data-layout="flow""#));

    // A visitor sells to this shop: the lead goes to it alone, the thank-you page names it.
    let bad = app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=1234&car=x").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("请输入正确的手机号") && bad.body.contains(r#"value="x""#));
    let ok = app.post_form(&format!("/shop/{}/sellCar", shop.oname), &[], "mobile=13955556666&car=2018%E6%AC%BE").await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    assert!(app.get(ok.location(), &[]).await.body.contains(&shop.name));

    // The owner sees it masked, opens it (logged), then sees the number; another dealer cannot.
    let owner = login(app, &owner_mobile(app, shop.shop_id).await, "").await;
    let page = app.get("/actives/zhikeclues", &[("cookie", &owner)]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("139****6666") && !page.body.contains("13955556666"));
    let lead_id = app.state.store.shop_leads(shop.owner_user_id.unwrap(), "", 10).await.unwrap()[0].lead_id;
    let rival = login(app, &owner_mobile(app, other.shop_id).await, "").await;
    for action in ["open", "call"] {
        let r = app.post_form("/actives/zhikeclues", &[("cookie", &rival)], &format!("id={lead_id}&action={action}")).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{action}");
    }
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &rival)], &format!("id={lead_id}&action=save&status=closed&note=x")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(!app.get("/actives/zhikeclues", &[("cookie", &rival)]).await.body.contains("139****6666"));
    assert_eq!(app.state.store.lead_openings(lead_id).await.unwrap(), 0);
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &owner)], &format!("id={lead_id}&action=open")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(app.get("/actives/zhikeclues", &[("cookie", &owner)]).await.body.contains("13955556666"));
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &owner)], &format!("id={lead_id}&action=call")).await;
    assert_eq!(r.location(), "tel:13955556666");
    let r = app.post_form("/actives/zhikeclues", &[("cookie", &owner)], &format!("id={lead_id}&action=save&status=contacted&note=%E6%98%8E%E5%A4%A9%E7%9C%8B%E8%BD%A6")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let contacted = app.get("/actives/zhikeclues?status=contacted", &[("cookie", &owner)]).await;
    assert!(contacted.body.contains("明天看车"));
    assert_eq!(app.state.store.lead_openings(lead_id).await.unwrap(), 3);

    // Buyers and private sellers cannot reach the dealer tools.
    let buyer = login(app, "13812349999", "").await;
    assert_eq!(app.get("/actives/zhikeclues", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/shop/profile", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/actives/zhikeclues", &[]).await.status, StatusCode::UNAUTHORIZED);

    // The owner edits the shop: bad fields come back with messages, good ones are saved.
    let r = app.post_form("/shop/profile", &[("cookie", &owner)], "name=x&address=abc&phone=abc&hours=&licence_no=&intro=").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("店铺名称应为2到30个字") && r.body.contains("请填写详细地址"));
    let form = format!("name={}&address={}&phone=0731-88886666&hours=09%3A00-18%3A00&licence_no=&intro=", urlencode("新名字二手车"), urlencode(&shop.address));
    assert_eq!(app.post_form("/shop/profile", &[("cookie", &owner)], &form).await.status, StatusCode::SEE_OTHER);
    assert!(app.get(&format!("/shop/{}", shop.oname), &[]).await.body.contains("新名字二手车"));
}

async fn oname(app: &TestApp, shop_id: i64) -> String {
    app.state.store.shop_oname(shop_id).await.unwrap()
}

async fn owner_mobile(app: &TestApp, shop_id: i64) -> String {
    let shop = app.state.store.shop_by_oname(&oname(app, shop_id).await).await.unwrap();
    let owner = shop.owner_user_id.unwrap();
    for mobile in (0..200).map(|i| format!("1{}{:09}", [3, 5, 7, 8, 9][i % 5], 100_000_000 + i * 7919 % 900_000_000)) {
        if app.state.store.user_by_mobile(&mobile).await.unwrap().is_some_and(|u| u.user_id == owner) {
            return mobile;
        }
    }
    panic!("no owner phone for shop {shop_id}");
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

on_both!(60 => shop_pages_and_leads_for_one_dealer_only);
