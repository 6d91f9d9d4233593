//! Messages between a buyer and a car's seller, or a shop, on both databases: a thread begun from
//! the car's page or the shop's, replies both ways, unread counts, a number hidden from the other side until both have
//! written, another user's thread 404, one's own car refused, bad input said beside the box and
//! kept, the per-account limit, the warning against off-platform payment, and the SMS telling
//! the other side a message waits (once per quiet spell, never its words) with a link that signs
//! them into the thread once.

use axum::http::StatusCode;
use domain::lead::Intent;

use crate::support::{NOW, Part, TestApp, get_on, jpeg, login, owner_mobile, post_on};

on_both!(10 =>
    a_buyer_asks_about_a_car_and_the_seller_answers_without_either_giving_a_number,
    messages_are_limited_per_account_and_off_platform_payment_is_warned_against,
    a_shop_shows_how_it_answers_from_the_last_thirty_days,
    a_reported_writer_is_barred_from_messages_by_staff_with_a_reason,
    a_number_is_shown_on_purpose_reads_are_receipted_and_the_header_counts_unread,
    a_reader_on_another_node_sees_a_message_and_its_reading_as_they_happen,
    a_reply_carries_a_photo_through_the_photo_pipeline,
    a_notice_links_into_its_thread_signing_in_once_within_three_days,
    a_buyer_asks_a_shop_itself_from_its_page_and_the_shop_answers,
    the_car_list_can_keep_the_cars_of_sellers_who_answer_within_the_hour,
);

const BUYER: &str = "13712350001";
const OTHER: &str = "13712350002";

fn form(body: &str) -> String {
    format!("body={}", form_urlencoded::byte_serialize(body.as_bytes()).collect::<String>())
}

/// A dealer's online car: (car, its seller's mobile).
async fn dealer_car(app: &TestApp) -> (i64, String) {
    for card in app.state.store.latest_listings(None, 20).await.unwrap() {
        let d = app.state.store.listing_detail(card.listing_id).await.unwrap();
        if let Some(shop) = d.shop_id {
            return (d.listing_id, owner_mobile(app, shop).await);
        }
    }
    panic!("no dealer's car in the demo");
}

/// The thread id a `/space/messages/{id}#latest` location names.
fn thread_of(location: &str) -> i64 {
    location.trim_start_matches("/space/messages/").trim_end_matches("#latest").parse().unwrap_or_else(|_| panic!("{location}"))
}

async fn a_buyer_asks_about_a_car_and_the_seller_answers_without_either_giving_a_number(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    let ask = format!("/space/messages/ask/{id}");
    // The car's page offers it; without signing in, the box asks to sign in first.
    assert!(app.get(&format!("/details/{id}"), &[]).await.body.contains(&format!(r#"href="{ask}""#)));
    let anonymous = app.get(&ask, &[]).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert!(anonymous.body.contains("登录"), "the sign-in form: {}", anonymous.body);
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let page = app.get(&ask, &b).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("不需要留电话") && page.body.contains(r#"name="body""#));
    // An empty message, or one of 1,001 characters: said beside the box, the text kept, nothing sent.
    let empty = app.post_form(&ask, &b, &form("  ")).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.page().one(".msg-form .field").html.contains("请输入消息内容"));
    let long = "好".repeat(1_001);
    let r = app.post_form(&ask, &b, &form(&long)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("消息不能超过1000字") && r.body.contains(&long));
    let messages = "select count(*) from message m join message_thread t on t.thread_id = m.thread_id join app_user u on u.user_id = t.buyer_user_id \
         where u.mobile like '137123500%'";
    assert_eq!(app.state.store.count_admin(messages).await.unwrap(), 0);
    // The question, with the buyer's number and WeChat id in it, and markup.
    let question = "车还在吗？<b>有事故吗</b> 我电话13812345678，微信：wang_jg2024";
    let sent = app.post_form(&ask, &b, &form(question)).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let thread = thread_of(sent.location());
    let path = format!("/space/messages/{thread}");
    // The seller is told by SMS, without the message's words or the number in it.
    let title = app.state.store.listing_detail(id).await.unwrap().title;
    let told = app.state.adapters.sms.sandbox_message_notices(&seller_mobile);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains(&format!("买家就{title}给您发来了新消息")) && !told[0].contains("13812345678"), "{told:?}");
    let mine = app.get(&path, &b).await;
    assert!(mine.body.contains("车还在吗？&#60;b&#62;有事故吗&#60;/b&#62; 我电话13812345678"), "the writer reads it as written, markup as text: {}", mine.body);
    // The seller: one unread thread, the number hidden in the list, on /space and in the thread.
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    let list = app.get("/space/messages", &s).await;
    let line = list.page().one(".msg-list li").html;
    assert!(line.contains("买家咨询") && line.contains(r#"class="msg-unread""#) && line.contains(">1<"), "{line}");
    assert!(line.contains("［联系方式已隐藏］") && !line.contains("13812345678"), "{line}");
    let space = app.get("/space", &s).await;
    let entry = space.page().one(r#".space-entries a[href="/space/messages"]"#).text;
    assert!(entry.contains("我的消息1"), "{entry}");
    let read = app.get(&path, &s).await;
    assert!(!read.body.contains("13812345678") && !read.body.contains("wang_jg2024") && read.body.contains("［联系方式已隐藏］"), "{}", read.body);
    assert!(read.body.contains("双方都回复之前"));
    assert_eq!(app.state.store.unread_messages(app.state.store.user_by_mobile(&seller_mobile).await.unwrap().unwrap().user_id).await.unwrap(), 0, "read");
    // Another user sees nothing of it.
    let other = login(app, OTHER, "").await;
    assert_eq!(app.get(&path, &[("cookie", other.as_str())]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.post_form(&path, &[("cookie", other.as_str())], &form("你好")).await.status, StatusCode::NOT_FOUND);
    // The seller answers; the buyer has one unread, and now each side reads the other's number.
    let answered = app.post_form(&path, &s, &form("在的，无事故。周六上午可以来看车，店里电话010-62345678")).await;
    assert_eq!(answered.status, StatusCode::SEE_OTHER);
    let told = app.state.adapters.sms.sandbox_message_notices(BUYER);
    assert!(told.len() == 1 && told[0].contains("卖家就"), "the buyer is told of the answer: {told:?}");
    let list = app.get("/space/messages", &b).await;
    let line = list.page().one(".msg-list li").html;
    assert!(line.contains("我问卖家") && line.contains(">1<") && line.contains("010-62345678"), "both have written: {line}");
    let both = app.get(&path, &b).await;
    assert!(both.body.contains("010-62345678") && !both.body.contains("双方都回复之前"), "{}", both.body);
    assert!(app.get(&path, &s).await.body.contains("13812345678"), "the seller reads the buyer's number once both have written");
    assert!(!app.get("/space/messages", &b).await.body.contains(r#"class="msg-unread""#), "read");
    // Asking about the car again goes to the same thread; the seller cannot ask about their own car.
    let again = app.get(&ask, &b).await;
    assert_eq!((again.status, again.location()), (StatusCode::SEE_OTHER, path.as_str()));
    let own = app.post_form(&ask, &s, &form("自己问自己")).await;
    assert_eq!(own.status, StatusCode::CONFLICT);
    assert!(own.body.contains("这是您自己或您所在店铺发布的车"));
    let threads = "select count(*) from message_thread t join app_user u on u.user_id = t.buyer_user_id where u.mobile like '137123500%'";
    assert_eq!(app.state.store.count_admin(threads).await.unwrap(), 1);
}

async fn messages_are_limited_per_account_and_off_platform_payment_is_warned_against(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    // The seller signed in with WeChat once: they are told there too, with a link into the thread.
    let wx =
        store::Identity { provider: store::Provider::Wechat, openid: "oSELLERmsg".to_owned(), unionid: None, nickname: String::new(), avatar: String::new() };
    app.state.store.bind_identity(&seller_mobile, &wx, NOW).await.unwrap();
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let sent = app.post_form(&format!("/space/messages/ask/{id}"), &b, &form("这台车最低多少钱？")).await;
    let path = format!("/space/messages/{}", thread_of(sent.location()));
    for n in 1..domain::message::PER_MINUTE {
        assert_eq!(app.post_form(&path, &b, &form(&format!("第{n}条"))).await.status, StatusCode::SEE_OTHER);
    }
    let refused = app.post_form(&path, &b, &form("再问一次")).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.body.contains("发送太频繁，请稍后再试") && refused.body.contains(">再问一次</textarea>"), "{}", refused.body);
    let messages = format!(
        "select count(*) from message m join message_thread t on t.thread_id = m.thread_id where t.buyer_user_id = (select user_id from app_user where mobile = '{BUYER}')"
    );
    assert_eq!(app.state.store.count_admin(&messages).await.unwrap(), domain::message::PER_MINUTE);
    assert_eq!(app.state.adapters.sms.sandbox_message_notices(&seller_mobile).len(), 1, "one SMS for a conversation going on");
    let wechat = app.state.adapters.wx.sandbox_links("oSELLERmsg");
    assert_eq!(wechat.len(), 1, "one WeChat notice for a conversation going on");
    assert!(wechat[0].0.starts_with("/m/"), "{}", wechat[0].0);
    assert_eq!(app.post_form(&wechat[0].0, &[], "").await.location(), format!("{path}#latest"), "it links into the thread");
    assert_eq!(wechat[0].1["thing2"]["value"], "买家发来新消息");
    assert!(!wechat[0].1.to_string().contains("这台车最低多少钱"), "never the words");
    // After a quiet spell, the next message is told again.
    let later = app.variant(app.state.config.clone(), NOW + domain::message::QUIET_SECS + 60);
    assert_eq!(post_on(&later, &path, &b, &form("还在吗？")).await.status, StatusCode::SEE_OTHER);
    assert_eq!(later.adapters.sms.sandbox_message_notices(&seller_mobile).len(), 1, "told (by the node that served it)");
    // The seller asks for the deposit outside the platform: both sides are warned.
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    // (Half an hour on, as the address's limit has seen the buyer's message then.)
    assert_eq!(post_on(&later, &path, &s, &form("先付定金到我个人账户，车给你留着")).await.status, StatusCode::SEE_OTHER);
    for cookie in [&buyer, &seller] {
        let page = app.get(&path, &[("cookie", cookie.as_str())]).await;
        assert!(page.page().one(".notice.err").text.contains("请勿先付定金或车款到个人账户"), "{}", page.body);
    }
}

/// A fixed history: four threads begun in the last 30 days, answered after 5 minutes, 50
/// minutes and 28 hours, one unanswered, and an older unanswered one that no longer counts; then
/// the shop's leads.
async fn a_shop_shows_how_it_answers_from_the_last_thirty_days(app: &TestApp) {
    let (id, _) = dealer_car(app).await;
    let shop = app.state.store.listing_detail(id).await.unwrap().shop_id.unwrap();
    let oname = app.state.store.shop_oname(shop).await.unwrap();
    let s = &app.state.store;
    for (n, (began, answered)) in
        [(NOW - 40 * 86_400, None), (NOW - 9 * 86_400, Some(300)), (NOW - 5 * 86_400, Some(3_000)), (NOW - 3 * 86_400, None), (NOW - 2 * 86_400, Some(100_800))]
            .into_iter()
            .enumerate()
    {
        if n == 3 {
            // Two threads so far in the 30 days: too few to say.
            let page = app.get(&format!("/shop/{oname}"), &[]).await;
            assert!(!page.body.contains("回复率"), "two threads in 30 days say little");
        }
        let buyer = s.sign_in_by_mobile(&format!("1371236000{n}"), began).await.unwrap().user_id;
        let store::Asked::Thread(t) = s.ask_about(id, buyer, "车还在吗？", began).await.unwrap() else { panic!("no thread") };
        if let Some(after) = answered {
            s.write_message(t, false, "在的", began + after).await.unwrap();
        }
    }
    let page = app.get(&format!("/shop/{oname}"), &[]).await;
    let line = page.page().one(".shop-replies").text;
    assert!(line.contains("通常1小时内回复 · 回复率75%") && line.contains("按近30天买家的在线咨询和询价统计"), "{line}");
    // The shop's leads count too, answered when its staff open them: a 询底价 opened after 20
    // minutes and a 预约看车 never opened; a 卖车 lead and a lead older than 30 days do not count.
    let owner = s.shop_by_oname(&oname).await.unwrap().owner_user_id.unwrap();
    for (n, (intent, began, opened)) in [
        (Intent::AskPrice, NOW - 4 * 86_400, Some(1_200)),
        (Intent::BookViewing, NOW - 86_400, None),
        (Intent::Sell, NOW - 86_400, None),
        (Intent::AskPrice, NOW - 31 * 86_400, Some(60)),
    ]
    .into_iter()
    .enumerate()
    {
        let mobile = domain::validate::Mobile::parse(&format!("1371237000{n}")).unwrap();
        let lead = store::NewLead { listing_id: Some(id), shop_id: Some(shop), ..store::NewLead::new(mobile, intent) };
        let store::LeadOutcome::Created(lead_id) = s.submit_lead(&lead, began).await.unwrap() else { panic!("lead not kept") };
        if let Some(after) = opened {
            s.work_scoped_lead(store::LeadScope::Shop(owner), owner, lead_id, "open", None, None, began + after).await.unwrap();
        }
    }
    // Six conversations in 30 days, four answered (5, 20, 50 minutes, 28 hours): the median 35
    // minutes, 66%.
    let page = app.get(&format!("/shop/{oname}"), &[]).await;
    let line = page.page().one(".shop-replies").text;
    assert!(line.contains("通常1小时内回复 · 回复率66%"), "{line}");
    let business = app.get(&format!("/shop/{oname}/business"), &[]).await;
    assert!(business.body.contains("通常1小时内回复 · 回复率66%（近30天买家咨询）"), "{}", business.body);
    // The car's seller card shows the figures the ten-minute round keeps.
    assert!(app.get(&format!("/details/{id}"), &[]).await.page().select(".seller-replies").is_empty(), "not computed yet");
    assert_eq!(s.refresh_reply_stats(NOW - domain::message::REPLY_DAYS * 86_400, NOW).await.unwrap(), 1);
    let card = app.get(&format!("/details/{id}"), &[]).await.page().one(".seller-replies").text;
    assert_eq!(card, "通常1小时内回复 · 回复率66%（近30天买家咨询）");
}

/// A buyer reports the seller's message asking for money off the platform (once; a reason is
/// needed; one's own message cannot be reported); staff read it as written and bar the seller
/// with a reason (none: said beside the field); the seller can then write no more, the buyer can.
async fn a_reported_writer_is_barred_from_messages_by_staff_with_a_reason(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let sent = app.post_form(&format!("/space/messages/ask/{id}"), &b, &form("车还在吗？")).await;
    let thread = thread_of(sent.location());
    let path = format!("/space/messages/{thread}");
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    let scam = "加我微信wangjg2024，定金先转我个人账户";
    assert_eq!(app.post_form(&path, &s, &form(scam)).await.status, StatusCode::SEE_OTHER);
    let message: i64 = app.state.store.messages(thread).await.unwrap().last().unwrap().message_id;
    let report = format!("{path}/report");
    let bad = app.post_form(&report, &b, &format!("message_id={message}&reason=spam")).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("请选择举报原因"));
    let first = app.post_form(&report, &b, &format!("message_id={message}&reason=scam")).await;
    assert_eq!((first.status, first.location()), (StatusCode::SEE_OTHER, format!("{path}?reported=kept").as_str()));
    assert!(app.get(first.location(), &b).await.body.contains("已收到举报，平台会尽快核实处理"));
    let again = app.post_form(&report, &b, &format!("message_id={message}&reason=scam")).await;
    assert!(app.get(again.location(), &b).await.body.contains("您已举报过这条消息"));
    assert_eq!(app.post_form(&report, &s, &format!("message_id={message}&reason=abuse")).await.status, StatusCode::NOT_FOUND, "not one's own message");
    // Staff read it as written.
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let st = [("cookie", staff.as_str())];
    let desk = app.get("/staff/messages", &st).await;
    let case = desk.page().one(".desk-messages li").html;
    assert!(case.contains("诈骗、要求站外付款") && case.contains(scam), "{case}");
    let report_id: i64 = case.split("id=\"report-").nth(1).and_then(|r| r.split('"').next()).and_then(|n| n.parse().ok()).expect("the report's id");
    let unexplained = app.post_form("/staff/messages", &st, &format!("id={report_id}&decision=block&why=")).await;
    assert_eq!(unexplained.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(unexplained.page().one(&format!("#report-{report_id}")).html.contains("限制发送消息须写明理由"));
    let why = form_urlencoded::byte_serialize("要求买家向个人账户转定金".as_bytes()).collect::<String>();
    assert_eq!(app.post_form("/staff/messages", &st, &format!("id={report_id}&decision=block&why={why}")).await.status, StatusCode::SEE_OTHER);
    assert!(!app.get("/staff/messages", &st).await.body.contains(&format!("report-{report_id}")), "handled, it leaves the desk");
    assert_eq!(app.post_form("/staff/messages", &st, &format!("id={report_id}&decision=dismiss")).await.status, StatusCode::UNPROCESSABLE_ENTITY, "once");
    // The seller can write no more; the buyer can.
    let barred = app.post_form(&path, &s, &form("还在吗")).await;
    assert_eq!(barred.status, StatusCode::FORBIDDEN);
    assert!(barred.body.contains(domain::message::BLOCKED) && barred.body.contains(">还在吗</textarea>"));
    assert_eq!(app.post_form(&path, &b, &form("好的，谢谢")).await.status, StatusCode::SEE_OTHER);
}

/// The seller's header counts the unread message until it is read; the buyer's own message says
/// 未读, then 已读; the buyer shows their number on purpose (kept once, with when): the seller
/// reads it before answering, while the number typed in a message stays hidden; nobody else can
/// share in the thread; one address is limited whoever is signed in.
async fn a_number_is_shown_on_purpose_reads_are_receipted_and_the_header_counts_unread(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let sent = app.post_form(&format!("/space/messages/ask/{id}"), &b, &form("车还在吗？我电话13712350001")).await;
    let thread = thread_of(sent.location());
    let path = format!("/space/messages/{thread}");
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    let me = app.get(&format!("/details/{id}"), &s).await.page().one(".nav-me").html;
    assert!(me.contains(r#"href="/space/messages""#) && me.contains(">1</span>"), "the header counts the unread message: {me}");
    assert_eq!(app.get(&path, &b).await.page().one(".msg-item.mine .msg-read").text, "未读");
    // The buyer shows their number; the seller reads it at once, the typed one still hidden.
    let shared = app.post_form(&format!("{path}/share"), &b, "").await;
    assert_eq!((shared.status, shared.location()), (StatusCode::SEE_OTHER, format!("{path}?shared=1").as_str()));
    assert!(app.get(shared.location(), &b).await.body.contains("您已向对方公开手机号"));
    let read = app.get(&path, &s).await;
    assert!(read.page().one(".msg-shared").text.contains("对方向您公开了手机号：13712350001"), "{}", read.body);
    assert!(read.page().one(".msg-item .msg-body").text.contains("［联系方式已隐藏］"));
    assert!(!read.page().one(".nav-me").html.contains("msg-unread"), "the thread being read is not counted on its own page");
    assert!(!app.get(&format!("/details/{id}"), &s).await.page().one(".nav-me").html.contains("msg-unread"), "read: no badge");
    assert_eq!(app.get(&path, &b).await.page().one(".msg-item.mine .msg-read").text, "已读");
    assert_eq!(app.post_form(&format!("{path}/share"), &b, "").await.status, StatusCode::SEE_OTHER);
    let log = format!("select count(*) from contact_share where thread_id = {thread}");
    assert_eq!(app.state.store.count_admin(&log).await.unwrap(), 1, "shown once, logged once");
    let other = login(app, OTHER, "").await;
    assert_eq!(app.post_form(&format!("{path}/share"), &[("cookie", other.as_str())], "").await.status, StatusCode::NOT_FOUND);
    // One address: many accounts together are limited too.
    let key = "message:ip:10.9.8.7";
    for _ in 0..domain::message::PER_ADDRESS_HOUR {
        app.state.store.throttle(&[(key, domain::limit::Limit::per_hour(domain::message::PER_ADDRESS_HOUR))], NOW).await.unwrap();
    }
    let limited = app.post_form(&path, &[("cookie", other.as_str()), ("x-test-peer", "10.9.8.7")], &form("你好")).await;
    assert_eq!(limited.status, StatusCode::NOT_FOUND, "not their thread, whatever the address");
    let limited = app.post_form(&path, &[("cookie", buyer.as_str()), ("x-test-peer", "10.9.8.7")], &form("还在吗")).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.body.contains("发送太频繁") && limited.body.contains(">还在吗</textarea>"));
}

/// Two nodes on one database: the buyer's live thread waits on node B while the seller answers
/// through node A; the answer reaches the buyer before the wait ends, hidden as the page hides it,
/// and the seller's reading of the buyer's message reaches the buyer as a read mark.
async fn a_reader_on_another_node_sees_a_message_and_its_reading_as_they_happen(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let sent = app.post_form(&format!("/space/messages/ask/{id}"), &b, &form("车还在吗？")).await;
    let thread = thread_of(sent.location());
    let path = format!("/space/messages/{thread}");
    let first = app.state.store.messages(thread).await.unwrap()[0].message_id;
    let node_b = app.variant(app.state.config.clone(), NOW);
    // Nothing new: answered at once without waiting, with nothing.
    let quiet = get_on(&node_b, &format!("{path}/since?after={first}&read=0&wait=0"), &b).await;
    assert_eq!(quiet.status, StatusCode::OK);
    assert_eq!(quiet.json()["messages"].as_array().map(Vec::len), Some(0));
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    let waiting = format!("{path}/since?after={first}&read=0&wait=10");
    let poll = get_on(&node_b, &waiting, &b);
    let answer = async {
        tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
        app.get(&path, &s).await;
        app.post_form(&path, &s, &form("在的，店里电话010-62345678")).await
    };
    let started = std::time::Instant::now();
    let (live, answered) = tokio::join!(poll, answer);
    assert_eq!(answered.status, StatusCode::SEE_OTHER);
    assert!(started.elapsed() < std::time::Duration::from_secs(9), "the poll answered when the news came, not at the end of its wait");
    let news = live.json();
    let text = news.to_string();
    assert!(news["otherRead"].as_i64().unwrap_or(0) >= first, "the seller read the question: {text}");
    let messages = news["messages"].as_array().cloned().unwrap_or_default();
    if let Some(m) = messages.first() {
        assert_eq!((m["mine"].as_bool(), m["who"].as_str()), (Some(false), Some("卖家")), "{text}");
    } else {
        // The reading came first: the next poll brings the answer.
        let next = get_on(&node_b, &format!("{path}/since?after={first}&read={}&wait=5", news["otherRead"]), &b).await.json();
        assert_eq!(next["messages"][0]["who"].as_str(), Some("卖家"), "{next}");
    }
    // Both have written now: the number shows; another user's poll is 404.
    let all = get_on(&node_b, &format!("{path}/since?after=0&wait=0"), &b).await.json();
    assert!(all.to_string().contains("010-62345678"), "{all}");
    let other = login(app, OTHER, "").await;
    assert_eq!(get_on(&node_b, &format!("{path}/since?after=0&wait=0"), &[("cookie", other.as_str())]).await.status, StatusCode::NOT_FOUND);
}

/// The seller answers with a photo (and the text beside it); the buyer sends a photo alone. A
/// file that is not a photo is said beside the photo field with the text kept, and nothing is
/// sent; an empty text with no photo is said beside the box. The photo is kept from the cleanup
/// of unused uploads, and a photo alone reads ［图片］ in 我的消息.
async fn a_reply_carries_a_photo_through_the_photo_pipeline(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let thread = thread_of(app.post_form(&format!("/space/messages/ask/{id}"), &b, &form("左前门有划痕吗？")).await.location());
    let path = format!("/space/messages/{thread}");
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    let count = || async { app.state.store.messages(thread).await.unwrap().len() };
    // The page's form sends the photo last, as multipart.
    let page = app.get(&path, &s).await;
    assert_eq!(page.page().one("form.msg-form").attr("enctype"), Some("multipart/form-data"));
    let broken = app.post_multipart(&path, &s, &[Part::Text("body", "见照片"), Part::File("photo", "a.jpg", b"not a photo at all")]).await;
    assert_eq!(broken.status, StatusCode::UNPROCESSABLE_ENTITY);
    let form_page = broken.page();
    assert!(!form_page.one("#msg-photo-err").text.is_empty(), "{}", broken.body);
    assert_eq!(form_page.one("#msg-body").text, "见照片", "the text kept");
    assert_eq!(count().await, 1, "nothing sent");
    let empty = app.post_multipart(&path, &s, &[Part::Text("body", "  ")]).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.body.contains("请输入消息内容"));
    let sent = app.post_multipart(&path, &s, &[Part::Text("body", "有一点，见照片"), Part::File("photo", "door.jpg", &jpeg(800, 600, 40))]).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let alone = app.post_multipart(&path, &b, &[Part::Text("body", ""), Part::File("photo", "mine.jpg", &jpeg(640, 480, 90))]).await;
    assert_eq!(alone.status, StatusCode::SEE_OTHER, "{}", alone.body);
    for (who, h) in [("buyer", &b), ("seller", &s)] {
        let page = app.get(&path, h).await;
        let photos = page.page().select(".msg-photo img");
        assert_eq!(photos.len(), 2, "{who} sees both photos: {}", page.body);
        assert!(page.body.contains("有一点，见照片"), "{who}");
    }
    let stored = app.state.store.messages(thread).await.unwrap();
    assert_eq!(stored.len(), 3);
    assert!(stored[2].body.is_empty() && !stored[2].photo_path.is_empty());
    let orphans = app.state.store.orphan_uploads(NOW + 30 * 86_400, 1_000).await.unwrap();
    assert!(stored[1..].iter().all(|m| orphans.iter().all(|(_, p)| *p != m.photo_path)), "a message's photo is not an orphan");
    let list = app.get("/space/messages", &s).await;
    assert!(list.body.contains("［图片］"), "{}", list.body);
}

/// The code of the last link `/m/{code}` a text carries.
fn link_code(text: &str) -> String {
    let (_, after) = text.rsplit_once("/m/").unwrap_or_else(|| panic!("no link in {text}"));
    after.chars().take_while(char::is_ascii_alphanumeric).collect()
}

async fn a_notice_links_into_its_thread_signing_in_once_within_three_days(app: &TestApp) {
    let (id, seller_mobile) = dealer_car(app).await;
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let sent = app.post_form(&format!("/space/messages/ask/{id}"), &b, &form("车还在吗？周末能看车吗")).await;
    let thread = thread_of(sent.location());
    // The seller's SMS links into the thread; a look at the link (a messenger's preview, the
    // seller opening it) shows what it is for and signs nobody in, however often.
    let told = app.state.adapters.sms.sandbox_message_notices(&seller_mobile);
    assert!(told[0].contains(&format!("{}/m/", app.state.config.site.url)) && told[0].contains("3天内有效"), "{told:?}");
    let link = format!("/m/{}", link_code(&told[0]));
    let title = app.state.store.listing_detail(id).await.unwrap().title;
    // (On a node whose response cache is on: a look is never kept, or the next visitor would be
    // shown the page of a link that may be used up by then.)
    let mut cached = app.state.config.clone();
    cached.cache.response = std::time::Duration::from_secs(60);
    let node = app.variant(cached, NOW);
    for _ in 0..2 {
        let look = get_on(&node, &link, &[]).await;
        assert_eq!(look.status, StatusCode::OK);
        assert!(look.body.contains("买家就这辆车给您发来了新消息") && look.body.contains(&title), "{}", look.body);
        assert!(look.body.contains(&domain::validate::mask_mobile(&seller_mobile)) && !look.body.contains(&seller_mobile), "masked: {}", look.body);
        assert!(look.cookies().iter().all(|c| !c.starts_with("hx_token=")), "no session from a look: {:?}", look.cookies());
        assert!(look.headers.get("x-cache").is_none(), "never kept by the response cache");
        assert!(look.page().one(&format!(r#"form[action="{link}"] button"#)).text.contains("登录并查看消息"));
    }
    // The button signs the seller in and opens the thread with the question.
    let opened = app.post_form(&link, &[], "").await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER, "{}", opened.body);
    assert_eq!(opened.location(), format!("/space/messages/{thread}#latest"));
    let seller = opened.cookie_header();
    assert!(seller.contains("hx_token="), "{seller}");
    let s = [("cookie", seller.as_str())];
    let page = app.get(&format!("/space/messages/{thread}"), &s).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("车还在吗？周末能看车吗"));
    // Once: the link again, from anyone else, is gone and says how to get there; the seller,
    // signed in now, is taken to the thread.
    let again = app.post_form(&link, &[], "").await;
    assert_eq!(again.status, StatusCode::GONE);
    assert!(
        again.body.contains("链接已失效")
            && again.body.contains("/sys/login?return=%2Fspace%2Fmessages")
            && again.cookies().iter().all(|c| !c.starts_with("hx_token="))
    );
    assert_eq!(app.get(&link, &[]).await.status, StatusCode::GONE);
    let back = app.get(&link, &s).await;
    assert_eq!((back.status, back.location()), (StatusCode::SEE_OTHER, format!("/space/messages/{thread}#latest").as_str()));
    // A code changed by a character, or made up, opens nothing.
    let mut forged = link.clone();
    let last = if forged.ends_with('0') { "1" } else { "0" };
    forged.replace_range(forged.len() - 1.., last);
    assert_eq!(app.post_form(&forged, &[], "").await.status, StatusCode::GONE);
    assert_eq!(app.get("/m/%3Cscript%3E", &[]).await.status, StatusCode::GONE);
    // The seller answers; the buyer's link, opened where someone else is signed in, says it
    // changes accounts. Three days on it is gone.
    app.post_form(&format!("/space/messages/{thread}"), &s, &form("在的，周六上午可以来")).await;
    let told = app.state.adapters.sms.sandbox_message_notices(BUYER);
    assert!(told.last().is_some_and(|t| t.contains("卖家就")), "{told:?}");
    let buyer_link = format!("/m/{}", link_code(told.last().unwrap()));
    let other = login(app, OTHER, "").await;
    let switch = app.get(&buyer_link, &[("cookie", other.as_str())]).await;
    assert!(switch.body.contains("卖家就这辆车") && switch.body.contains("切换到收到通知的账号"), "{}", switch.body);
    let later = app.variant(app.state.config.clone(), NOW + domain::message::LINK_SECS + 1);
    let late = post_on(&later, &buyer_link, &[], "").await;
    assert_eq!(late.status, StatusCode::GONE);
    assert!(late.cookies().iter().all(|c| !c.starts_with("hx_token=")));
    // Within the three days it signs the buyer in (the other account's session is replaced).
    let opened = app.post_form(&buyer_link, &[("cookie", other.as_str())], "").await;
    assert_eq!(opened.location(), format!("/space/messages/{thread}#latest"));
    let page = app.get(&format!("/space/messages/{thread}"), &[("cookie", opened.cookie_header().as_str())]).await;
    assert!(page.body.contains("在的，周六上午可以来"), "{}", page.body);
}

/// 在线咨询 on a shop's page: the buyer asks the shop itself, with no car; the owner is told by
/// SMS and the shop's hooks get the message; the owner answers from the dealer centre; the
/// buyer's next question goes to the same thread; once answered, the shop may be reviewed for it.
async fn a_buyer_asks_a_shop_itself_from_its_page_and_the_shop_answers(app: &TestApp) {
    let (car, owner) = dealer_car(app).await;
    let shop_id = app.state.store.listing_detail(car).await.unwrap().shop_id.unwrap();
    let shop = app.state.store.shop_by_id(shop_id).await.unwrap();
    let owner_id = shop.owner_user_id.unwrap();
    let hooked = domain::webhook::Events::of(&[domain::webhook::Event::MessageReceived]);
    let hook = app.state.store.create_webhook(shop_id, "https://dms.example.com/hooks", "secret", hooked, owner_id, NOW).await.unwrap().unwrap();
    let ask = format!("/space/messages/ask-shop/{shop_id}");
    // Every tab of the shop's pages offers it; without signing in, the box asks to sign in first.
    for tab in ["", "/business", "/reviews"] {
        let page = app.get(&format!("/shop/{}{tab}", shop.oname), &[]).await;
        assert!(page.page().one(".shop-contact").html.contains(&format!(r#"href="{ask}""#)), "{tab}: {}", page.body);
    }
    assert_eq!(app.get(&ask, &[]).await.status, StatusCode::UNAUTHORIZED);
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let page = app.get(&ask, &b).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("想问商家什么") && page.body.contains(&shop.name) && page.body.contains(&format!(r#"href="/shop/{}""#, shop.oname)));
    // An empty message: said beside the box, nothing begun.
    let empty = app.post_form(&ask, &b, &form(" ")).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.page().one(".msg-form .field").html.contains("请输入消息内容"));
    let threads = format!("select count(*) from message_thread where shop_id = {shop_id}");
    assert_eq!(app.state.store.count_admin(&threads).await.unwrap(), 0);
    let sent = app.post_form(&ask, &b, &form("有没有10万左右的SUV？我电话13812345678")).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let thread = thread_of(sent.location());
    let path = format!("/space/messages/{thread}");
    let told = app.state.adapters.sms.sandbox_message_notices(&owner);
    assert!(told.len() == 1 && told[0].contains(&format!("买家就{}给您发来了新消息", shop.name)), "{told:?}");
    let queued = format!("select count(*) from webhook_delivery where webhook_id = {hook} and event = 'message.received' and listing_id is null");
    assert_eq!(app.state.store.count_admin(&queued).await.unwrap(), 1, "the shop's hook takes the message");
    // The owner: the line says what it is, the thread shows the shop instead of a car, the number hidden.
    let o = login(app, &owner, "").await;
    let s = [("cookie", o.as_str())];
    let list = app.get("/space/messages", &s).await;
    let line = list.page().one(".msg-list li").html;
    assert!(line.contains("咨询店铺") && line.contains(&shop.name) && line.contains(">1<"), "{line}");
    let read = app.get(&path, &s).await;
    assert_eq!(read.status, StatusCode::OK);
    assert!(read.page().one(".rs-car").html.contains(&format!(r#"href="/shop/{}""#, shop.oname)), "{}", read.body);
    assert!(!read.body.contains("13812345678") && read.body.contains("［联系方式已隐藏］"));
    assert_eq!(app.post_form(&path, &s, &form("有的，途观L和CR-V都有，欢迎周末到店")).await.status, StatusCode::SEE_OTHER);
    let told = app.state.adapters.sms.sandbox_message_notices(BUYER);
    assert!(told.len() == 1 && told[0].contains(&format!("商家就{}给您发来了新消息", shop.name)), "{told:?}");
    // The buyer reads the shop's answer, marked as the shop's, and may now review the shop.
    let mine = app.get(&path, &b).await;
    assert!(mine.body.contains("商家 <time>") && mine.body.contains("途观L和CR-V都有"), "{}", mine.body);
    assert!(mine.body.contains(&format!("/space/reviews/new?basis=thread&amp;id={thread}")), "{}", mine.body);
    let list = app.get("/space/messages", &b).await;
    assert!(list.page().one(".msg-list li").html.contains("咨询商家"));
    // Asking again goes to the same thread; the owner cannot ask their own shop; another's thread is 404.
    let again = app.get(&ask, &b).await;
    assert_eq!((again.status, again.location()), (StatusCode::SEE_OTHER, path.as_str()));
    assert_eq!(app.post_form(&ask, &b, &form("周末几点开门？")).await.location(), format!("{path}#latest"));
    let own = app.post_form(&ask, &s, &form("自己问自己")).await;
    assert_eq!(own.status, StatusCode::CONFLICT);
    assert!(own.body.contains("这是您自己或您所在的店铺") && own.body.contains(">自己问自己</textarea>"), "{}", own.body);
    let other = login(app, OTHER, "").await;
    assert_eq!(app.get(&path, &[("cookie", other.as_str())]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.state.store.count_admin(&threads).await.unwrap(), 1);
    // No such shop: 404, not a thread.
    assert_eq!(app.get("/space/messages/ask-shop/999999", &b).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.post_form("/space/messages/ask-shop/999999", &b, &form("在吗")).await.status, StatusCode::NOT_FOUND);
}

/// The car list's 回复 row: 1小时内回复 keeps the cars of sellers whose last 30 days' figures
/// say they answer within the hour and answer most buyers, says its rule, and is neither
/// followed nor indexed (the cars change with each day's figures); a shop's own list has no row.
async fn the_car_list_can_keep_the_cars_of_sellers_who_answer_within_the_hour(app: &TestApp) {
    let (car, _) = dealer_car(app).await;
    let d = app.state.store.listing_detail(car).await.unwrap();
    let (seller, shop) = (d.seller_user_id.unwrap(), app.state.store.shop_by_id(d.shop_id.unwrap()).await.unwrap());
    let store = &app.state.store;
    store.execute_admin("delete from reply_stat").await.unwrap();
    store
        .execute_admin(&format!("insert into reply_stat (user_id, median_secs, rate_pct, threads, computed_at) values ({seller}, 900, 95, 12, {NOW})"))
        .await
        .unwrap();
    let all = app.get("/carlist", &[]).await;
    let row = all.page().select(".frow").into_iter().find(|r| r.text.starts_with("回复")).expect("the 回复 row");
    assert!(row.html.contains(r#"href="/carlist?reply=1" rel="nofollow">1小时内回复</a>"#), "{}", row.html);
    let kept = app.get("/carlist?reply=1", &[]).await;
    assert_eq!(kept.status, StatusCode::OK);
    let cars = crate::support::detail_links(&kept.body);
    let online = store.count_admin(&format!("select count(*) from listing where status = 'online' and seller_user_id = {seller}")).await.unwrap();
    assert_eq!(cars.len() as i64, online.min(20), "{}", kept.body);
    for id in cars {
        assert_eq!(store.listing_detail(id).await.unwrap().seller_user_id, Some(seller), "car {id}");
    }
    assert!(kept.page().one(".list-head h1").text.contains(&format!("共 {online} 辆")), "{}", kept.page().one(".list-head h1").text);
    assert!(kept.page().one(".chipbar").text.contains("卖家1小时内回复"));
    assert!(kept.page().one(".reply-rule").text.contains("通常1小时内回复、回复率不低于80%"));
    assert!(kept.body.contains(r#"<meta name="robots" content="noindex,follow">"#));
    // A slower seller's figures keep nothing more; none kept says so and offers the way back.
    store.execute_admin(&format!("update reply_stat set median_secs = 5400 where user_id = {seller}")).await.unwrap();
    let later = app.variant(app.state.config.clone(), NOW + 120);
    let none = get_on(&later, "/carlist?reply=1", &[]).await;
    assert!(none.body.contains("没有找到符合条件的车源") && none.body.contains("去掉「卖家1小时内回复」"), "{}", none.body);
    let own = app.get(&format!("/shop/{}/buyCar", shop.oname), &[]).await;
    assert!(own.page().select(".frow").iter().all(|r| !r.text.starts_with("回复")), "a shop's own list has no reply row");
}
