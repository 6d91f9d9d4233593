//! The selling service and the lead-collection pages, each ending in a lead form:
//! `/actives/service/{personalCar, sellcarPlan, sellcarService}` (what we do for a private seller,
//! the packages with their fee, the steps and timeline) and the campaign pages
//! `/actives/collect/{sellcar, buycar, selectcar}` (with the site's header and footer, so a
//! visitor who came from an ad can go on browsing; how the visit arrived — `plan`, `unit`,
//! `keyword`, `wx_aid`, `type`, the ad's click — goes into the lead from the visit). `selectcar` is a help-me-choose questionnaire:
//! its answers pick the series with cars on sale in the budget, linked into `/carlist`.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;

use crate::http::extract::Form;
use crate::http::extract::{Path, Query};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use domain::money::wan;
use domain::service::{Answers, BODIES, PACKAGES, Package};
use serde::Deserialize;
use store::{NewLead, SeriesOffer};
use validator::Validate;

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// Everything the pages' forms and links carry. The phone is checked where every lead is made
/// (`leads::lead_from`); the rules that depend on the page stay in [`submit`].
#[derive(Debug, Clone, Default, Deserialize, Validate)]
pub struct LeadPost {
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    car: String,
    #[serde(default)]
    package: String,
    #[serde(default)]
    budget: String,
    /// Expected price in 万 (the fee estimate of `sellcarPlan`).
    #[serde(default)]
    #[validate(custom(function = "crate::http::validation::optional_wan", message = "期望价请填写5000万以内的数字，单位万元，例如 8.5"))]
    expect: String,
    #[serde(default)]
    price: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    energy: String,
    #[serde(default)]
    gearbox: String,
    /// Set by the questionnaire's button: the answers were sent (even without a budget).
    #[serde(default)]
    ask: String,
}

impl LeadPost {
    /// The car text is kept short.
    fn tidy(mut self) -> LeadPost {
        self.car = self.car.trim().chars().take(50).collect();
        self
    }
}

/// A recommended series.
pub struct Offer {
    /// Brand and series.
    pub name: String,
    /// Cars on sale in the budget.
    pub cars: i64,
    /// From, in 万.
    pub low: String,
    /// `/carlist?…` for the series and answers.
    pub href: String,
}

#[derive(Template)]
#[template(path = "service/service.html")]
struct ServicePage {
    page: PageMeta,
    def: &'static Def,
    form: LeadPost,
    errors: FieldErrors,
    form_error: Option<String>,
    provinces: crate::render::choices::ProvinceCities,
    packages: &'static [Package],
    fee: Option<String>,
    budgets: &'static [domain::filter::FilterOption],
    bodies: &'static [(domain::catalog::BodyClass, &'static str)],
    answered: bool,
    answers_error: Option<&'static str>,
    offers: Vec<Offer>,
    all_href: String,
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    def: &'static Def,
    mut form: LeadPost,
    errors: FieldErrors,
    form_error: Option<String>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let path = format!("/actives/{}/{}", def.section, def.slug);
    let mut page = PageMeta::for_visitor(state, visitor, def.layout, def.title).canonical_path(state, &path).describe(def.description);
    if def.is_campaign() {
        // Campaign landing pages are for ads, not search results.
        page.noindex();
    }
    if form.city.is_empty() {
        form.city = visitor.city_slug.clone().unwrap_or_default();
    }
    // The fee estimate of 省心卖 for the price the visitor typed (a GET form, no script needed).
    let fee = (def.slug == "sellcarPlan")
        .then(|| domain::selling::parse_price_wan(&form.expect))
        .flatten()
        .map(|y| format!("预计成交价{}万元，省心卖服务费约{}元", wan(y), domain::service::concierge_fee(y)));
    let (mut answered, mut answers_error, mut offers, mut all_href) = (false, None, Vec::new(), String::new());
    if def.slug == "selectcar" && (!form.price.is_empty() || !form.ask.is_empty()) {
        match Answers::parse(&form.price, &form.body, &form.energy, &form.gearbox) {
            Ok(a) => {
                answered = true;
                let (min, max) = a.price_range();
                let body = a.body.map_or("", domain::catalog::BodyClass::as_str);
                let found: Vec<SeriesOffer> = state.store.series_offers(min, max, body, a.energy.fuel_codes(), a.gearbox, 6).await?;
                offers = found
                    .into_iter()
                    .map(|o| Offer {
                        name: format!("{} {}", o.brand, o.name),
                        cars: o.cars,
                        low: wan(o.low_yuan),
                        href: format!("/carlist?{}", a.carlist_query(Some(&o.slug))),
                    })
                    .collect();
                all_href = format!("/carlist?{}", a.carlist_query(None));
            }
            Err(e) => answers_error = Some(e),
        }
    }
    let tpl = ServicePage {
        page,
        def,
        form,
        errors,
        form_error,
        provinces: crate::render::choices::province_cities(),
        packages: &PACKAGES,
        fee,
        budgets: &domain::filter::PRICE_OPTIONS[1..],
        bodies: &BODIES,
        answered,
        answers_error,
        offers,
        all_href,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

fn lookup(section: &str, slug: &str) -> Result<&'static Def, AppError> {
    def(section, slug).ok_or(AppError::NotFound)
}

/// `GET /actives/service/{slug}`.
pub async fn service_page(State(state): State<AppState>, visitor: Visitor, Path(slug): Path<String>, Query(q): Query<LeadPost>) -> Result<Response, AppError> {
    render(&state, &visitor, lookup("service", &slug)?, q.tidy(), FieldErrors::new(), None, StatusCode::OK).await
}

/// `GET /actives/collect/{slug}`.
pub async fn collect_page(State(state): State<AppState>, visitor: Visitor, Path(slug): Path<String>, Query(q): Query<LeadPost>) -> Result<Response, AppError> {
    render(&state, &visitor, lookup("collect", &slug)?, q.tidy(), FieldErrors::new(), None, StatusCode::OK).await
}

/// `POST /actives/service/{slug}`.
pub async fn service_lead(State(state): State<AppState>, visitor: Visitor, Path(slug): Path<String>, Form(post): Form<LeadPost>) -> Result<Response, AppError> {
    submit(&state, &visitor, lookup("service", &slug)?, post.tidy()).await
}

/// `POST /actives/collect/{slug}`.
pub async fn collect_lead(State(state): State<AppState>, visitor: Visitor, Path(slug): Path<String>, Form(post): Form<LeadPost>) -> Result<Response, AppError> {
    submit(&state, &visitor, lookup("collect", &slug)?, post.tidy()).await
}

/// Checks the form and stores the lead; errors come back beside their fields with the form kept.
async fn submit(state: &AppState, visitor: &Visitor, def: &'static Def, form: LeadPost) -> Result<Response, AppError> {
    let mut errors = crate::http::validation::field_errors(&form);
    let source = format!("/actives/{}/{}", def.section, def.slug);
    let lead = crate::services::leads::lead_from(visitor, &form.mobile, def.intent, source).map_err(|message| errors.insert("mobile", message.to_owned())).ok();
    let city = domain::region::city_by_slug(form.city.trim());
    if city.is_none() {
        errors.insert("city", if def.intent == Intent::Sell { "请选择车辆所在城市" } else { "请选择您所在的城市" }.to_owned());
    }
    let mut note = Vec::new();
    if def.slug == "sellcarPlan" {
        match domain::service::package(&form.package) {
            Some(p) if p.slug != "self" => note.push(format!("方案：{}", p.name)),
            _ => {
                errors.insert("package", "请选择省心卖或快速收购（自助发布请点“自己发布”）".to_owned());
            }
        }
    }
    if !errors.contains_key("expect")
        && let Some(y) = domain::selling::parse_price_wan(&form.expect)
    {
        note.push(format!("期望价{}万", wan(y)));
    }
    if def.slug == "buycar" {
        if let Some(o) = domain::filter::PRICE_OPTIONS.iter().find(|o| !o.value.is_empty() && o.value == form.budget) {
            note.push(format!("预算{}", o.label));
        } else {
            errors.insert("budget", "请选择预算".to_owned());
        }
    }
    if def.slug == "selectcar" {
        match Answers::parse(&form.price, &form.body, &form.energy, &form.gearbox) {
            Ok(a) => note.push(a.summary()),
            Err(e) => {
                errors.insert("price", e.to_owned());
            }
        }
    }
    let (Some(lead), Some(city), true) = (lead, city, errors.is_empty()) else {
        return render(state, visitor, def, form, errors, None, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let lead = NewLead { city_code: Some(city.code as i32), name: form.car.clone(), note: note.join("；"), ..lead };
    let request = if def.intent == Intent::Sell {
        crate::services::leads::Request::Sell(&form.car, domain::selling::parse_price_wan(&form.expect))
    } else {
        crate::services::leads::Request::Lead
    };
    if crate::services::leads::submit(state, &lead, request).await? {
        Ok(see_other(&format!("/actives/gratitude?from={}", def.intent.as_str()), Vec::new()))
    } else {
        render(state, visitor, def, form, errors, Some(crate::services::leads::RATE_LIMITED.to_owned()), StatusCode::TOO_MANY_REQUESTS).await
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall", hall);
    r.get(Access::Public, "/actives/service/{slug}", service_page);
    r.post(Access::Public, "/actives/service/{slug}", service_lead);
    r.get(Access::Public, "/actives/collect/{slug}", collect_page);
    r.post(Access::Public, "/actives/collect/{slug}", collect_lead);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_route_of_the_family_has_a_page() {
        for (section, slug) in [
            ("service", "personalCar"),
            ("service", "sellcarPlan"),
            ("service", "sellcarService"),
            ("collect", "buycar"),
            ("collect", "selectcar"),
            ("collect", "sellcar"),
        ] {
            assert!(def(section, slug).is_some(), "{section}/{slug}");
        }
        assert!(def("service", "sellcar").is_none() && def("collect", "personalCar").is_none());
    }

    #[test]
    fn the_car_text_is_kept_short() {
        let post = LeadPost { car: format!("  {}", "车".repeat(80)), ..LeadPost::default() }.tidy();
        assert_eq!(post.car.chars().count(), 50);
    }
}

/// One entry of the service hall's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HallEntry {
    /// The tile's mark: one character.
    pub icon: &'static str,
    /// Link text.
    pub title: &'static str,
    /// One line on what it does.
    pub text: &'static str,
    /// Where it goes.
    pub href: &'static str,
    /// Only for signed-in visitors (a personal or dealer page): crawlers are not sent there.
    pub signed_in: bool,
}

/// `/servicehall`: every service the site offers today, grouped by who it is for.
pub const HALL: [(&str, &[HallEntry]); 3] = [
    (
        "买车",
        &[
            HallEntry {
                icon: "精",
                title: "精品车",
                text: "只看经过检测的车源，筛选与排序同买车列表。",
                href: "/servicehall/qualitycarlist",
                signed_in: false,
            },
            HallEntry {
                icon: "找",
                title: "帮我找车",
                text: "说出预算和想要的车，购车顾问按条件挑车、约看车。",
                href: "/actives/collect/buycar",
                signed_in: false,
            },
            HallEntry {
                icon: "选",
                title: "帮我选车",
                text: "回答四个问题，推荐预算内在售车最多的车系。",
                href: "/actives/collect/selectcar",
                signed_in: false,
            },
            HallEntry {
                icon: "比", title: "车辆对比", text: "最多三辆车的价格、车况与配置并排对比。", href: "/actives/threecar", signed_in: false
            },
            HallEntry {
                icon: "查",
                title: "车况查询",
                text: "输入车架号，查维保、出险、抵押查封和里程记录。",
                href: "/servicehall/fourquery",
                signed_in: false,
            },
            HallEntry {
                icon: "4S",
                title: "4S店维保+出险",
                text: "4S店保养维修明细与保险理赔记录合并查询。",
                href: "/servicehall/insurance4s",
                signed_in: false,
            },
            HallEntry {
                icon: "程",
                title: "里程时间线",
                text: "历次保养、年检的里程画成时间线，识别调表车。",
                href: "/servicehall/journeyReport",
                signed_in: false,
            },
            HallEntry {
                icon: "检",
                title: "检测报告",
                text: "精品车的168项检测报告，按车源编号或报告编号查询。",
                href: "/servicehall/checkreport",
                signed_in: false,
            },
            HallEntry {
                icon: "电",
                title: "新能源电池报告",
                text: "电池健康度、可用容量、循环次数与电芯一致性。",
                href: "/servicehall/batteryreport",
                signed_in: false,
            },
            HallEntry {
                icon: "分",
                title: "分期计算器",
                text: "车价、首付、期限和利率，算出月供和每月还款计划。",
                href: "/servicehall/fenqi/fenqi",
                signed_in: false,
            },
            HallEntry {
                icon: "险",
                title: "车险报价",
                text: "多家保险公司报价，交强险、车船税和商业险逐项列明，无需留手机号。",
                href: "/servicehall/insurance",
                signed_in: false,
            },
            HallEntry {
                icon: "求", title: "求购登记", text: "登记想要的车，有新车源上架时通知您。", href: "/space/carfindwa", signed_in: true
            },
        ],
    ),
    (
        "卖车",
        &[
            HallEntry {
                icon: "价",
                title: "免费估价",
                text: "车商收购价、个人交易价、车商零售价，无需留手机号。",
                href: "/servicehall/pinggu",
                signed_in: false,
            },
            HallEntry {
                icon: "发", title: "免费发布车源", text: "自己填写车况、上传照片，审核后上架。", href: "/personalsell", signed_in: false
            },
            HallEntry {
                icon: "卖",
                title: "个人卖车服务",
                text: "免费上门检测、估价定价、带看议价、代办过户。",
                href: "/actives/service/personalCar",
                signed_in: false,
            },
            HallEntry {
                icon: "案",
                title: "卖车方案",
                text: "自助发布、省心卖、快速收购三种方案与服务费。",
                href: "/actives/service/sellcarPlan",
                signed_in: false,
            },
            HallEntry {
                icon: "流",
                title: "卖车服务流程",
                text: "从提交信息到收款的每一步、时间和过户材料。",
                href: "/actives/service/sellcarService",
                signed_in: false,
            },
            HallEntry {
                icon: "征", title: "车源征集", text: "近7天买家在找的车和预算，有符合的车直接对接。", href: "/servicehall/gather", signed_in: false
            },
            HallEntry {
                icon: "约", title: "预约卖车顾问", text: "留下手机号，卖车顾问上门看车并报价。", href: "/actives/collect/sellcar", signed_in: false
            },
            HallEntry { icon: "V", title: "VIP会员", text: "卖车VIP每天多次擦亮、确认在售一次管60天。", href: "/vip", signed_in: false },
        ],
    ),
    (
        "商家",
        &[
            HallEntry { icon: "商", title: "认证商家", text: "按城市查看认证车商和他们的在售车源。", href: "/shop", signed_in: false },
            HallEntry {
                icon: "孵", title: "车商孵化计划", text: "申请入驻、缴费开店，送30天商家同城VIP。", href: "/actives/fh2021", signed_in: false
            },
            HallEntry {
                icon: "批",
                title: "车商批发",
                text: "车商之间调车，在售车挂出批发价，仅认证商家可见。",
                href: "/servicehall/wholesale",
                signed_in: false,
            },
            HallEntry {
                icon: "包", title: "线索包", text: "按城市、品牌、价格购买个人车主的卖车需求。", href: "/actives/superclue", signed_in: false
            },
            HallEntry {
                icon: "推", title: "商家VIP", text: "同城或全国综合排序推广位，店铺VIP标识。", href: "/vip/china", signed_in: false
            },
            HallEntry {
                icon: "线", title: "我的线索", text: "买家询价与来电，按处理进度管理（商家登录后）。", href: "/actives/zhikeclues", signed_in: true
            },
            HallEntry { icon: "送", title: "线索推送", text: "设置接收新线索的方式。", href: "/actives/pushLeads", signed_in: true },
            HallEntry { icon: "录", title: "通话录音", text: "回听与买家的通话录音。", href: "/servicehall/amrplay", signed_in: true },
            HallEntry { icon: "会", title: "会员服务", text: "会员权益与开通记录。", href: "/space/vip", signed_in: true },
        ],
    ),
];

#[derive(Template)]
#[template(path = "service/hall.html")]
struct HallPage {
    page: PageMeta,
    groups: &'static [(&'static str, &'static [HallEntry])],
}

/// `GET /servicehall`.
pub async fn hall(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "服务大厅_买车卖车服务")
        .describe("二手车网服务大厅：精品车、帮我找车、车辆对比、免费发布车源、卖车服务与方案、商家线索与通话录音。".to_owned())
        .canonical_path(&state, "/servicehall");
    Ok(Html(HallPage { page, groups: &HALL }.render()?).into_response())
}

/// One page of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Def {
    /// `service` or `collect`.
    pub section: &'static str,
    /// The last path segment, as the specification spells it.
    pub slug: &'static str,
    /// Title and heading.
    pub title: &'static str,
    /// Meta description.
    pub description: &'static str,
    /// The page's layout.
    pub layout: Layout,
    /// The lead's intent.
    pub intent: Intent,
    /// The submit button.
    pub submit: &'static str,
}

impl Def {
    /// A campaign landing page (`/actives/collect/*`): for ads, so kept out of search engines
    /// (noindex, not in the sitemap), though it carries the site's header and footer.
    pub fn is_campaign(&self) -> bool {
        self.section == "collect"
    }
}

/// Every page, in the specification's order.
pub const PAGES: [Def; 6] = [
    Def {
        section: "service",
        slug: "personalCar",
        title: "个人卖车服务",
        description: "个人车主卖车：免费上门检测、估价定价、全平台推荐、带看议价、代办过户，不成交不收费。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "预约卖车顾问",
    },
    Def {
        section: "service",
        slug: "sellcarPlan",
        title: "卖车方案",
        description: "三种卖车方案：自助发布免费、省心卖成交后收2%服务费、快速收购当天付款。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "选好了，联系我",
    },
    Def {
        section: "service",
        slug: "sellcarService",
        title: "卖车服务流程",
        description: "从提交信息到收款的每一步和所需时间，以及过户需要准备的材料。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "开始卖车",
    },
    Def {
        section: "collect",
        slug: "sellcar",
        title: "免费评估 高价卖车",
        description: "留下手机号，卖车顾问免费评估您的爱车并给出报价。",
        layout: Layout::Default,
        intent: Intent::Sell,
        submit: "免费评估",
    },
    Def {
        section: "collect",
        slug: "buycar",
        title: "帮我找车",
        description: "告诉我们预算和想要的车，购车顾问按您的条件挑车、约看车。",
        layout: Layout::Default,
        intent: Intent::Buy,
        submit: "帮我找车",
    },
    Def {
        section: "collect",
        slug: "selectcar",
        title: "帮我选车",
        description: "回答四个问题，为您推荐预算内在售车最多的车系。",
        layout: Layout::Default,
        intent: Intent::Buy,
        submit: "让顾问帮我挑",
    },
];

/// The page at `/actives/{section}/{slug}`.
pub fn def(section: &str, slug: &str) -> Option<&'static Def> {
    PAGES.iter().find(|d| d.section == section && d.slug == slug)
}
