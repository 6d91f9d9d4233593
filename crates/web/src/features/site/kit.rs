//! The developer pages. `/sys/kit`: the islands kit on one page, for developers and the browser
//! tests (development only; 404 elsewhere). Each island sits over its plain fallback inside a GET form, and the page
//! shows what the server parsed from the submitted values with the domain's date formats.
//! `POST /sys/kit/upload` stands in for the selling forms' photo endpoint: it reads the body
//! (at most 10 MB) and answers with an id, so the uploader's progress, retry and order can be
//! exercised before the real pipeline exists.
//!
//! The specification's developer pages, in development and staging (404 in production):
//! `/actives/kaifa` (the environment, the device class and the token that decided it, the
//! session masked, which adapters are sandboxes or real — never a secret, only whether it is
//! set), `/actives/kaifa/kaifa` (the request as the server saw it, cookie values masked),
//! `/actives/kaifa/test` (the islands kit: every island over its fallback) and
//! `/actives/testvue/test` (the built islands: each module, its size, and where the kit mounts
//! it).

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::config::Env;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::islands::{
    ConfirmFormsProps, DatePickerProps, GalleryProps, LoginProps, PhotoUploaderProps, RegionPickerProps, SharePayload, ShareProps, TextInputProps,
};
use crate::render::meta::{IslandMount, Layout, PageMeta};
use crate::state::AppState;

/// The date fields of the page: (name, end name, mode, label).
const DATE_FIELDS: &[(&str, &str, &str, &str)] = &[
    ("day", "", "day", "日期"),
    ("week", "", "week", "周"),
    ("dates", "", "dates", "多个日期"),
    ("month", "", "month", "月份"),
    ("months", "", "months", "多个月份"),
    ("year", "", "year", "年份"),
    ("years", "", "years", "多个年份"),
    ("from", "to", "range", "日期范围"),
    ("mfrom", "mto", "monthrange", "月份范围"),
];

struct DateField {
    name: &'static str,
    end_name: &'static str,
    label: &'static str,
    value: String,
    end_value: String,
    island: Option<IslandMount>,
    parsed: String,
}

#[derive(Template)]
#[template(path = "kit/kit.html")]
struct KitPage {
    page: PageMeta,
    /// Where its forms go: `/sys/kit` or `/actives/kaifa/test`.
    path: &'static str,
    dates: Vec<DateField>,
    region: Option<IslandMount>,
    city: String,
    text: Option<IslandMount>,
    note: String,
    share: Option<IslandMount>,
    gallery: Option<IslandMount>,
    login: Option<IslandMount>,
    uploader: Option<IslandMount>,
    confirm: Option<IslandMount>,
    confirmed: bool,
}

/// How the server reads a submitted picker value.
fn parse_value(mode: &str, value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    let each = |v: &str| -> Option<String> {
        match mode {
            "month" | "months" | "monthrange" => domain::time::parse_month(v).map(|(y, m)| format!("{y}年{m}月")),
            "year" | "years" => domain::time::parse_year(v).map(|y| format!("{y}年")),
            _ => domain::time::parse_date(v).map(|d| d.format("%Y年%-m月%-d日").to_string()),
        }
    };
    let parts: Vec<Option<String>> = value.split(',').map(|v| each(v.trim())).collect();
    if parts.iter().any(Option::is_none) { format!("无法解析：{value}") } else { parts.into_iter().flatten().collect::<Vec<_>>().join("、") }
}

/// `GET /sys/kit`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    if state.config.env != Env::Development {
        return Err(AppError::NotFound);
    }
    kit(&state, &visitor, query.as_deref(), "/sys/kit")
}

/// `GET /actives/kaifa/test`: the kit, in staging too.
pub async fn dev_kit(State(state): State<AppState>, visitor: Visitor, RawQuery(query): RawQuery) -> Result<Response, AppError> {
    if state.config.env == Env::Production {
        return Err(AppError::NotFound);
    }
    kit(&state, &visitor, query.as_deref(), "/actives/kaifa/test")
}

/// The kit page at `path` (its forms come back there).
fn kit(state: &AppState, visitor: &Visitor, query: Option<&str>, path: &'static str) -> Result<Response, AppError> {
    let state = state.clone();
    let visitor = visitor.clone();
    let q: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or("").as_bytes()).into_owned().collect();
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.chars().take(1_000).collect::<String>()).unwrap_or_default();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "组件库").canonical_path(&state, path);
    page.private();
    let now = state.clock.now();
    let mut dates = Vec::new();
    for (name, end_name, mode, label) in DATE_FIELDS {
        let (value, end_value) = (get(name), if end_name.is_empty() { String::new() } else { get(end_name) });
        let props = DatePickerProps {
            name: (*name).to_owned(),
            end_name: (!end_name.is_empty()).then(|| (*end_name).to_owned()),
            mode,
            label: (*label).to_owned(),
            value: value.clone(),
            end_value: (!end_name.is_empty()).then(|| end_value.clone()),
            max: (*name == "day").then(|| domain::time::date(now + 30 * 86_400)),
            min: (*name == "day").then(|| domain::time::date(now)),
            max_range: if *mode == "range" { 7 } else { 0 },
            id: format!("kit-{name}"),
            ..DatePickerProps::default()
        };
        let parsed = [parse_value(mode, &value), parse_value(mode, &end_value)].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" 至 ");
        dates.push(DateField { name, end_name, label, value, end_value, island: page.island(&state, "DatePicker", &props), parsed });
    }
    let city = get("city");
    let city_name = domain::region::city_by_slug(&city).map_or("不限".to_owned(), |c| c.name.to_owned());
    let region = page.island(
        &state,
        "RegionPicker",
        &RegionPickerProps {
            current_name: city_name,
            regions_url: "/api/regions",
            hot: crate::render::islands::hot_cities(),
            name: Some("city".into()),
            value: city.clone(),
            any_label: "不限",
            ..RegionPickerProps::default()
        },
    );
    let note = get("note");
    let text = page.island(
        &state,
        "TextInput",
        &TextInputProps {
            id: "kit-note".into(),
            name: "note".into(),
            value: note.clone(),
            max_length: 20,
            multiline: true,
            clearable: true,
            ..TextInputProps::default()
        },
    );
    let link = crate::render::meta::absolute(&state, path);
    let share = page.island(
        &state,
        "Share",
        &ShareProps {
            payload: SharePayload {
                s_title: "二手车网组件库".into(), s_desc: "分享组件演示".into(), s_imgurl: page.og_image.clone(), s_link: link
            },
            sharer: visitor.user.as_ref().map(|u| u.user_id),
            in_wechat: visitor.device.wechat,
            jssdk_url: state.config.wx.jssdk_url.clone(),
            sign_url: "/api/buycar-api/tool/wechat/sign",
        },
    );
    // The photos are the list `kit.html` renders, as on a car's page.
    let gallery = page.island(&state, "Gallery", &GalleryProps { title: "演示车辆".into(), autoplay: true });
    let login = page.island(
        &state,
        "Login",
        &LoginProps {
            return_to: "/sys/kit".into(),
            wx_href: "/sys/WQlogin?return=%2Fsys%2Fkit".into(),
            qq_href: "/sys/QQlogin?return=%2Fsys%2Fkit".into(),
            ..LoginProps::default()
        },
    );
    let uploader = page.island(
        &state,
        "PhotoUploader",
        &PhotoUploaderProps {
            name: "photos".into(),
            upload_url: "/sys/kit/upload".into(),
            field: "photo",
            max: 30,
            min: 3,
            label: "车辆照片".into(),
            existing: Vec::new(),
        },
    );
    let confirm = page.island(&state, "ConfirmForms", &ConfirmFormsProps::default());
    let tpl = KitPage { page, path, dates, region, city, text, note, share, gallery, login, uploader, confirm, confirmed: !get("confirmed").is_empty() };
    Ok(Html(tpl.render()?).into_response())
}

/// `POST /sys/kit/upload`: accepts one photo of at most 10 MB and answers with an id (the kit's
/// uploader, in development and staging).
pub async fn upload(State(state): State<AppState>, body: Bytes) -> Response {
    if state.config.env == Env::Production {
        return AppError::NotFound.into_response();
    }
    if body.is_empty() {
        return crate::http::envelope::fail(StatusCode::UNPROCESSABLE_ENTITY, crate::http::envelope::ApiCode::BadInput, "照片是空的，请重新选择");
    }
    match crate::random::hex_id() {
        Ok(id) => crate::http::envelope::ok(serde_json::json!({ "id": format!("kit-{}", &id[..10]), "bytes": body.len() })),
        Err(e) => AppError::from(e).into_response(),
    }
}

/// A row of a developer page: what, and its value.
type Rows = Vec<(&'static str, String)>;

/// `ab12…` of a value no one should read whole here.
fn masked(value: &str) -> String {
    match value.chars().count() {
        0 => "（无）".to_owned(),
        n if n <= 6 => "***".to_owned(),
        _ => format!("{}…（{}位）", value.chars().take(4).collect::<String>(), value.chars().count()),
    }
}

fn set(secret: &crate::config::Secret) -> String {
    if secret.expose().is_empty() { "未配置".to_owned() } else { "已配置".to_owned() }
}

#[derive(Template)]
#[template(path = "kit/dev.html")]
struct DevPage {
    page: PageMeta,
    /// `overview`, `request` or `islands`.
    section: &'static str,
    groups: Vec<(&'static str, Rows)>,
    /// The request's headers (`request`): name and shown value.
    headers: Vec<(String, String)>,
    islands: Vec<(String, String, usize)>,
}

fn dev_page(
    state: &AppState,
    visitor: &Visitor,
    section: &'static str,
    title: &str,
    path: &str,
    groups: Vec<(&'static str, Rows)>,
    headers: Vec<(String, String)>,
) -> Result<Response, AppError> {
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, title).canonical_path(state, path);
    page.private();
    let islands = if section == "islands" {
        state
            .assets
            .island_names()
            .map(str::to_owned)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|name| {
                let url = state.assets.island_url(&name).unwrap_or_default();
                let size = url.strip_prefix(&format!("{}/", state.config.site.static_path)).and_then(|p| state.assets.get(p)).map_or(0, |a| a.raw.len());
                (name, url, size)
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Html(DevPage { page, section, groups, headers, islands }.render()?).into_response())
}

/// What the overview says: environment, device, session, adapters.
fn overview(state: &AppState, visitor: &Visitor, headers: &axum::http::HeaderMap) -> Vec<(&'static str, Rows)> {
    use crate::config::{AdsAdapter, CallsAdapter, InsuranceAdapter, OauthAdapter, PayAdapter, ReportAdapter, SmsAdapter, Storage};
    let c = &state.config;
    let ua = headers.get(axum::http::header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("");
    let env = vec![
        ("环境", c.env.to_string()),
        ("数据库", format!("{:?}", state.store.backend())),
        ("站点地址", c.site.url.clone()),
        ("静态资源前缀", c.site.static_path.clone()),
        ("版本", env!("CARGO_PKG_VERSION").to_owned()),
        ("secret", set(&c.secret)),
        ("app.token_secret", set(&c.app.token_secret)),
    ];
    let d = visitor.device;
    let device = vec![
        ("设备类型", if d.class == domain::device::DeviceClass::Mobile { "手机版（mobile）" } else { "电脑版（pc）" }.to_owned()),
        (
            "判断依据",
            match domain::device::mobile_token(ua) {
                Some(t) => format!("User-Agent 含“{t}”"),
                None => "User-Agent 没有手机或平板的标识".to_owned(),
            },
        ),
        ("微信内置浏览器", if d.wechat { "是（MicroMessenger）" } else { "否" }.to_owned()),
        ("抖音内置浏览器", if d.douyin { "是" } else { "否" }.to_owned()),
        ("User-Agent", ua.chars().take(300).collect()),
    ];
    let mut session = vec![
        ("设备编号 hx_did", masked(visitor.device_id.as_deref().unwrap_or(""))),
        ("老访客", if visitor.returning { "是" } else { "否（首次访问或未带设备Cookie）" }.to_owned()),
        ("城市", visitor.city_slug.clone().unwrap_or_else(|| "未选择".to_owned())),
        ("客户端地址", visitor.ip.clone()),
    ];
    match &visitor.user {
        Some(u) => {
            session.push(("登录", format!("已登录，用户编号 {}", u.user_id)));
            session.push(("手机号", u.mobile.as_deref().map_or("（未绑定）".to_owned(), domain::validate::mask_mobile)));
            let role = match u.role {
                domain::auth::Role::Buyer => "买家/个人卖家",
                domain::auth::Role::Dealer => "车商",
                domain::auth::Role::Staff => "工作人员",
            };
            session.push(("角色", role.to_owned()));
        }
        None => session.push(("登录", "未登录".to_owned())),
    }
    session.push((
        "来源",
        visitor.attribution.as_ref().map_or("自然流量".to_owned(), |a| {
            let click = a.platform.map_or(String::new(), |p| format!("，{} 点击 {}", p.label(), masked(&a.click_id)));
            format!("plan={} unit={} keyword={} type={}{click}", a.plan, a.unit, a.keyword, a.kind)
        }),
    ));
    let sandbox = "演示（sandbox）";
    let adapters = vec![
        (
            "短信",
            match c.sms.adapter {
                SmsAdapter::Sandbox => sandbox.to_owned(),
                SmsAdapter::Aliyun => format!("阿里云短信，AccessKey {}", set(&c.sms.access_key_secret)),
            },
        ),
        (
            "微信/QQ登录",
            match c.oauth.adapter {
                OauthAdapter::Sandbox => sandbox.to_owned(),
                OauthAdapter::Real => format!("微信与QQ开放平台，微信密钥{}", set(&c.wx.app_secret)),
            },
        ),
        (
            "通话",
            match c.calls.adapter {
                CallsAdapter::Sandbox => sandbox.to_owned(),
                CallsAdapter::Aliyun => "阿里云号码隐私保护".to_owned(),
            },
        ),
        (
            "支付",
            match c.pay.adapter {
                PayAdapter::Sandbox => sandbox.to_owned(),
                PayAdapter::Real => format!("支付宝{}，微信支付{}", set(&c.alipay.private_key), if c.wxpay.mch_id.is_empty() { "未开通" } else { "已开通" }),
            },
        ),
        (
            "车况数据",
            match c.report.adapter {
                ReportAdapter::Sandbox => sandbox.to_owned(),
                ReportAdapter::Jumdata => format!("聚美智数，密钥{}", set(&c.report.app_secret)),
            },
        ),
        (
            "车险报价",
            match c.insurance.adapter {
                InsuranceAdapter::Sandbox => sandbox.to_owned(),
                InsuranceAdapter::Gateway => format!("报价网关 {}，密钥{}", c.insurance.endpoint, set(&c.insurance.app_secret)),
            },
        ),
        (
            "照片存储",
            match c.upload.storage {
                Storage::Local => format!("本地目录 {}", c.upload.dir),
                Storage::S3 => format!("对象存储 {}", c.s3.bucket),
            },
        ),
        (
            "广告转化回传",
            format!(
                "{}（{}）",
                match c.ads.adapter {
                    AdsAdapter::Sandbox => sandbox,
                    AdsAdapter::Real => "发送到各平台",
                },
                c.ads.platforms.iter().map(|p| p.label()).collect::<Vec<_>>().join("、")
            ),
        ),
    ];
    vec![("环境", env), ("设备", device), ("会话", session), ("外部服务", adapters)]
}

/// `GET /actives/kaifa`.
pub async fn dev_pages(State(state): State<AppState>, visitor: Visitor, headers: axum::http::HeaderMap) -> Result<Response, AppError> {
    if state.config.env == Env::Production {
        return Err(AppError::NotFound);
    }
    let groups = overview(&state, &visitor, &headers);
    dev_page(&state, &visitor, "overview", "开发者工具", "/actives/kaifa", groups, Vec::new())
}

/// `GET /actives/kaifa/kaifa`: the request as the server saw it; cookie values masked.
pub async fn dev_request(
    State(state): State<AppState>,
    visitor: Visitor,
    uri: axum::extract::OriginalUri,
    headers: axum::http::HeaderMap,
) -> Result<Response, AppError> {
    if state.config.env == Env::Production {
        return Err(AppError::NotFound);
    }
    let mut request: Rows = vec![("地址", uri.to_string().chars().take(500).collect()), ("客户端地址", visitor.ip.clone())];
    let mut shown_headers = Vec::new();
    let mut names: Vec<&str> = headers.keys().map(axum::http::HeaderName::as_str).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        for v in headers.get_all(name) {
            let text = v.to_str().unwrap_or("（非文本）");
            let shown = if name == "cookie" {
                text.split(';')
                    .map(|c| c.trim().split_once('=').map_or(c.trim().to_owned(), |(k, v)| format!("{k}={}", masked(v))))
                    .collect::<Vec<_>>()
                    .join("; ")
            } else if name == "authorization" || name == "token" {
                masked(text)
            } else {
                text.chars().take(300).collect()
            };
            shown_headers.push((name.to_owned(), shown));
        }
    }
    let proxies = if state.config.proxy.trusted.is_empty() {
        "不信任任何代理：连接的对端就是访客".to_owned()
    } else {
        format!("信任 {} 个代理网段的 X-Forwarded-For", state.config.proxy.trusted.len())
    };
    request.push(("代理", proxies));
    dev_page(&state, &visitor, "request", "请求详情", "/actives/kaifa/kaifa", vec![("这次请求", request)], shown_headers)
}

/// `GET /actives/testvue/test`: the built islands.
pub async fn testvue(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    if state.config.env == Env::Production {
        return Err(AppError::NotFound);
    }
    dev_page(&state, &visitor, "islands", "组件检查", "/actives/testvue/test", Vec::new(), Vec::new())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/kaifa", dev_pages);
    r.get(Access::Public, "/actives/kaifa/kaifa", dev_request);
    r.get(Access::Public, "/actives/kaifa/test", dev_kit);
    r.get(Access::Public, "/actives/testvue/test", testvue);
    r.get(Access::Public, "/sys/kit", page);
    r.post(Access::Public, "/sys/kit/upload", upload);
    r.limit("/sys/kit/upload", 10 * 1024 * 1024);
}
