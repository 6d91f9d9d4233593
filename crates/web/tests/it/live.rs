//! Live selling over HTTP, on SQLite and PostgreSQL: a dealer schedules a session (bad input
//! answered beside its field, nothing saved half-way; another shop's car refused), viewers ask to
//! be reminded and get an SMS when it starts, the live page plays the stream under a CSP that
//! reaches its origin only, a lead from the session reaches the dealer's desk naming it, pinned
//! cars change, the session ends with its replay; another dealer sees none of it. The live
//! valuation queue, signed pull URLs and the demo stream the site serves itself.

use axum::http::StatusCode;
use web::config::{Config, Env, LiveSigning, SignedHost};

use crate::support::{NOW, TestApp, get_on, login, owner_mobile};

/// The two shops with the most online cars: (shop, its cars).
async fn two_shops(app: &TestApp) -> [(i64, Vec<i64>); 2] {
    let rich = |n: i64| {
        format!(
            "select shop_id from listing where status = 'online' and shop_id is not null group by shop_id order by count(*) desc, shop_id limit 1 offset {n}"
        )
    };
    let mut out = Vec::new();
    for n in 0..2 {
        let shop = app.state.store.count_admin(&rich(n)).await.unwrap();
        let cars = app.state.store.shop_latest(shop, 25).await.unwrap().iter().map(|c| c.listing_id).collect();
        out.push((shop, cars));
    }
    [out.remove(0), out.remove(0)]
}

fn form(pairs: &[(&str, String)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}={}", domain::text::percent_encode(v))).collect::<Vec<_>>().join("&")
}

async fn sessions(app: &TestApp) -> i64 {
    app.state.store.count_admin("select count(*) from live_session").await.unwrap()
}

/// A session scheduled by the dealer of the shop with the most cars, pinning its first and last
/// car; the rival is the next shop's dealer, the buyer asked to be reminded.
struct Scheduled {
    dealer: String,
    rival: String,
    buyer: String,
    shop: i64,
    cars: Vec<i64>,
    other_cars: Vec<i64>,
    id: i64,
    viewer: String,
}

/// The form of a good session pinning `cars[0]` and `car`.
fn good_session(cars: &[i64], car: i64) -> String {
    form(&[
        ("action", "create".to_owned()),
        ("title", "周末特价专场 准新车现场看".to_owned()),
        ("start", "2026-11-25T20:00".to_owned()),
        ("pull", "https://play.example.com/live/s1.m3u8".to_owned()),
        ("car", cars[0].to_string()),
        ("car", car.to_string()),
    ])
}

async fn scheduled(app: &TestApp) -> Scheduled {
    let [(shop, cars), (other_shop, other_cars)] = two_shops(app).await;
    let dealer = login(app, &owner_mobile(app, shop).await, "").await;
    let rival = login(app, &owner_mobile(app, other_shop).await, "").await;
    let r = app.post_form("/actives/liveControl", &[("cookie", &dealer)], &good_session(&cars, *cars.last().unwrap())).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let id = app.state.store.count_admin("select max(live_session_id) from live_session").await.unwrap();
    let buyer = login(app, "13812347777", "").await;
    let viewer = format!("/actives/zhiboflow?id={id}");
    let r = app.post_form("/actives/zhiboflow", &[("cookie", &buyer)], &format!("id={id}&action=remind")).await;
    assert_eq!(r.location(), format!("{viewer}&remind=ok#remind"));
    Scheduled { dealer, rival, buyer, shop, cars, other_cars, id, viewer }
}

/// [`scheduled`], started by its dealer.
async fn live(app: &TestApp) -> Scheduled {
    let s = scheduled(app).await;
    let r = app.post_form("/actives/liveControl", &[("cookie", &s.dealer)], &format!("action=start&id={}", s.id)).await;
    assert_eq!(r.location(), format!("/actives/liveControl?id={}&done=started", s.id));
    s
}

async fn a_dealer_schedules_a_session_with_each_mistake_said_beside_its_field(app: &TestApp) {
    let [(shop, cars), (other_shop, other_cars)] = two_shops(app).await;
    assert!(!cars.is_empty() && !other_cars.is_empty(), "the seed gives both shops cars");
    let dealer = login(app, &owner_mobile(app, shop).await, "").await;
    let rival = login(app, &owner_mobile(app, other_shop).await, "").await;
    let post = |cookie: String, body: String| async move { app.post_form("/actives/liveControl", &[("cookie", &cookie)], &body).await };

    let desk = app.get("/actives/liveControl", &[("cookie", &dealer)]).await;
    assert_eq!(desk.status, StatusCode::OK);
    assert!(desk.body.contains("创建直播") && desk.body.contains(&format!(r#"name="car" value="{}""#, cars[0])), "my online cars to pin");
    assert!(!desk.body.contains(&format!(r#"name="car" value="{}""#, other_cars[0])), "not another shop's");

    // Bad input: each message beside its field, the typed text kept, nothing saved.
    let before = sessions(app).await;
    let mut bad = vec![
        ("action", "create".to_owned()),
        ("title", "特价".to_owned()),
        ("start", "2026-11-20T08:00".to_owned()),
        ("pull", "http://play.example.com/live/s1.m3u8".to_owned()),
    ];
    bad.extend((1..=21).map(|i| ("car", i.to_string())));
    let r = post(dealer.clone(), form(&bad)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    for message in ["直播标题应为4到30个字", "开播时间不能早于现在", "拉流地址须是以 https:// 开头的完整地址", "最多置顶20辆车"]
    {
        assert!(r.body.contains(message), "{message}");
    }
    assert!(r.body.contains(r#"value="http://play.example.com/live/s1.m3u8""#), "the pull URL is kept");
    let r = post(
        dealer.clone(),
        form(&[
            ("action", "create".to_owned()),
            ("title", "周末专场看车".to_owned()),
            ("start", "2026-11-25T20:00".to_owned()),
            ("pull", "https://play.example.com/live/s1.mp4".to_owned()),
        ]),
    )
    .await;
    assert!(r.body.contains("拉流地址须是 .m3u8 或 .flv 直播流"));
    let good = |car: i64| good_session(&cars, car);
    let r = post(dealer.clone(), good(other_cars[0])).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("只能置顶本店在售的车源"));
    assert_eq!(sessions(app).await, before, "nothing saved half-way");

    let r = post(dealer.clone(), good(*cars.last().unwrap())).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let id = app.state.store.count_admin("select max(live_session_id) from live_session").await.unwrap();
    assert_eq!(r.location(), format!("/actives/liveControl?id={id}&done=created"));
    assert_eq!(app.get(&format!("/actives/liveControl?id={id}"), &[("cookie", &rival)]).await.status, StatusCode::NOT_FOUND, "another dealer sees nothing");
    assert_eq!(post(rival.clone(), format!("action=start&id={id}")).await.status, StatusCode::NOT_FOUND);
    let buyer = login(app, "13812347777", "").await;
    assert_eq!(app.get("/actives/liveControl", &[("cookie", &buyer)]).await.status, StatusCode::FORBIDDEN);
}

async fn viewers_are_reminded_once_when_an_upcoming_session_starts(app: &TestApp) {
    let Scheduled { dealer, buyer, id, viewer, .. } = scheduled(app).await;
    let post = |cookie: String, body: String| async move { app.post_form("/actives/liveControl", &[("cookie", &cookie)], &body).await };
    // Upcoming: a countdown and 提醒我; no player is shipped.
    let page = app.get(&viewer, &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("后开播") && page.body.contains("提醒我") && page.body.contains("登录后预约"));
    assert!(!page.body.contains("<video") && !page.body.contains("LivePlayer"), "a page without a stream ships no player");
    let r = app.post_form("/actives/zhiboflow", &[], &format!("id={id}&action=remind")).await;
    assert!(r.location().starts_with("/sys/login?to="), "a stranger signs in first");
    assert!(app.get(&viewer, &[("cookie", &buyer)]).await.body.contains("已预约，开播时会短信提醒您"));

    // Live: the reminder goes out once; the video plays the stream; the CSP reaches its origin.
    assert_eq!(post(dealer.clone(), format!("action=start&id={id}")).await.location(), format!("/actives/liveControl?id={id}&done=started"));
    assert_eq!(
        post(dealer.clone(), format!("action=start&id={id}")).await.location(),
        format!("/actives/liveControl?id={id}"),
        "a second click changes nothing"
    );
    let mut sent = Vec::new();
    for _ in 0..50 {
        sent = app.state.adapters.sms.sandbox_live_reminders("13812347777");
        if !sent.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(40)).await;
    }
    assert_eq!(sent.len(), 1, "one reminder");
    assert!(sent[0].contains("周末特价专场 准新车现场看") && sent[0].contains("已开播"));
    let page = app.get(&viewer, &[]).await;
    assert!(page.body.contains(r#"src="https://play.example.com/live/s1.m3u8""#) && page.body.contains("LivePlayer"));
    let csp = page.headers.get("content-security-policy").unwrap().to_str().unwrap().to_owned();
    assert!(csp.contains("media-src 'self' blob: https://play.example.com") && csp.contains("connect-src 'self' https://play.example.com"), "{csp}");
    let home_csp = app.get("/", &[]).await.headers.get("content-security-policy").unwrap().to_str().unwrap().to_owned();
    assert!(!home_csp.contains("play.example.com") && !home_csp.contains("media-src"), "no other page reaches the stream");
}

async fn a_lead_from_a_live_session_reaches_its_dealers_desk(app: &TestApp) {
    let Scheduled { dealer, rival, cars, viewer, id, .. } = live(app).await;
    // Each pinned car on sale also offers a message thread with its seller.
    let page = app.get(&viewer, &[]).await;
    assert!(page.page().attrs(".live-pinned .ask a", "href").contains(&format!("/space/messages/ask/{}", cars[0])), "{}", page.body);
    // A lead from the session: the agreement first, then it reaches the desk naming the session.
    let r = app.post_form("/actives/zhiboflow", &[], &format!("id={id}&action=lead&mobile=13912345678&car={}", cars[0])).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("请阅读并勾选同意") && r.body.contains(r#"value="13912345678""#));
    let r = app.post_form("/actives/zhiboflow", &[], &format!("id={id}&action=lead&mobile=13912345678&agree=1&car={}", cars[0])).await;
    assert_eq!(r.location(), format!("{viewer}&lead=ok#lead"));
    let leads = app.get("/actives/zhikeclues", &[("cookie", &dealer)]).await;
    assert!(leads.body.contains("来自直播「周末特价专场 准新车现场看」") && leads.body.contains("询底价"), "the desk names the session");
    assert!(!app.get("/actives/zhikeclues", &[("cookie", &rival)]).await.body.contains("来自直播「周末特价专场"));
}

async fn the_dealer_marks_the_car_on_camera_and_changes_the_pinned_cars(app: &TestApp) {
    let Scheduled { dealer, rival, cars, other_cars, viewer, id, .. } = live(app).await;
    let post = |cookie: String, body: String| async move { app.post_form("/actives/liveControl", &[("cookie", &cookie)], &body).await };
    // The car on camera: none marked, the session's cars are one list; the dealer marks one and
    // viewers see it apart, above the others, once. Not another dealer, not a car not pinned.
    let page = app.get(&viewer, &[]).await;
    assert!(!page.body.contains("正在讲解的车") && page.body.contains("本场车源"), "no car is said to be on camera before the dealer says so");
    let shown = *cars.last().unwrap();
    assert_eq!(post(rival.clone(), format!("action=onair&id={id}&car={shown}")).await.status, StatusCode::NOT_FOUND);
    let r = post(dealer.clone(), format!("action=onair&id={id}&car={}", other_cars[0])).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("这辆车不在本场的置顶车源里"));
    let r = post(dealer.clone(), format!("action=onair&id={id}&car={shown}")).await;
    assert_eq!(r.location(), format!("/actives/liveControl?id={id}&done=onair#onair"));
    let desk = app.get(r.location(), &[("cookie", &dealer)]).await.body;
    assert!(desk.contains(&format!(r#"name="car" value="{shown}" aria-pressed="true""#)) && desk.contains("正在讲解的车已更新"));
    let page = app.get(&viewer, &[]).await.body;
    let on_air = page.split("正在讲解的车").nth(1).unwrap().split("本场车源").next().unwrap();
    assert!(on_air.contains(&format!(r#"href="/details/{shown}""#)), "the marked car is on camera");
    assert_eq!(page.matches(&format!(r#"href="/details/{shown}""#)).count(), 1, "and not listed twice");
    assert_eq!(post(dealer.clone(), format!("action=onair&id={id}&car=")).await.status, StatusCode::SEE_OTHER);
    assert!(!app.get(&viewer, &[]).await.body.contains("正在讲解的车"), "marked none again");
    post(dealer.clone(), format!("action=onair&id={id}&car={shown}")).await;

    // Pinned cars change while live; another shop's car is refused and nothing changes.
    let r = post(dealer.clone(), format!("action=pins&id={id}&car={}", other_cars[0])).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(app.get(&viewer, &[]).await.body.contains(&format!("/details/{}", cars[0])));
    let r = post(dealer.clone(), format!("action=pins&id={id}&car={}", cars.last().unwrap())).await;
    assert_eq!(r.location(), format!("/actives/liveControl?id={id}&done=pins#pins"));
    let page = app.get(&viewer, &[]).await;
    assert!(page.body.contains(&format!(r#"href="/details/{}""#, cars.last().unwrap())));
    assert!(page.body.contains("正在讲解的车"), "the car on camera stays so while it stays pinned");
    if cars.len() > 1 {
        assert!(!page.body.contains(&format!(r#"href="/details/{}""#, cars[0])), "unpinned");
    }
}

async fn an_ended_session_plays_its_replay_and_stays_ended(app: &TestApp) {
    let Scheduled { dealer, shop, viewer, id, .. } = live(app).await;
    let post = |cookie: String, body: String| async move { app.post_form("/actives/liveControl", &[("cookie", &cookie)], &body).await };
    // Ended with a replay: a bad address is refused beside its field; the replay then plays.
    let r = post(dealer.clone(), format!("action=end&id={id}&replay=ftp%3A%2F%2Fvod.example.com%2Fr.mp4")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("回放地址须是以 https:// 开头的完整地址"));
    let r = post(dealer.clone(), format!("action=end&id={id}&replay=https%3A%2F%2Fvod.example.com%2Fr%2F1.mp4")).await;
    assert_eq!(r.location(), format!("/actives/liveControl?id={id}&done=ended"));
    let page = app.get(&viewer, &[]).await;
    assert!(page.body.contains(r#"src="https://vod.example.com/r/1.mp4""#) && page.body.contains("回放"));
    assert_eq!(post(dealer.clone(), format!("action=start&id={id}")).await.location(), format!("/actives/liveControl?id={id}"), "an ended session stays ended");

    // The shop's sessions: live and upcoming before ended ones.
    let oname = app.state.store.shop_oname(shop).await.unwrap();
    let list = app.get(&format!("/actives/liveshop?oname={oname}"), &[]).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.body.contains(&viewer));
    assert_eq!(app.get("/actives/liveshop?oname=no-such-shop", &[]).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/actives/zhiboflow?id=999999", &[]).await.status, StatusCode::NOT_FOUND);
}

async fn a_live_valuation_joins_the_dealers_queue(app: &TestApp) {
    // The seed's first shop is live now.
    let dealer = login(app, &owner_mobile(app, 1).await, "").await;
    let live = app.state.store.count_admin("select min(live_session_id) from live_session where status = 'live' and shop_id = 1").await.unwrap();
    let series = domain::catalog::series().iter().find(|s| s.slug == "langyi").unwrap();
    let bad = app.get(&format!("/actives/livePinggu?id={live}&series=langyi&month=2021-06&mileage=abc&city=changsha&save=1"), &[]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains(r#"id="pg-mileage-error""#));
    // Without a session's id the page does not exist, and says so in Chinese.
    for path in ["/actives/livePinggu", "/actives/livePinggu?id=abc", "/actives/livePinggu?id=99999999"] {
        let none = app.get(path, &[]).await;
        assert_eq!(none.status, StatusCode::NOT_FOUND, "{path}");
        assert!(none.body.contains("抱歉，您访问的页面不存在或已下线"), "{path}: {}", none.body);
    }
    // Reading a valuation's address (shared, or replayed with the old `save=1`) joins nothing.
    let read = app.get(&format!("/actives/livePinggu?id={live}&series=langyi&month=2021-06&mileage=3.5&city=changsha&save=1"), &[]).await;
    assert_eq!(read.status, StatusCode::OK);
    assert!(read.body.contains("车商收购价") && read.body.contains("<video"), "prices at once, beside the stream");
    let sql = format!("select count(*) from live_appraisal where live_session_id = {live}");
    let queued = async |app: &TestApp| app.state.store.count_admin(&sql).await.unwrap();
    let before = queued(app).await;
    // Sent with the form: it joins the queue, and the viewer lands on the prices.
    let sent = app.post_form("/actives/livePinggu", &[], &format!("id={live}&series=langyi&month=2021-06&mileage=3.5&city=changsha")).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER);
    assert!(sent.location().contains("sent=1") && sent.location().ends_with("#result"), "{}", sent.location());
    let r = app.get(sent.location(), &[]).await;
    assert!(r.body.contains("已发送给主播") && r.body.contains("车商收购价"), "{}", r.body);
    assert_eq!(queued(app).await, before + 1);
    // A wrong field sends nothing and lands on the form with its message.
    let wrong = app.post_form("/actives/livePinggu", &[], &format!("id={live}&series=langyi&month=2021-06&mileage=abc&city=changsha")).await;
    assert!(!wrong.location().contains("sent=1"));
    assert_eq!(app.get(wrong.location(), &[]).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(queued(app).await, before + 1);
    let desk = app.get(&format!("/actives/liveControl?id={live}"), &[("cookie", &dealer)]).await;
    assert!(desk.body.contains(&format!("{} · 2021-06上牌 · 3.5万公里 · 长沙", series.name)), "the dealer sees the queue");
    let queued = app.state.store.count_admin(&format!("select max(live_appraisal_id) from live_appraisal where live_session_id = {live}")).await.unwrap();
    let r = app.post_form("/actives/liveControl", &[("cookie", &dealer)], &format!("action=handle&id={live}&appraisal={queued}")).await;
    assert_eq!(r.location(), format!("/actives/liveControl?id={live}&done=handled#queue"));
    let rival = login(app, &owner_mobile(app, 2).await, "").await;
    let r = app.post_form("/actives/liveControl", &[("cookie", &rival)], &format!("action=handle&id={live}&appraisal={queued}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

on_both!(60 => a_dealer_schedules_a_session_with_each_mistake_said_beside_its_field, viewers_are_reminded_once_when_an_upcoming_session_starts,
    a_lead_from_a_live_session_reaches_its_dealers_desk, the_dealer_marks_the_car_on_camera_and_changes_the_pinned_cars, an_ended_session_plays_its_replay_and_stays_ended, a_live_valuation_joins_the_dealers_queue);

#[tokio::test]
async fn pull_urls_on_a_signed_play_domain_are_signed_for_each_viewer() {
    let app = crate::support::spawn_app(60).await;
    let mut cfg = Config::defaults(Env::Development);
    cfg.live.signed_hosts = vec![SignedHost {
        host: "play.example.com".to_owned(),
        provider: LiveSigning::Tencent,
        key: web::config::Secret::new("e12c46f2612d5106e2034781ab261ca3"),
    }];
    let state = app.variant(cfg, NOW);
    let store = &app.state.store;
    let cars: Vec<i64> = store.shop_latest(1, 2).await.unwrap().iter().map(|c| c.listing_id).collect();
    let owner = store.shop_by_oname(&store.shop_oname(1).await.unwrap()).await.unwrap().owner_user_id.unwrap();
    let new = store::NewLiveSession {
        title: "签名直播测试".to_owned(),
        starts_at: NOW + 60,
        pull_url: "https://play.example.com/live/test.flv".to_owned(),
        listing_ids: cars,
    };
    let store::Pinned::Saved(id) = store.schedule_live(owner, &new, NOW).await.unwrap() else { panic!("scheduled") };
    store.move_live(owner, id, domain::live::Action::Start, None, NOW).await.unwrap();
    let page = get_on(&state, &format!("/actives/zhiboflow?id={id}"), &[]).await;
    // The FLV address is played as its HLS twin, signed until 12 hours after the page.
    let tx_time = format!("{:X}", NOW + domain::live::SIGNED_URL_TTL_SECS);
    assert!(page.body.contains("https://play.example.com/live/test.m3u8?txSecret=") && page.body.contains(&format!("txTime={tx_time}")), "{}", page.body);
    // Another host plays as given.
    let plain = app.get(&format!("/actives/zhiboflow?id={id}"), &[]).await;
    assert!(plain.body.contains(r#"src="https://play.example.com/live/test.m3u8""#));
}

#[tokio::test]
async fn the_demo_stream_is_a_live_hls_playlist_of_whole_ts_segments() {
    let app = crate::support::spawn_app(0).await;
    let list = app.get("/live/demo/index.m3u8", &[]).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.headers.get("content-type").unwrap(), "application/vnd.apple.mpegurl");
    let seg = list.body.lines().rfind(|l| l.ends_with(".ts")).unwrap().to_owned();
    let r = app.get(&format!("/live/demo/{seg}"), &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers.get("content-type").unwrap(), "video/mp2t");
    let n: i64 = seg.trim_start_matches("seg-").trim_end_matches(".ts").parse().unwrap();
    assert_eq!(app.get(&format!("/live/demo/seg-{}.ts", n + 5), &[]).await.status, StatusCode::NOT_FOUND, "not yet recorded");
    assert_eq!(app.get("/live/demo/other.ts", &[]).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_session_cover_is_an_upload_of_the_owner() {
    use crate::support::{Part, jpeg};
    let app = crate::support::spawn_app(60).await;
    let dealer = login(&app, &owner_mobile(&app, 1).await, "").await;
    let live = app.state.store.count_admin("select min(live_session_id) from live_session where shop_id = 1 and status <> 'ended'").await.unwrap();
    let id = live.to_string();
    let photo = jpeg(1280, 720, 90);
    let r = app.post_multipart("/actives/liveControl/cover", &[("cookie", &dealer)], &[Part::Text("id", &id), Part::File("file", "cover.jpg", &photo)]).await;
    assert_eq!(r.location(), format!("/actives/liveControl?id={live}&done=cover"), "{}", r.body);
    let cover = app.state.store.live_session(live).await.unwrap().cover;
    assert!(cover.starts_with("p/") && cover.ends_with(".webp"), "{cover}");
    let stem = cover.trim_end_matches(".webp");
    assert!(app.get(&format!("/actives/zhiboflow?id={live}"), &[]).await.body.contains(stem), "the viewer shows the cover");
    // Not a photo: said beside the field; another dealer cannot touch the session.
    let r = app.post_multipart("/actives/liveControl/cover", &[("cookie", &dealer)], &[Part::Text("id", &id), Part::File("file", "a.txt", b"hello")]).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains(r#"id="lc-cover-error""#));
    let rival = login(&app, &owner_mobile(&app, 2).await, "").await;
    let r = app.post_multipart("/actives/liveControl/cover", &[("cookie", &rival)], &[Part::Text("id", &id), Part::File("file", "cover.jpg", &photo)]).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(app.state.store.live_session(live).await.unwrap().cover, cover);
}

#[tokio::test]
async fn a_reminder_that_fails_is_sent_by_the_next_round_once() {
    use wiremock::matchers::{method, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let app = crate::support::spawn_app(60).await;
    let server = MockServer::start().await;
    // Aliyun answers the first send with an error, then accepts.
    Mock::given(method("GET"))
        .and(query_param("Action", "SendSms"))
        .and(query_param("TemplateCode", "SMS_LIVE"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"Code": "isv.BUSINESS_LIMIT_CONTROL", "Message": "触发流控"})))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(query_param("Action", "SendSms"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"Code": "OK", "Message": "OK"})))
        .mount(&server)
        .await;
    let mut cfg = Config::defaults(Env::Development);
    cfg.sms.adapter = web::config::SmsAdapter::Aliyun;
    cfg.sms.endpoint = format!("{}/", server.uri());
    cfg.sms.access_key_id = "testId".to_owned();
    cfg.sms.access_key_secret = web::config::Secret::new("testSecret");
    cfg.sms.live_template_code = "SMS_LIVE".to_owned();
    let state = app.variant(cfg, NOW);
    let store = &app.state.store;
    let owner = store.shop_by_oname(&store.shop_oname(2).await.unwrap()).await.unwrap().owner_user_id.unwrap();
    let scheduled = store.count_admin("select min(live_session_id) from live_session where shop_id = 2 and status = 'scheduled'").await.unwrap();
    let viewer = store.count_admin("select max(user_id) from app_user where role = 'buyer'").await.unwrap();
    assert!(store.remind_live(scheduled, viewer, NOW).await.unwrap());
    assert!(!store.remind_live(scheduled, viewer, NOW).await.unwrap(), "asked once");
    // Nothing goes out before the start.
    assert_eq!(web::features::live::reminders::deliver_due(&state).await.unwrap(), 0);
    store.move_live(owner, scheduled, domain::live::Action::Start, None, NOW).await.unwrap();
    assert_eq!(web::features::live::reminders::deliver_due(&state).await.unwrap(), 0, "refused by the provider: released");
    assert_eq!(web::features::live::reminders::deliver_due(&state).await.unwrap(), 1, "the next round sends it");
    assert_eq!(web::features::live::reminders::deliver_due(&state).await.unwrap(), 0, "and only once");
    let sends = server.received_requests().await.unwrap().len();
    assert_eq!(sends, 2);
    let params: Vec<(String, String)> = server.received_requests().await.unwrap()[1].url.query_pairs().into_owned().collect();
    let param = params.iter().find(|(k, _)| k == "TemplateParam").unwrap().1.clone();
    assert!(param.contains("\"shop\"") && param.contains("\"title\""), "{param}");
}
