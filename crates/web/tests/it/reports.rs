//! History reports by VIN: a VIN typed wrong answered beside its field before sign-in, a report
//! paid through the sandbox cashier and read, downloaded as a PDF whose text is Chinese, hidden
//! from everyone else; a provider answering twice changes nothing; the VIP plan's free queries
//! counted and used up; and the 聚美智数 adapter against a mock peer: signed requests, tasks
//! answered later, pushes believed only when signed.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt as _;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{IPHONE, NOW, TestApp, detail_links, login, post_on};
use web::adapters::history::{Answer, ReportData, push_sign, request_sign};

on_both!(10 =>
    a_vin_is_tidied_and_checked_before_anyone_signs_in,
    a_history_report_is_asked_of_its_provider_once_paid,
    a_report_is_read_many_times_charged_once_and_downloaded,
    nobody_else_reads_a_report,
    a_vip_plan_gives_free_queries_until_they_are_used,
    an_electric_car_shows_its_battery_and_its_report_is_ordered_after_the_agreement,
    an_inspected_car_shows_its_168_item_report_by_listing_or_number,
);

async fn get_bytes(app: &TestApp, uri: &str, cookie: &str) -> (StatusCode, String, Vec<u8>) {
    let req = Request::builder().uri(uri).header("cookie", cookie).header("user-agent", IPHONE).body(Body::empty()).unwrap();
    let res = app.router().oneshot(req).await.unwrap();
    let status = res.status();
    let kind = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    (status, kind, axum::body::to_bytes(res.into_body(), 10 << 20).await.unwrap().to_vec())
}

async fn a_vin_is_tidied_and_checked_before_anyone_signs_in(app: &TestApp) {
    // Mistakes are named beside the field, before anyone is asked to sign in, the input kept.
    for (vin, message) in [
        ("LSVAM4180C218482O", "车架号不含字母I、O、Q"),
        ("LSVAM4180C218482", "不足17位"),
        ("LSVAM4180C21848211", "超过了17位"),
        ("LSVAM4187C2184821", "第9位校验码"),
    ] {
        let r = app.get(&format!("/servicehall/fourquery/fourorder?vin={vin}&product=full"), &[("user-agent", IPHONE)]).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{vin}");
        assert!(r.body.contains(message) && r.body.contains(r#"id="fq-vin-error""#), "{vin}: {}", r.body);
        assert!(r.body.contains(r#"value="full" checked"#), "the product chosen is kept");
    }
    // What people paste (lower case, spaces, full-width characters) is tidied and taken: signed
    // out, the form goes on to sign-in.
    for vin in ["lsvam4180c2184821", "LSVAM%204180C2184821", "%EF%BC%AC%EF%BC%B3VAM4180C2184821"] {
        let r = app.get(&format!("/servicehall/fourquery/fourorder?vin={vin}&product=full"), &[("user-agent", IPHONE)]).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{vin}: {}", r.body);
    }
    let anonymous = app.get(&format!("/servicehall/fourquery/fourorder?vin={}&product=full", domain::report::ACCIDENT_VIN), &[]).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED, "a good form asks for sign-in");
}

async fn a_history_report_is_asked_of_its_provider_once_paid(app: &TestApp) {
    paid_report(app).await;
}

/// A full report on the accident VIN, ordered and paid at the sandbox cashier by 13700007001:
/// their session cookie and the report, delivered.
async fn paid_report(app: &TestApp) -> (String, store::Report) {
    let a = login(app, "13700007001", "").await;
    let h = [("cookie", a.as_str()), ("user-agent", IPHONE)];
    let confirm = app.get(&format!("/servicehall/fourquery/fourorder?vin={}&product=full", domain::report::ACCIDENT_VIN), &h).await;
    assert_eq!(confirm.status, StatusCode::OK);
    assert!(confirm.body.contains("69.00元") && confirm.body.contains("车况四项全查") && !confirm.body.contains("使用VIP免费查询"), "{}", confirm.body);
    let r = app.post_form("/servicehall/fourquery/fourorder", &h, &format!("vin={}&product=full&method=alipay", domain::report::ACCIDENT_VIN)).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let pending = app.state.store.reports_of(app.state.store.user_by_mobile("13700007001").await.unwrap().unwrap().user_id, 10).await.unwrap();
    assert_eq!((pending.len(), pending[0].status), (1, domain::report::State::Pending), "nothing is asked before it is paid");
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let back = app.get(paid.location(), &h).await;
    assert_eq!(back.status, StatusCode::SEE_OTHER, "the payment result goes on to the report's");
    assert!(back.location().starts_with("/servicehall/fourquery/fousresults?order="), "{}", back.location());
    let asked = app.state.store.reports_of(pending[0].user_id, 10).await.unwrap().remove(0);
    assert_eq!(asked.status, domain::report::State::Ready, "a paid report is asked of the provider once the payment applies, not when its page is next read");
    let result = app.get(back.location(), &h).await;
    assert!(
        result.body.contains("报告已生成")
            && result.body.contains("事故车（结构件损伤）：出险1次，合计48600元")
            && result.body.contains(r#"<p class="report-verdict warn"><b>车况结论</b>事故车（结构件损伤）</p>"#)
            && result.body.contains("演示数据"),
        "{}",
        result.body
    );
    let report = app.state.store.reports_of(pending[0].user_id, 10).await.unwrap().remove(0);
    assert_eq!(report.status, domain::report::State::Ready);
    (a, report)
}

async fn a_report_is_read_many_times_charged_once_and_downloaded(app: &TestApp) {
    let (a, report) = paid_report(app).await;
    let (h, id) = ([("cookie", a.as_str()), ("user-agent", IPHONE)], report.report_id);
    // Read many times, charged once: a second answer from the provider changes nothing.
    let record = domain::report::sandbox_record(&domain::validate::Vin::parse(domain::report::MORTGAGE_VIN).unwrap(), NOW);
    assert!(!web::services::reports::apply(&app.state, id, &record).await.unwrap(), "a repeated answer is not applied");
    assert_eq!(app.state.store.report_of(report.user_id, id).await.unwrap().unwrap().result_json, report.result_json);
    let order = app.state.store.order_by_no(report.order_no.as_deref().unwrap()).await.unwrap().unwrap();
    assert_eq!((order.status, order.amount_fen), (domain::order::Status::Paid, 6_900));
    let again = app.get(&format!("/servicehall/fourquery/fourorder?vin={}&product=full", domain::report::ACCIDENT_VIN), &h).await;
    assert!(again.body.contains(&format!("/servicehall/report/{id}")) && again.body.contains("无需再付费"), "the same query is offered, not charged again");

    let page = app.get(&format!("/servicehall/report/{id}"), &h).await;
    assert!(page.body.contains("正面碰撞") && page.body.contains("纵梁") && page.body.contains("<svg"), "{}", page.body);
    assert!(page.body.contains("<table class=\"fq-table\">") && page.body.contains("4S店保养"), "the chart's numbers as text");
    let journey = app.get(&format!("/servicehall/journeyReport?report={id}"), &h).await;
    assert!(journey.body.contains("里程时间线") && journey.body.contains("未发现调表迹象"), "{}", journey.body);
    assert!(app.get("/servicehall/fourquery/fourlist", &h).await.body.contains(&format!("/servicehall/report/{id}")));
    assert!(app.get(&format!("/actives/recodetail?id={id}"), &h).await.body.contains(report.order_no.as_deref().unwrap()));

    let (status, kind, pdf) = get_bytes(app, &format!("/servicehall/viewpdf?report={id}"), &a).await;
    if status == StatusCode::OK {
        assert_eq!(kind, "application/pdf");
        assert!(pdf.starts_with(b"%PDF-") && pdf.len() < 300 * 1024, "{} bytes", pdf.len());
        // In this app's own directory: the SQLite and PostgreSQL runs share report ids and run at once.
        std::fs::create_dir_all(&app.upload_dir).unwrap();
        let file = app.upload_dir.join(format!("report-{id}.pdf"));
        std::fs::write(&file, &pdf).unwrap();
        if let Ok(out) = std::process::Command::new("pdftotext").arg(&file).arg("-").output() {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains("车况报告")
                    && text.contains("正面碰撞")
                    && text.contains("出险1次")
                    && text.contains("车况结论")
                    && text.contains("事故车（结构件损伤）"),
                "{text}"
            );
        }
        let _ = std::fs::remove_file(file);
    } else {
        // Without the configured font the PDF says so, in Chinese, and nothing else breaks.
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(std::fs::metadata(&app.state.config.pdf.font).is_err(), "the font is there, yet no PDF");
        assert!(std::env::var("CI").is_err(), "CI installs the font (fonts-noto-cjk)");
    }
}

async fn nobody_else_reads_a_report(app: &TestApp) {
    let (_, report) = paid_report(app).await;
    let id = report.report_id;
    // Nobody else can read it: not the report, the PDF, the timeline or the record.
    let b = login(app, "13700007002", "").await;
    let hb = [("cookie", b.as_str()), ("user-agent", IPHONE)];
    for uri in [
        format!("/servicehall/report/{id}"),
        format!("/servicehall/viewpdf?report={id}"),
        format!("/actives/recodetail?id={id}"),
        format!("/servicehall/fourquery/fousresults?id={id}"),
        format!("/servicehall/journeyReport?report={id}"),
        format!("/servicehall/fourquery/fousresults?order={}", report.order_no.as_deref().unwrap()),
    ] {
        assert_eq!(app.get(&uri, &hb).await.status, StatusCode::NOT_FOUND, "{uri}");
        // Signed out, each asks for sign-in first.
        let anon = app.get(&uri, &[("user-agent", IPHONE)]).await;
        assert_eq!(anon.status, StatusCode::UNAUTHORIZED, "{uri}");
        assert!(anon.body.contains(r#"action="/sys/login""#), "{uri}");
    }
}

async fn a_vip_plan_gives_free_queries_until_they_are_used(app: &TestApp) {
    let a = login(app, "13700007003", "").await;
    let user = app.state.store.user_by_mobile("13700007003").await.unwrap().unwrap().user_id;
    let order = store::NewOrder {
        order_no: "20261121103015000901".to_owned(),
        user_id: user,
        item: store::Item {
            product: domain::order::Product::Vip,
            plan_code: "buyer-month".to_owned(),
            city_code: None,
            campaign: String::new(),
            subject: "买车VIP月卡".to_owned(),
            amount_fen: 1_900,
        },
        provider: domain::order::Provider::Alipay,
        channel: "wap".to_owned(),
        attribution: String::new(),
    };
    app.state.store.create_order(&order, NOW).await.unwrap();
    let pay = store::Payment { order_no: &order.order_no, provider: domain::order::Provider::Alipay, trade_no: "T1", amount_fen: 1_900 };
    app.state.store.settle_payment(&pay, NOW).await.unwrap();
    let h = [("cookie", a.as_str()), ("user-agent", IPHONE)];
    let form = app.get("/servicehall/fourquery", &h).await;
    assert!(form.body.contains("本月可免费查询2次，还剩2次"), "{}", form.body);
    // My VIP shows what the buyer's plan gives, not a seller's 擦亮 and 确认在售.
    let mine = app.get("/space/vip", &h).await;
    assert!(mine.body.contains("免费车况查询") && mine.body.contains("每月2次") && mine.body.contains("新车源上架即时提醒"), "{}", mine.body);
    assert!(!mine.body.contains("每天擦亮") && !mine.body.contains("确认在售有效期"), "{}", mine.body);
    for (n, vin) in [domain::report::ROLLBACK_VIN, domain::report::MORTGAGE_VIN].into_iter().enumerate() {
        let confirm = app.get(&format!("/servicehall/fourquery/fourorder?vin={vin}&product=mileage"), &h).await;
        assert!(confirm.body.contains(&format!("使用VIP免费查询（本月剩{}次）", 2 - n)), "{}", confirm.body);
        let r = app.post_form("/servicehall/fourquery/fourorder", &h, &format!("vin={vin}&product=mileage&method=quota")).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER);
        assert!(r.location().starts_with("/servicehall/fourquery/fousresults?id="), "{}", r.location());
        let result = app.get(r.location(), &h).await;
        assert!(result.body.contains("报告已生成"), "{}", result.body);
        if vin == domain::report::ROLLBACK_VIN {
            assert!(result.body.contains("疑似调表"), "{}", result.body);
        }
    }
    let used_up = app.post_form("/servicehall/fourquery/fourorder", &h, "vin=LVSHCAMB8EE123456&product=mileage&method=quota").await;
    assert!(used_up.body.contains("本月的免费查询次数已用完"), "{}", used_up.body);
    assert_eq!(app.state.store.reports_of(user, 10).await.unwrap().len(), 2, "no third free query");
    assert!(app.state.store.reports_of(user, 10).await.unwrap().iter().all(|r| r.order_no.is_none()));
}

async fn an_electric_car_shows_its_battery_and_its_report_is_ordered_after_the_agreement(app: &TestApp) {
    let ids = detail_links(&app.get("/carlist?sort=new", &[]).await.body);
    let (ev, bare, petrol, plain) = (ids[0], ids[1], ids[2], ids[3]);
    let vin = domain::battery::WORN_BATTERY_VIN;
    // A plug-in hybrid (秦PLUS DM-i) is 新能源; a plain hybrid (CR-V) is not, and has no battery card.
    for (id, fuel, series, vin) in [
        (ev, 3, "model-y", format!("'{vin}'")),
        (bare, 4, "qin-plus", "null".to_owned()),
        (petrol, 1, "langyi", format!("'{}'", domain::report::ACCIDENT_VIN)),
        (plain, 4, "cr-v", format!("'{}'", domain::report::MORTGAGE_VIN)),
    ] {
        app.state
            .store
            .execute_admin(&format!(
                "update listing set fuel = {fuel}, vin = {vin}, series_id = (select series_id from series where slug = '{series}') where listing_id = {id}"
            ))
            .await
            .unwrap();
        web::services::reports::refresh_panel(&app.state, id).await.unwrap();
    }
    // The battery card: free, its health and how it was measured, flagged when worn; the VIN
    // never shown. A car without the VIN says there is no data; a petrol car has no card.
    let detail = app.get(&format!("/details/{ev}"), &[("user-agent", IPHONE)]).await;
    let card = &detail.page().select("section.battery-card").pop().expect("a battery card").html;
    assert!(card.contains("健康度") && card.contains("车载BMS数据读取") && card.contains("演示数据 · 检测于"), "{card}");
    assert!(card.contains(r#"class="vin-battery warn""#), "a worn battery is flagged: {card}");
    assert!(card.contains(&format!("/servicehall/batteryreport?listing={ev}")) && !detail.body.contains(vin));
    assert!(detail.body.contains("<h2>车况记录"), "the history panel stays");
    assert!(app.get(&format!("/details/{bare}"), &[]).await.body.contains("卖家没有填写车架号，暂无电池检测数据"));
    assert!(!app.get(&format!("/details/{petrol}"), &[]).await.body.contains("battery-card"));
    assert!(!app.get(&format!("/details/{plain}"), &[]).await.body.contains("battery-card"), "a plain hybrid is not 新能源");

    let a = login(app, "13700007005", "").await;
    let h = [("cookie", a.as_str()), ("user-agent", IPHONE)];
    let form = app.get(&format!("/servicehall/batteryreport?listing={ev}"), &h).await;
    assert!(form.body.contains("/actives/help/batteryagree") && form.body.contains("49.00元"), "{}", form.body);
    // The agreement is asked for beside its box; a petrol car has no battery to test.
    let unagreed = app.get(&format!("/servicehall/fourquery/fourorder?listing={ev}&product=battery"), &h).await;
    assert_eq!(unagreed.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(unagreed.body.contains("请先阅读并同意《电池检测数据查询授权协议》") && unagreed.body.contains(r#"id="fq-agree-error""#), "{}", unagreed.body);
    let not_ev = app.get(&format!("/servicehall/fourquery/fourorder?listing={petrol}&product=battery&agree=1"), &h).await;
    assert!(not_ev.body.contains("没有动力电池报告"), "{}", not_ev.body);
    let hybrid = app.get(&format!("/servicehall/fourquery/fourorder?listing={plain}&product=battery&agree=1"), &h).await;
    assert!(hybrid.body.contains("没有动力电池报告"), "a plain hybrid gets no battery report: {}", hybrid.body);
    let agreement = app.get("/actives/help/batteryagree", &[]).await;
    assert!(agreement.body.contains("电池检测数据查询授权协议") && agreement.body.contains("健康度"));

    let confirm = app.get(&format!("/servicehall/fourquery/fourorder?listing={ev}&product=battery&agree=1"), &h).await;
    assert!(confirm.body.contains("新能源电池检测") && confirm.body.contains(r#"name="agree" value="1""#) && !confirm.body.contains(vin), "{}", confirm.body);
    let r = app.post_form("/servicehall/fourquery/fourorder", &h, &format!("listing={ev}&product=battery&agree=1&method=alipay")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let query = r.location().split_once('?').unwrap().1.to_owned();
    let paid = app.post_form("/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let result = app.get(app.get(paid.location(), &h).await.location(), &h).await;
    assert!(result.body.contains("报告已生成") && result.body.contains("健康度"), "{}", result.body);
    let user = app.state.store.user_by_mobile("13700007005").await.unwrap().unwrap().user_id;
    let report = app.state.store.reports_of(user, 1).await.unwrap().remove(0);
    let id = report.report_id;
    assert_eq!((report.product, report.amount_fen), (domain::report::Product::Battery, Some(4_900)));
    assert!(result.body.contains(&format!("/servicehall/batteryreport/{id}")));
    let moved = app.get(&format!("/servicehall/report/{id}"), &h).await;
    assert_eq!((moved.status, moved.location()), (StatusCode::SEE_OTHER, format!("/servicehall/batteryreport/{id}").as_str()));
    let page = app.get(&format!("/servicehall/batteryreport/{id}"), &h).await;
    for text in ["<meter", "可用容量", "循环次数", "电芯一致性", "快充占比", "车载BMS数据读取", "较差"] {
        assert!(page.body.contains(text), "{text}: {}", page.body);
    }
    assert!(!page.body.contains(vin), "ordered from the listing, the VIN stays hidden");
    let (status, _, pdf) = get_bytes(app, &format!("/servicehall/viewpdf?report={id}"), &a).await;
    if status == StatusCode::OK {
        std::fs::create_dir_all(&app.upload_dir).unwrap();
        let file = app.upload_dir.join(format!("battery-{id}.pdf"));
        std::fs::write(&file, &pdf).unwrap();
        if let Ok(out) = std::process::Command::new("pdftotext").arg(&file).arg("-").output() {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("电池检测报告") && text.contains("电芯一致性"), "{text}");
        }
        let _ = std::fs::remove_file(file);
    }
    let b = login(app, "13700007006", "").await;
    assert_eq!(app.get(&format!("/servicehall/batteryreport/{id}"), &[("cookie", b.as_str())]).await.status, StatusCode::NOT_FOUND);
}

async fn an_inspected_car_shows_its_168_item_report_by_listing_or_number(app: &TestApp) {
    let quality = detail_links(&app.get("/servicehall/qualitycarlist", &[]).await.body);
    let id = quality[0];
    let detail = app.get(&format!("/details/{id}"), &[]).await;
    assert!(detail.body.contains(&format!("/servicehall/checkreport?id={id}")), "the detail page links its report");
    let record = app.state.store.inspection_of_listing(id).await.unwrap().expect("an inspected car has its inspection");
    let page = app.get(&format!("/servicehall/checkreport?id={id}"), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    for text in
        ["168项检测报告", record.report_no.as_str(), record.inspector.as_str(), "事故排查", "38项", "无重大事故、无火烧、无泡水", &format!("/details/{id}")]
    {
        assert!(page.body.contains(text), "{text}: {}", page.body);
    }
    for f in &record.inspection.findings {
        assert!(page.body.contains(&f.note), "the inspector's note {:?} is shown", f.note);
    }
    // The printed number finds the same report, typed in lower case with spaces around.
    let by_no = app.get(&format!("/servicehall/checkreport?q=+{}+", record.report_no.to_lowercase()), &[]).await;
    assert!(by_no.status == StatusCode::OK && by_no.body.contains(&record.report_no));
    // What cannot be read is said beside the field; what finds nothing says so; the input kept.
    let bad = app.get("/servicehall/checkreport?q=JC12", &[]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains(r#"id="ck-q-error""#) && bad.body.contains("以JC开头") && bad.body.contains(r#"value="JC12""#), "{}", bad.body);
    let unknown = app.get("/servicehall/checkreport?q=JC20200101999999", &[]).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.body.contains("没有找到这个编号的检测报告"));
    let plain = detail_links(&app.get("/carlist?sort=new", &[]).await.body).into_iter().find(|l| !quality.contains(l)).unwrap();
    if app.state.store.inspection_of_listing(plain).await.unwrap().is_none() {
        assert!(app.get(&format!("/servicehall/checkreport?q={plain}"), &[]).await.body.contains("只有精品车源做过168项检测"));
    }
    assert_eq!(app.get("/servicehall/checkreport", &[]).await.status, StatusCode::OK);
}

pub(crate) fn jumdata_config(server: &MockServer) -> web::config::Config {
    let mut config = web::config::Config::defaults(web::config::Env::Development);
    config.report.adapter = web::config::ReportAdapter::Jumdata;
    config.report.endpoint = format!("{}/vehicle/history", server.uri());
    config.report.result_endpoint = format!("{}/vehicle/history/result", server.uri());
    config.report.app_id = "app-1".to_owned();
    config.report.app_secret = web::config::Secret::new("secret-1");
    config
}

fn jumdata(server: &MockServer) -> ReportData {
    ReportData::from_config(&jumdata_config(server), web::adapters::http_client())
}

/// The real adapter against a mock 聚美智数: the query is signed as documented and becomes a
/// task; the task is answered later; a push is believed only with the right signature.
#[tokio::test]
async fn the_jumdata_adapter_signs_queries_and_believes_only_signed_pushes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/vehicle/history"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"code": 200, "msg": "成功", "taskNo": "T-77"})))
        .expect(1)
        .mount(&server)
        .await;
    let ready = serde_json::json!({"code": 200, "taskNo": "T-77", "data": {
        "maintenance": [{"date": "2024-05-02", "mileage": 30_000, "shopName": "长沙广汽丰田4S店", "content": "更换机油"}],
        "claims": [], "status": {"mortgage": 0}, "mileage": [{"date": "2024-05-02", "mileage": 30_000, "source": "4S店保养"}]
    }});
    Mock::given(method("POST")).and(path("/vehicle/history/result")).respond_with(ResponseTemplate::new(200).set_body_json(ready.clone())).mount(&server).await;
    let adapter = jumdata(&server);
    let vin = domain::validate::Vin::parse(domain::report::ACCIDENT_VIN).unwrap();
    let answer = adapter.submit(&vin, domain::report::Product::FourS, "https://example.test/api/report/jumdata/notify", NOW).await.unwrap();
    assert_eq!(answer, Answer::Pending("T-77".to_owned()));
    let sent = server.received_requests().await.unwrap();
    let form: std::collections::HashMap<String, String> = form_urlencoded::parse(&sent[0].body).into_owned().collect();
    assert_eq!(form["appId"], "app-1");
    assert_eq!(form["timestamp"], (NOW * 1_000).to_string());
    assert_eq!(form["sign"], request_sign("app-1", "secret-1", NOW * 1_000));
    assert_eq!((form["vin"].as_str(), form["items"].as_str()), (domain::report::ACCIDENT_VIN, "maintenance,claims"));
    let Answer::Ready(record) = adapter.result("T-77", NOW).await.unwrap() else { panic!("ready") };
    assert_eq!(record.services[0].shop, "长沙广汽丰田4S店");

    let body = ready.to_string();
    let push = adapter.verify_push(&push_sign("secret-1", &body), &body).expect("a signed push");
    assert_eq!(push.task, "T-77");
    assert!(adapter.verify_push(&push_sign("secret-2", &body), &body).is_none(), "another secret");
    assert!(adapter.verify_push(&push_sign("secret-1", &body), &body.replace("30000", "3000")).is_none(), "a changed body");
    assert!(ReportData::Sandbox.verify_push(&push_sign("", &body), &body).is_none(), "the sandbox takes no pushes");
}

/// A provider that cannot answer: the paid query ends failed and its order is refunded.
#[tokio::test]
async fn a_query_the_provider_cannot_answer_is_refunded() {
    let app = crate::support::spawn_app(5).await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/vehicle/history"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"code": 400, "msg": "该VIN无记录"})))
        .mount(&server)
        .await;
    let state = app.variant(jumdata_config(&server), NOW);
    let a = login(&app, "13700007004", "").await;
    let h = [("cookie", a.as_str()), ("user-agent", IPHONE)];
    // Paid at the variant's own sandbox cashier, which then takes the refund.
    let r = post_on(&state, "/servicehall/fourquery/fourorder", &h, "vin=LVSHCAMB8EE123456&product=claims&method=alipay").await;
    let query = r.location().split_once('?').unwrap().1.to_owned();
    post_on(&state, "/pay/sandbox/gateway", &h, &format!("{query}&result=paid")).await;
    let user = app.state.store.user_by_mobile("13700007004").await.unwrap().unwrap().user_id;
    // The provider is asked as the payment applies, and its refusal ends the query there.
    let report = app.state.store.reports_of(user, 1).await.unwrap().remove(0);
    assert_eq!(report.status, domain::report::State::Failed);
    let order = app.state.store.order_by_no(report.order_no.as_deref().unwrap()).await.unwrap().unwrap();
    assert_eq!(order.status, domain::order::Status::Refunded, "the buyer's money goes back");
    let page = app.get(&format!("/servicehall/fourquery/fousresults?id={}", report.report_id), &h).await;
    assert!(page.body.contains("查询失败") && page.body.contains("款项已原路退回"), "{}", page.body);
}

/// The free trust panel is the sandbox's records only where the sandbox is the history source:
/// with the provider, whose every query is sold, a listing with a VIN shows no made-up records.
#[tokio::test]
async fn the_trust_panel_never_shows_sandbox_records_from_a_real_provider() {
    let app = crate::support::spawn_app(5).await;
    let server = MockServer::start().await;
    let id = detail_links(&app.get("/carlist?sort=new", &[]).await.body)[0];
    let set_vin = format!("update listing set vin = '{}' where listing_id = {id}", domain::report::ACCIDENT_VIN);
    app.state.store.execute_admin(&set_vin).await.unwrap();
    assert!(web::services::reports::refresh_panel(&app.state, id).await.unwrap(), "the sandbox writes a panel");
    assert!(app.get(&format!("/details/{id}"), &[]).await.body.contains("演示数据 · "));

    let real = app.variant(jumdata_config(&server), NOW);
    assert!(!web::services::reports::refresh_panel(&real, id).await.unwrap());
    let page = crate::support::get_on(&real, &format!("/details/{id}"), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(!page.body.contains("演示数据") && !page.body.contains("<h2>车况记录"), "{}", page.body);
    assert!(server.received_requests().await.unwrap().is_empty(), "no query was bought for a panel");
}
