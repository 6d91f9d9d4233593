//! Verified reviews of shops, on both databases: none without a dealing (a conversation the shop
//! answered, a lead it marked contacted and a viewing whose day came), one per dealing, bad input
//! said beside its field with the rest kept, the rating on the shop's pages, its cars' cards, the
//! car's page and in `aggregateRating`; the shop's one answer; a report; staff hide one only with
//! a listed reason, and it stays, shown as hidden with the reason and left out of the rating.

use axum::http::StatusCode;

use crate::support::{NOW, Part, Reply, TestApp, get_on, jpeg, login, multipart, owner_mobile, send_body};

on_both!(10 =>
    only_a_buyer_who_dealt_with_a_shop_reviews_it_once_per_dealing,
    a_shop_answers_once_and_staff_hide_a_review_only_for_a_listed_reason,
);

const BUYER: &str = "13712370001";
const READER: &str = "13712370002";

fn enc(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Posts the review form (multipart, as the browser sends it): the fields of `form` (as a query
/// string), then the photo when there is one, through `router`.
async fn post_review(router: axum::Router, headers: &[(&str, &str)], form: &str, photos: &[&[u8]]) -> Reply {
    let fields: Vec<(String, String)> = form_urlencoded::parse(form.as_bytes()).into_owned().collect();
    let mut parts: Vec<Part<'_>> = fields.iter().map(|(k, v)| Part::Text(k, v)).collect();
    for bytes in photos {
        parts.push(Part::File("photo", "review.jpg", bytes));
    }
    let (content_type, body) = multipart(&parts);
    send_body(router, "/space/reviews/new", headers, &content_type, body).await
}

/// A dealer's online car: (car, its shop, the shop's slug, its owner's mobile).
async fn dealer_car(app: &TestApp) -> (i64, i64, String, String) {
    for card in app.state.store.latest_listings(None, 20).await.unwrap() {
        let d = app.state.store.listing_detail(card.listing_id).await.unwrap();
        if let Some(shop) = d.shop_id {
            return (d.listing_id, shop, app.state.store.shop_oname(shop).await.unwrap(), owner_mobile(app, shop).await);
        }
    }
    panic!("no dealer's car in the demo");
}

/// The buyer's thread about the car, answered by the shop: its id.
async fn answered_thread(app: &TestApp, car: i64, buyer: i64) -> i64 {
    let store::Asked::Thread(t) = app.state.store.ask_about(car, buyer, "车还在吗？", NOW - 86_400).await.unwrap() else { panic!("no thread") };
    app.state.store.write_message(t, false, "在的，欢迎来看车", NOW - 80_000).await.unwrap();
    t
}

/// What the cards of the shop's cars say of its rating (`★4.6分，12条评价`), one line per card
/// that carries it, and how many cards its list shows.
async fn card_stars(app: &TestApp, oname: &str) -> (Vec<String>, usize) {
    let list = app.get(&format!("/shop/{oname}/buyCar"), &[]).await;
    let page = list.page();
    (page.select(".card .tag.stars").into_iter().map(|n| n.text).collect(), page.count(".card"))
}

async fn only_a_buyer_who_dealt_with_a_shop_reviews_it_once_per_dealing(app: &TestApp) {
    let (car, shop, oname, seller_mobile) = dealer_car(app).await;
    let before = app.state.store.review_summary(shop).await.unwrap();
    let buyer = login(app, BUYER, "").await;
    let b = [("cookie", buyer.as_str())];
    let buyer_id = app.state.store.user_by_mobile(BUYER).await.unwrap().unwrap().user_id;
    assert!(app.get("/space/reviews", &b).await.body.contains("暂时没有可以评价的交易"));
    // No dealing, no review: the form for a thread that is not the buyer's is not found.
    assert_eq!(app.get("/space/reviews/new?basis=thread&id=999999", &b).await.status, StatusCode::NOT_FOUND);
    assert_eq!(post_review(app.router(), &b, "basis=thread&id=999999&honesty=5&price=5&service=5", &[]).await.status, StatusCode::NOT_FOUND);
    // A question the shop has not answered is no dealing yet.
    let ask = app.post_form(&format!("/space/messages/ask/{car}"), &b, &format!("body={}", enc("车还在吗？"))).await;
    let thread: i64 = ask.location().trim_start_matches("/space/messages/").trim_end_matches("#latest").parse().unwrap();
    let form = format!("/space/reviews/new?basis=thread&id={thread}");
    assert_eq!(app.get(&form, &b).await.status, StatusCode::NOT_FOUND);
    let seller = login(app, &seller_mobile, "").await;
    let answered = app.post_form(&format!("/space/messages/{thread}"), &[("cookie", seller.as_str())], &format!("body={}", enc("在的，周六可以看车"))).await;
    assert_eq!(answered.status, StatusCode::SEE_OTHER);
    // Answered: the thread invites a review, and 我的评价 lists it.
    assert!(app.get(&format!("/space/messages/{thread}"), &b).await.body.contains(&format!("/space/reviews/new?basis=thread&amp;id={thread}")));
    let mine = app.get("/space/reviews", &b).await;
    let open = mine.page().one(".msg-list li").html;
    assert!(open.contains("在线咨询 · 商家已回复") && open.contains(&format!("basis=thread&amp;id={thread}")), "{open}");
    let page = app.get(&form, &b).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.page().count(r#"input[type="radio"]"#), 20, "five choices for each of four aspects");
    // A required aspect left out, and a text of 501 characters: said beside each, the rest kept, nothing saved.
    let long = "好".repeat(501);
    let bad = post_review(app.router(), &b, &format!("basis=thread&id={thread}&price=4&service=5&body={}", enc(&long)), &[]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let p = bad.page();
    assert!(p.one("#f-honesty").html.contains("请为这一项打分"), "{}", p.one("#f-honesty").html);
    assert_eq!((p.attrs("#f-price input[checked]", "value"), p.attrs("#f-service input[checked]", "value")), (vec!["4".to_owned()], vec!["5".to_owned()]));
    assert!(bad.body.contains("评价内容不能超过500字") && bad.body.contains(&long));
    let six = post_review(app.router(), &b, &format!("basis=thread&id={thread}&honesty=6&price=4&service=5"), &[]).await;
    assert_eq!(six.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(six.page().one("#f-honesty").html.contains("请选择1到5星"));
    // A file that is no photo: said beside the photo field, the stars kept.
    let broken = post_review(app.router(), &b, &format!("basis=thread&id={thread}&honesty=5&price=4&service=5"), &[b"not a photo at all"]).await;
    assert_eq!(broken.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(broken.page().select("#rv-photo-err").len() == 1 && broken.page().attrs("#f-honesty input[checked]", "value") == ["5"], "{}", broken.body);
    let reviews = format!("select count(*) from shop_review where user_id = {buyer_id}");
    assert_eq!(app.state.store.count_admin(&reviews).await.unwrap(), 0);
    // Seven photos: one too many, said beside the field, nothing saved.
    let small = jpeg(400, 300, 10);
    let seven: Vec<&[u8]> = vec![&small; domain::review::MAX_PHOTOS + 1];
    let many = post_review(app.router(), &b, &format!("basis=thread&id={thread}&honesty=5&price=4&service=5"), &seven).await;
    assert_eq!(many.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        many.page().one("#rv-photo-err").text.contains("最多上传6张照片") && many.page().attrs("#f-honesty input[checked]", "value") == ["5"],
        "{}",
        many.body
    );
    assert_eq!(app.state.store.count_admin(&reviews).await.unwrap(), 0);
    // An address that sent a day's reviews (whoever was signed in) is refused, the form kept.
    let day = domain::limit::Limit { gap_secs: 0, window_secs: 86_400, max: domain::review::PER_ADDRESS_DAY };
    for _ in 0..domain::review::PER_ADDRESS_DAY {
        app.state.store.throttle(&[("review:ip:10.7.7.7", day)], NOW).await.unwrap();
    }
    let crowded = [("cookie", buyer.as_str()), ("x-test-peer", "10.7.7.7")];
    let refused = post_review(app.router(), &crowded, &format!("basis=thread&id={thread}&honesty=5&price=4&service=5&body={}", enc("好")), &[]).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.body.contains("今天发布的评价已达上限") && refused.page().attrs("#f-honesty input[checked]", "value") == ["5"]);
    assert_eq!(app.state.store.count_admin(&reviews).await.unwrap(), 0);
    // The review: five, four and five stars, after-sale not rated; markup kept as text.
    let text = "车况和描述一致，<b>没有</b>隐藏费用。";
    let kept = post_review(
        app.router(),
        &b,
        &format!("basis=thread&id={thread}&honesty=5&price=4&service=5&after_sale=&body={}", enc(text)),
        &[&jpeg(800, 600, 40), &jpeg(640, 480, 90), &jpeg(480, 640, 160)],
    )
    .await;
    assert_eq!((kept.status, kept.location()), (StatusCode::SEE_OTHER, format!("/shop/{oname}/reviews?written=1").as_str()));
    let shop_page = app.get(kept.location(), &[]).await;
    assert!(shop_page.body.contains("评价已发布"));
    let item = shop_page.page().select(".rv-item").into_iter().find(|n| n.html.contains("没有")).expect("the review on the shop's page").html;
    assert!(item.contains("4.7分") && item.contains("已核实 · 在线咨询过") && item.contains("&lt;b&gt;没有&lt;/b&gt;"), "{item}");
    assert!(item.contains("车况描述 5星") && !item.contains("售后保障"), "an aspect not rated is not shown: {item}");
    let shown = shop_page.page().select(".rv-item .rv-photos img").into_iter().filter(|n| n.html.contains(".webp")).count();
    assert_eq!(shown, 3, "the three photos, through the pipeline: {item}");
    assert!(item.contains("买家评价照片1/3") && item.contains("买家评价照片3/3"), "{item}");
    let kept_paths = app
        .state
        .store
        .count_admin(&format!("select count(*) from review_photo p join shop_review r on r.review_id = p.review_id where r.user_id = {buyer_id}"))
        .await
        .unwrap();
    assert_eq!(kept_paths, 3);
    let after = app.state.store.review_summary(shop).await.unwrap();
    assert_eq!((after.count, after.points), (before.count + 1, before.points + 47));
    let rating = domain::review::rating_text(after.points, after.count);
    assert!(shop_page.page().one(".rv-rating").text.contains(&format!("{rating}分 · {}条评价", after.count)));
    let dealer = shop_page.json_ld().into_iter().find(|v| v["@type"] == "AutoDealer").expect("AutoDealer");
    assert_eq!(dealer["aggregateRating"]["ratingValue"], rating.as_str());
    assert_eq!(dealer["aggregateRating"]["reviewCount"], after.count);
    // The car's seller card and the shop's header carry the rating.
    let detail = app.get(&format!("/details/{car}"), &[]).await;
    assert!(detail.page().one(".seller-rating").text.contains(&format!("★{rating} · {}条评价", after.count)));
    assert!(app.get(&format!("/shop/{oname}"), &[]).await.page().one(".shop-head .shop-rating").text.contains(&format!("★{rating}")));
    // So does every card of the shop's cars, at once on the node the review was written on.
    let (stars, cards) = card_stars(app, &oname).await;
    assert!(cards > 0 && stars.len() == cards, "{stars:?} on {cards} cards");
    assert!(stars.iter().all(|s| *s == format!("★{rating}分，{}条评价", after.count)), "{stars:?}");
    // The same dealing again: refused, the form kept, one review.
    let again = post_review(app.router(), &b, &format!("basis=thread&id={thread}&honesty=1&price=1&service=1&body={}", enc("再评一次")), &[]).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(again.body.contains("每次交易只能评价一次") && again.body.contains("再评一次"));
    assert!(app.get(&form, &b).await.body.contains("每次交易只能评价一次"));
    assert_eq!(app.state.store.count_admin(&reviews).await.unwrap(), 1);
    let mine = app.get("/space/reviews", &b).await;
    assert!(mine.body.contains("暂时没有可以评价的交易") && mine.page().count(".rv-item") == 1);
    // A viewing booked for the 25th and marked contacted by the shop: reviewable from its day.
    let booked = app.post_form(&format!("/details/{car}/lead"), &b, &format!("intent=book_viewing&mobile={BUYER}&date=2026-11-25")).await;
    assert_eq!(booked.status, StatusCode::SEE_OTHER);
    let lead = app.state.store.count_admin(&format!("select max(lead_id) from lead where user_id = {buyer_id} and intent = 'book_viewing'")).await.unwrap();
    let owner = [("cookie", seller.as_str())];
    assert_eq!(app.post_form("/actives/zhikeclues", &owner, &format!("id={lead}&action=save&status=contacted&note=")).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.get(&format!("/space/reviews/new?basis=lead&id={lead}"), &b).await.status, StatusCode::NOT_FOUND, "before the viewing's day");
    // The seller's thread with the buyer lists the buyer's lead beside it (no number in it).
    let beside = app.get(&format!("/space/messages/{thread}"), &owner).await.page().one(".msg-leads").text;
    assert!(beside.contains("这位买家此前的询价和预约（1）") && beside.contains("预约看车 · 已联系") && !beside.contains(BUYER), "{beside}");
    assert!(app.get(&format!("/space/messages/{thread}"), &b).await.page().select(".msg-leads").is_empty(), "the buyer's own page has none");
    let later = app.variant(app.state.config.clone(), NOW + 5 * 86_400);
    let open = get_on(&later, "/space/reviews", &b).await;
    assert!(open.page().one(".msg-list li").text.contains("预约看车 · 商家已联系"), "{}", open.body);
    let viewed = post_review(web::app(later.clone()), &b, &format!("basis=lead&id={lead}&honesty=3&price=3&service=2&after_sale=0"), &[]).await;
    assert_eq!(viewed.status, StatusCode::SEE_OTHER, "{}", viewed.body);
    let last = app.state.store.review_summary(shop).await.unwrap();
    assert_eq!((last.count, last.points), (after.count + 1, after.points + 27));
    // Nobody reviews their own shop's dealings.
    assert!(app.get("/space/reviews", &owner).await.body.contains("暂时没有可以评价的交易"));
}

async fn a_shop_answers_once_and_staff_hide_a_review_only_for_a_listed_reason(app: &TestApp) {
    let (car, shop, oname, seller_mobile) = dealer_car(app).await;
    let buyer_id = app.state.store.sign_in_by_mobile(BUYER, NOW - 2 * 86_400).await.unwrap().user_id;
    let thread = answered_thread(app, car, buyer_id).await;
    let today = domain::time::date(NOW);
    let stars = domain::review::Stars([1, 2, 1, 0]);
    let text = "销售态度很差，还把另一位客户的电话13900001111念给我听。";
    let store::Wrote::Kept(id, _) = app
        .state
        .store
        .write_review(buyer_id, (domain::review::Basis::Thread, thread), &today, store::NewReview { stars, body: text, photos: &[] }, NOW - 3_600)
        .await
        .unwrap()
    else {
        panic!("not kept")
    };
    let before = app.state.store.review_summary(shop).await.unwrap();
    // The dealer answers from the dealer centre: an empty answer is said beside its box; one answer, once.
    let seller = login(app, &seller_mobile, "").await;
    let s = [("cookie", seller.as_str())];
    let desk = app.get("/space/shop-reviews", &s).await;
    assert_eq!(desk.status, StatusCode::OK);
    assert!(desk.body.contains(&format!(r#"action="/space/shop-reviews/{id}""#)));
    let empty = app.post_form(&format!("/space/shop-reviews/{id}"), &s, "answer=%20").await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.body.contains("请输入回复内容") && empty.body.contains(&format!(r#"aria-describedby="ans-err-{id}""#)));
    let answer = "非常抱歉，已对该销售做了处理，也向那位客户致歉。";
    let answered = app.post_form(&format!("/space/shop-reviews/{id}"), &s, &format!("answer={}", enc(answer))).await;
    assert_eq!(answered.status, StatusCode::SEE_OTHER);
    let twice = app.post_form(&format!("/space/shop-reviews/{id}"), &s, &format!("answer={}", enc("再补充一句"))).await;
    assert_eq!(twice.status, StatusCode::CONFLICT);
    assert!(twice.body.contains("每条评价只能回复一次"));
    let reviews_path = format!("/shop/{oname}/reviews");
    let item = app.get(&reviews_path, &[]).await.page().one(&format!("#review-{id}")).html;
    assert!(item.contains("商家回复") && item.contains(answer) && !item.contains("再补充一句"), "{item}");
    // Another user's dealer centre cannot answer it; a user who is no dealer has no such page.
    let reader = login(app, READER, "").await;
    let r = [("cookie", reader.as_str())];
    assert_ne!(app.post_form(&format!("/space/shop-reviews/{id}"), &r, "answer=x").await.status, StatusCode::SEE_OTHER);
    // A reader reports it: anonymously refused, a reason needed, once.
    assert_eq!(app.post_form(&format!("/reviews/{id}/report"), &[], "reason=personal").await.status, StatusCode::UNAUTHORIZED);
    let none = app.post_form(&format!("/reviews/{id}/report"), &r, "reason=negative").await;
    assert!(app.get(none.location(), &[]).await.body.contains("请选择举报原因"));
    let kept = app.post_form(&format!("/reviews/{id}/report"), &r, "reason=personal").await;
    assert!(app.get(kept.location(), &[]).await.body.contains("已收到举报"));
    let again = app.post_form(&format!("/reviews/{id}/report"), &r, "reason=personal").await;
    assert!(app.get(again.location(), &[]).await.body.contains("您已举报过这条评价"));
    // Staff: hiding needs one of the listed reasons.
    let staff = login(app, store::seed::STAFF_MOBILE, "").await;
    let st = [("cookie", staff.as_str())];
    let desk = app.get("/staff/reviews", &st).await;
    let case = desk.page().one(".desk-messages li").html;
    assert!(case.contains("含他人个人信息") && case.contains("13900001111"), "staff read it as written: {case}");
    let report: i64 = case.split("id=\"report-").nth(1).and_then(|x| x.split('"').next()).and_then(|n| n.parse().ok()).expect("the report's id");
    let unexplained = app.post_form("/staff/reviews", &st, &format!("id={report}&decision=hide&reason=negative")).await;
    assert_eq!(unexplained.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(unexplained.page().one(&format!("#report-{report}")).html.contains("隐藏评价须选择原因"));
    assert_eq!(app.post_form("/staff/reviews", &st, &format!("id={report}&decision=hide&reason=personal")).await.status, StatusCode::SEE_OTHER);
    assert_eq!(app.post_form("/staff/reviews", &st, &format!("id={report}&decision=keep")).await.status, StatusCode::UNPROCESSABLE_ENTITY, "once");
    // Hidden, not deleted: shown as hidden with the reason, without its words, out of the rating.
    let page = app.get(&reviews_path, &[]).await;
    let item = page.page().one(&format!("#review-{id}")).html;
    assert!(item.contains("该评价已被平台隐藏，原因：含他人个人信息") && !item.contains("13900001111") && !item.contains(answer), "{item}");
    let after = app.state.store.review_summary(shop).await.unwrap();
    assert_eq!((after.count, after.points), (before.count - 1, before.points - domain::review::score(&stars)));
    // The cards leave it out of their rating too (and carry none when no review is left).
    let (on_cards, cards) = card_stars(app, &oname).await;
    let expected = if after.count == 0 {
        vec![]
    } else {
        vec![format!("★{}分，{}条评价", domain::review::rating_text(after.points, after.count), after.count); cards]
    };
    assert_eq!(on_cards, expected);
    assert_eq!(app.state.store.count_admin(&format!("select count(*) from shop_review where review_id = {id}")).await.unwrap(), 1, "kept");
    if after.count == 0 {
        assert!(page.json_ld().into_iter().all(|v| v.get("aggregateRating").is_none()), "no rating without a visible review");
    }
    assert_eq!(
        app.post_form(&format!("/reviews/{id}/report"), &r, "reason=abuse").await.status,
        StatusCode::NOT_FOUND,
        "a hidden review is not reported again"
    );
}
