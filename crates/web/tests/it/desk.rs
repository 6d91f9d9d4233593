//! A shop's desk on both databases: the owner adds members (店员) in the dealer centre, with bad
//! input said beside its field; a member signs in with that number and finds the shop's threads
//! no one holds in 我的消息, claims or answers one (and so holds it), is told of the buyer's next
//! message instead of the owner, and sees nothing of the shop but its threads; the owner assigns
//! a thread to another member, who then holds it, and removes a member, whose threads go back to
//! no one.

use axum::http::StatusCode;

use crate::support::{NOW, TestApp, login, owner_mobile, post_on};

on_both!(10 =>
    a_shop_owner_adds_a_member_who_claims_and_answers_the_shops_buyers,
    an_owner_adds_members_a_limited_number_of_times_a_day,
);

const BUYER: &str = "13712360001";
const WANG: &str = "13712360002";
const LI: &str = "13712360003";

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

async fn a_shop_owner_adds_a_member_who_claims_and_answers_the_shops_buyers(app: &TestApp) {
    // A dealer's car whose shop has no members yet (the demo gives a few shops some).
    let card = {
        let mut found = None;
        for c in app.state.store.latest_listings(None, 40).await.unwrap() {
            let Some(shop) = app.state.store.listing_detail(c.listing_id).await.unwrap().shop_id else { continue };
            let owner = app.state.store.shop_owner_id(shop).await.unwrap().unwrap();
            if app.state.store.members(owner).await.unwrap().is_empty() {
                found = Some(c.listing_id);
                break;
            }
        }
        found.expect("a car of a shop without members in the demo")
    };
    let shop_id = app.state.store.listing_detail(card).await.unwrap().shop_id.unwrap();
    let shop = app.state.store.shop_by_id(shop_id).await.unwrap();
    let owner_phone = owner_mobile(app, shop_id).await;
    let owner = login(app, &owner_phone, "").await;
    let o = [("cookie", owner.as_str())];

    // The dealer centre has the tab; no members yet.
    let page = app.get("/space/shop-members", &o).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.page().one(".dealer-nav").html.contains(r#"href="/space/shop-members" class="on""#)
            || page.body.contains(r#"href="/space/shop-members" aria-current="page""#)
    );
    assert!(page.body.contains("还没有店员"));
    // Bad input: each said beside its field, what was typed kept, no one added.
    let bad = app.post_form("/space/shop-members", &o, &form(&[("name", "  "), ("mobile", "1371236")])).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let p = bad.page();
    assert!(p.one(".field:has(#member-name)").html.contains("请填写店员姓名"), "{}", bad.body);
    assert!(p.one(".field:has(#member-mobile)").html.contains("请输入正确的手机号") && bad.body.contains(r#"value="1371236""#));
    let long = "王".repeat(21);
    let bad = app.post_form("/space/shop-members", &o, &form(&[("name", &long), ("mobile", WANG)])).await;
    assert!(bad.body.contains("姓名不能超过20个字") && bad.body.contains(&long));
    let own = app.post_form("/space/shop-members", &o, &form(&[("name", "我"), ("mobile", &owner_phone)])).await;
    assert_eq!(own.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(own.page().one(".field:has(#member-mobile)").html.contains("店主账号"), "{}", own.body);
    assert_eq!(app.state.store.count_admin(&format!("select count(*) from shop_member where shop_id = {shop_id}")).await.unwrap(), 0);
    // Two members: 王磊, who has never signed in, and 李娜.
    for (name, mobile) in [("王磊", WANG), ("李娜", LI)] {
        let added = app.post_form("/space/shop-members", &o, &form(&[("name", name), ("mobile", mobile)])).await;
        assert_eq!((added.status, added.location()), (StatusCode::SEE_OTHER, "/space/shop-members?done=added"), "{}", added.body);
    }
    let again = app.post_form("/space/shop-members", &o, &form(&[("name", "王磊"), ("mobile", WANG)])).await;
    assert!(again.body.contains("这个手机号已经是本店店员"));
    let listed = app.get("/space/shop-members?done=added", &o).await;
    let rows = listed.page().texts(".member-list li");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[0].contains("王磊") && rows[0].contains("137****0002") && rows[0].contains("尚未登录"), "{rows:?}");

    // A buyer asks about the car: the owner is told, no one holds it.
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let sent = app.post_form(&format!("/space/messages/ask/{card}"), &b, &form(&[("body", "这台车能便宜点吗？")])).await;
    let path = sent.location().trim_end_matches("#latest").to_owned();
    let thread: i64 = path.trim_start_matches("/space/messages/").parse().unwrap();
    assert_eq!(app.state.adapters.sms.sandbox_message_notices(&owner_phone).len(), 1);

    // 王磊 signs in: the shop's thread no one holds is in his list, his shop named; the dealer
    // centre's other tools are not his.
    let wang = login(app, WANG, "").await;
    let w = [("cookie", wang.as_str())];
    let list = app.get("/space/messages?view=open", &w).await;
    assert!(list.body.contains(&format!("您是「{}」的店员（王磊）", shop.name)), "{}", list.body);
    let line = list.page().one(".msg-list li").html;
    assert!(line.contains("买家咨询") && line.contains("未分配") && line.contains(">1<"), "{line}");
    assert!(app.get("/space/messages?view=held", &w).await.body.contains("没有由您负责的咨询"));
    assert_ne!(app.get("/actives/zhikeclues", &w).await.status, StatusCode::OK);
    assert_ne!(app.get("/space/shop-members", &w).await.status, StatusCode::OK);
    let read = app.get(&path, &w).await;
    assert_eq!(read.status, StatusCode::OK);
    let desk = read.page().one(".msg-desk-box").html;
    assert!(desk.contains("未分配") && desk.contains("认领，由我负责") && !desk.contains("分配给"), "{desk}");
    // He claims it: 李娜 no longer sees it, and his list holds it.
    let claimed = app.post_form(&format!("{path}/desk"), &w, &form(&[("act", "claim")])).await;
    assert_eq!((claimed.status, claimed.location()), (StatusCode::SEE_OTHER, format!("{path}?desk=1").as_str()));
    assert!(app.get(&path, &w).await.page().one(".msg-desk-box").html.contains("王磊（我）"));
    let li = login(app, LI, "").await;
    let l = [("cookie", li.as_str())];
    assert_eq!(app.get(&path, &l).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.post_form(&path, &l, &form(&[("body", "在的")])).await.status, StatusCode::NOT_FOUND);
    assert!(app.get("/space/messages?view=held", &w).await.page().one(".msg-list li").html.contains("由我负责"));
    // He answers; the buyer reads the shop's answer and is told of it.
    assert_eq!(app.post_form(&path, &w, &form(&[("body", "您好，价格可以到店面谈")])).await.status, StatusCode::SEE_OTHER);
    assert!(app.get(&path, &b).await.body.contains("价格可以到店面谈"));
    // Each side of the shop reads who of it wrote; the buyer reads the shop.
    let who = |r: &crate::support::Reply| r.page().texts(".msg-item.mine .msg-who");
    assert!(who(&app.get(&path, &w).await)[0].starts_with("我 "), "his own");
    assert!(who(&app.get(&path, &o).await)[0].starts_with("店员 王磊 "), "the owner reads whose");
    assert!(app.get(&path, &b).await.page().texts(".msg-item:not(.mine) .msg-who").iter().all(|t| t.starts_with("卖家 ")));
    assert_eq!(app.state.adapters.sms.sandbox_message_notices(BUYER).len(), 1);
    // The buyer writes again after a quiet spell: 王磊 is told, not the owner.
    let later = app.variant(app.state.config.clone(), NOW + domain::message::QUIET_SECS + 60);
    assert_eq!(post_on(&later, &path, &b, &form(&[("body", "周六上午可以看车吗？")])).await.status, StatusCode::SEE_OTHER);
    assert_eq!(later.adapters.sms.sandbox_message_notices(WANG).len(), 1, "the holder is told");
    assert!(later.adapters.sms.sandbox_message_notices(&owner_phone).is_empty(), "not the owner");

    // The owner sees who holds it and hands it to 李娜; a member cannot assign, nor can anyone to a stranger.
    let owned = app.get(&path, &o).await;
    let desk = owned.page().one(".msg-desk-box").html;
    assert!(desk.contains("王磊") && desk.contains("分配给") && desk.contains("店员 李娜") && desk.contains("认领"), "{desk}");
    assert!(app.get("/space/messages", &o).await.page().one(".msg-list li").html.contains("负责人：王磊"));
    let li_id = app.state.store.user_by_mobile(LI).await.unwrap().unwrap().user_id;
    let by_member = app.post_form(&format!("{path}/desk"), &w, &form(&[("act", "assign"), ("to", &li_id.to_string())])).await;
    assert_eq!(by_member.status, StatusCode::CONFLICT);
    assert!(by_member.page().one(".msg-desk-box .error").text.contains("只有店主可以分配咨询"));
    let stranger = app.post_form(&format!("{path}/desk"), &o, &form(&[("act", "assign"), ("to", "abc")])).await;
    assert_eq!(stranger.status, StatusCode::CONFLICT);
    assert!(stranger.body.contains("只能分配给本店店员"));
    let unknown = app.post_form(&format!("{path}/desk"), &o, &form(&[("act", "move")])).await;
    assert_eq!(unknown.status, StatusCode::UNPROCESSABLE_ENTITY);
    let handed = app.post_form(&format!("{path}/desk"), &o, &form(&[("act", "assign"), ("to", &li_id.to_string())])).await;
    assert_eq!(handed.status, StatusCode::SEE_OTHER);
    // 李娜 is told by SMS, with a link that opens the thread.
    let told = app.state.adapters.sms.sandbox_desk_notices(LI);
    let title = app.state.store.listing_detail(card).await.unwrap().title;
    assert!(told.len() == 1 && told[0].contains(&format!("店主把买家关于{title}的咨询交给您负责")), "{told:?}");
    let code: String = told[0].split("/m/").nth(1).unwrap().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    assert_eq!(app.post_form(&format!("/m/{code}"), &[], "").await.location(), format!("{path}#latest"));
    assert!(app.state.adapters.sms.sandbox_desk_notices(WANG).is_empty(), "claiming for oneself tells no one");
    assert_eq!(app.get(&path, &w).await.status, StatusCode::NOT_FOUND, "no longer his");
    let hers = app.get(&path, &l).await;
    assert!(hers.page().one(".msg-desk-box").html.contains("李娜（我）") && hers.body.contains("周六上午可以看车吗"), "{}", hers.body);
    let log = app.get(&path, &o).await.page().one(".msg-desk-log").text;
    assert!(log.contains("王磊 认领") && log.contains("分配给 李娜"), "{log}");
    // The buyer never sees the desk.
    assert!(!app.get(&path, &b).await.body.contains("msg-desk-box"));
    assert_eq!(app.post_form(&format!("{path}/desk"), &b, &form(&[("act", "claim")])).await.status, StatusCode::NOT_FOUND);

    // 李娜 is removed: the thread is no one's again, and hers no longer.
    let removed = app.post_form(&format!("/space/shop-members/{li_id}/remove"), &o, "").await;
    assert_eq!((removed.status, removed.location()), (StatusCode::SEE_OTHER, "/space/shop-members?done=removed"));
    assert_eq!(app.get(&path, &l).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.state.store.thread_by_id(thread).await.unwrap().unwrap().holder_user_id, None);
    assert!(app.get(&path, &w).await.page().one(".msg-desk-box").html.contains("未分配"), "王磊 sees it again, no one's");
    assert_eq!(app.post_form(&format!("/space/shop-members/{li_id}/remove"), &o, "").await.status, StatusCode::NOT_FOUND);
}

/// Each add may make an account for a new number: an owner adding and removing members adds
/// at most a day's number, then is told beside the field, the form kept.
async fn an_owner_adds_members_a_limited_number_of_times_a_day(app: &TestApp) {
    let shop = app.state.store.count_admin("select min(shop_id) from shop where owner_user_id is not null").await.unwrap();
    let owner = login(app, &owner_mobile(app, shop).await, "").await;
    let o = [("cookie", owner.as_str())];
    let users = "select count(*) from app_user";
    let before = app.state.store.count_admin(users).await.unwrap();
    for i in 0..domain::desk::ADDS_PER_DAY {
        let mobile = format!("1371237{i:04}");
        let added = app.post_form("/space/shop-members", &o, &form(&[("name", "临时店员"), ("mobile", &mobile)])).await;
        assert_eq!(added.status, StatusCode::SEE_OTHER, "add {i}: {}", added.body);
        let id = app.state.store.user_by_mobile(&mobile).await.unwrap().unwrap().user_id;
        assert_eq!(app.post_form(&format!("/space/shop-members/{id}/remove"), &o, "").await.status, StatusCode::SEE_OTHER);
    }
    let refused = app.post_form("/space/shop-members", &o, &form(&[("name", "又一个"), ("mobile", "13712379999")])).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.page().one(".field:has(#member-mobile)").html.contains("每天最多添加40次店员") && refused.body.contains(r#"value="13712379999""#));
    assert!(app.state.store.user_by_mobile("13712379999").await.unwrap().is_none(), "no account made");
    assert_eq!(app.state.store.count_admin(users).await.unwrap(), before + domain::desk::ADDS_PER_DAY);
}
