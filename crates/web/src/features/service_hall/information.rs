//! `/servicehall/information`: the guides to the service hall, one section per service (what it
//! does, what it costs, the rules people ask about), each ending in a link to the service. Prices
//! and rules are read from the domain, so the guide cannot drift from what the pages charge.
//! `/servicehall/list` is the hall's index by its other name: a 301 to `/servicehall`.

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::report::Product;

use crate::http::error::AppError;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// One service's guide.
struct Guide {
    /// Anchor.
    id: &'static str,
    title: &'static str,
    points: Vec<String>,
    /// The service, and its link text.
    href: &'static str,
    go: &'static str,
}

fn yuan(fen: i64) -> String {
    domain::order::yuan_text(fen).trim_end_matches(".00").to_owned()
}

fn guides() -> Vec<Guide> {
    let history: Vec<String> = [Product::Full, Product::Maintenance, Product::Claims, Product::Status, Product::Mileage, Product::FourS]
        .iter()
        .map(|p| format!("{}{}元：{}", p.label(), yuan(p.price_fen()), p.pitch()))
        .collect();
    let vip: Vec<String> = domain::vip::on_sale()
        .filter(|p| p.free_reports_per_month > 0)
        .map(|p| format!("{}（{}元/{}天）每月免费查{}次", p.name, yuan(p.price_fen), p.days, p.free_reports_per_month))
        .collect();
    let packages: Vec<String> = domain::service::PACKAGES.iter().map(|p| format!("{}：{}，{}", p.name, p.price, p.fits)).collect();
    let groups: Vec<String> = domain::inspection::GROUPS.iter().map(|(name, n)| format!("{name}{n}项")).collect();
    vec![
        Guide {
            id: "pinggu",
            title: "免费估价",
            points: vec![
                "填写车系、首次上牌时间、表显里程和城市即可估价，不需要留手机号。".to_owned(),
                "同车系在售车源足够时，按它们的价格、车龄和里程拟合折旧曲线；车源太少时按新车指导价和车型折旧模型估算，并注明“仅供参考”。".to_owned(),
                "结果给出车商收购价、个人交易价和车商零售价三个价格和各自的区间；估价报告里有同款在售车和折旧曲线。".to_owned(),
                "估价结果的网址可以直接分享；想卖车时可以在结果页把车交给一家合作车商上门看车。".to_owned(),
            ],
            href: "/servicehall/pinggu",
            go: "去估价",
        },
        Guide {
            id: "report",
            title: "车况报告（按车架号查询）",
            points: [
                vec!["输入17位车架号(VIN)查询；车架号在行驶证上，或前挡风玻璃左下角。".to_owned()],
                history,
                vip,
                vec![
                    format!("同一辆车的同一份报告{}天内可反复查看，不重复收费；查询失败自动退款，免费次数也会退回。", domain::report::REUSE_DAYS),
                    "报告只反映数据服务商登记的记录，未登记的维修和事故无法体现，购车前请结合实车检测。".to_owned(),
                    "在车辆详情页点“查这辆车”可以直接查卖家登记的车，车架号不会显示给买家。".to_owned(),
                ],
            ]
            .concat(),
            href: "/servicehall/fourquery",
            go: "查车况",
        },
        Guide {
            id: "battery",
            title: "新能源电池报告",
            points: vec![
                format!("适用于纯电动和插电混动车，{}元一次。", yuan(Product::Battery.price_fen())),
                "报告给出电池健康度(SOH)、可用容量、循环次数、电芯一致性、快充占比、检测方法和日期。".to_owned(),
                "查询前需阅读并同意《电池检测数据查询授权协议》；车载BMS数据由车辆自报，不同品牌算法不同。".to_owned(),
                "健康度90%以上为优秀，80%以上良好，70%以上一般，以下为较差（多数品牌的电池质保以70%为界）。".to_owned(),
            ],
            href: "/servicehall/batteryreport",
            go: "查电池",
        },
        Guide {
            id: "check",
            title: "168项检测报告",
            points: vec![
                format!("精品车源都经过二手车网检测师的{}项检测：{}。", domain::inspection::items(), groups.join("、")),
                "A级最多一处轻微外观或内饰瑕疵；B级几处瑕疵或一处建议处理的项目；C级车不作为精品车出售。".to_owned(),
                "用车源编号（详情页地址中的数字）或报告编号（JC开头）查询完整报告；检测反映检测当日的车况，看车时请对照报告核实。".to_owned(),
            ],
            href: "/servicehall/checkreport",
            go: "查检测报告",
        },
        Guide {
            id: "fenqi",
            title: "分期",
            points: vec![
                "分期计算器按车价、首付比例、12到60期和年利率算出月供、总利息和每月还款计划，等额本息和等额本金可以对比。".to_owned(),
                "按这个方案申请分期：车商的车由卖车的车商联系，其他由二手车网金融顾问为您对比合作机构的实际利率。".to_owned(),
                "首付比例、利率和期限以贷款机构审批为准；比较方案时看综合年化利率，留意手续费、GPS费等额外费用。".to_owned(),
            ],
            href: "/servicehall/fenqi/fenqi",
            go: "算月供",
        },
        Guide {
            id: "insurance",
            title: "车险",
            points: vec![
                "车险报价按车型、城市、上牌时间和近年出险情况，同时给出多家保险公司的报价，交强险、车船税、车损险、三者险和座位险每一项都写明金额，看报价不用留手机号。".to_owned(),
                format!(
                    "交强险是国家强制保险：6座以下家庭自用车基础保费{}元，6座及以上{}元，再按所在省份的浮动方案和近年有责事故情况浮动；车船税按排量分档，新能源乘用车免征。",
                    domain::loan::short_yuan(domain::insurance::COMPULSORY_UNDER_6_SEATS_YUAN * 100),
                    domain::loan::short_yuan(domain::insurance::COMPULSORY_6_SEATS_AND_OVER_YUAN * 100)
                ),
                "二手车过户后商业险的无赔款优待从1.0重新开始；选好一家报价点“投保”，只有这家保险公司会收到您的手机号。".to_owned(),
            ],
            href: "/servicehall/insurance",
            go: "查车险报价",
        },
        Guide {
            id: "sell",
            title: "卖车服务",
            points: [packages, vec!["个人发布免费，审核通过后上架；填写车架号的车源会在详情页展示维保、出险、车辆状态和里程的摘要。".to_owned()]].concat(),
            href: "/actives/service/sellcarPlan",
            go: "看卖车方案",
        },
        Guide {
            id: "dealer",
            title: "车商服务",
            points: vec![
                "认证商家有自己的店铺页、线索管理和推送；线索包按城市、品牌和价格购买个人车主的卖车需求，每条只给一家车商。".to_owned(),
                "车商批发：在“我的车源”给在售车填写批发价，其他认证车商在批发频道能看到；批发价不对普通用户显示。".to_owned(),
                "商家同城VIP和商家全国VIP在综合排序第1页前3位推广展示，标注“推广”。".to_owned(),
            ],
            href: "/servicehall/wholesale",
            go: "进入批发频道",
        },
    ]
}

#[derive(Template)]
#[template(path = "information/information.html")]
struct InformationPage {
    page: PageMeta,
    guides: Vec<Guide>,
}

/// `GET /servicehall/information`.
pub async fn information(State(state): State<AppState>, visitor: Visitor) -> Result<Response, AppError> {
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "服务指南")
        .describe("二手车网服务指南：免费估价、车况报告、电池报告、168项检测、分期、卖车服务和车商服务怎么用、多少钱。")
        .canonical_path(&state, "/servicehall/information");
    Ok(Html(InformationPage { page, guides: guides() }.render()?).into_response())
}

/// `GET /servicehall/list`: the hall's index under its other name.
pub async fn list() -> Response {
    (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/servicehall")]).into_response()
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/information", information);
    r.get(Access::Public, "/servicehall/list", list);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_quotes_what_the_pages_charge() {
        let text: String = guides().iter().flat_map(|g| g.points.clone()).collect();
        assert!(text.contains("车况四项全查69元") && text.contains("维保记录39元"), "{text}");
        assert!(text.contains("买车VIP月卡（19元/30天）每月免费查2次"), "{text}");
        assert!(text.contains("49元一次"), "{text}");
        assert!(text.contains("168项检测"));
    }
}
