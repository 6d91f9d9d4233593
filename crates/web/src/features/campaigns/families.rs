//! The campaign flow families: which ad landings belong together, their layout and the
//! agreements their lead forms accept.

/// A campaign flow family: ad landings in the flow layout (`/actives/flow`, `/actives/douyinflow`,
/// `/actives/newFlow`), each with a landing, a valuation, a list and car pages that stay inside
/// it, and the agreements its lead forms accept.
#[derive(Debug)]
pub struct Flow {
    /// The specification's path segment.
    pub slug: &'static str,
    /// `/actives/{slug}`: the landing.
    pub base: &'static str,
    /// Its car list (`buycarlist`).
    pub list: &'static str,
    /// A car inside it (`details/{id}`).
    pub details: &'static str,
    /// The landing's heading.
    pub title: &'static str,
    /// The landing's line under the heading.
    pub pitch: &'static str,
    /// Short-video traffic (`douyinflow`): the visit is marked as from the short-video app.
    pub douyin: bool,
    /// The bar's links inside the flow.
    pub links: &'static [(&'static str, &'static str)],
    /// The agreements its forms accept: title and the flow's own page of it.
    pub agreements: &'static [(&'static str, &'static str)],
    /// Their slugs in `domain::legal`, as the lead stores them.
    pub docs: &'static [&'static str],
    /// Where its valuation form goes (GET).
    pub assess: &'static str,
    /// The landing opens on the valuation (its headline promises 卖车先估价); otherwise on the
    /// buyer's request.
    pub valuation_first: bool,
}

macro_rules! flow {
    ($slug:literal, $title:literal, $pitch:literal, $douyin:literal, $valuation_first:literal, [$($doc:ident: $dtitle:literal $dpath:literal),+]) => {
        Flow {
            slug: $slug,
            base: concat!("/actives/", $slug),
            list: concat!("/actives/", $slug, "/buycarlist"),
            details: concat!("/actives/", $slug, "/details/{id}"),
            title: $title,
            pitch: $pitch,
            douyin: $douyin,
            links: &[("买车", concat!("/actives/", $slug, "/buycarlist")), ("免费估价", concat!("/actives/", $slug, "/assess"))],
            agreements: &[$(($dtitle, concat!("/actives/", $slug, $dpath))),+],
            docs: &[$(domain::legal::$doc),+],
            assess: concat!("/actives/", $slug, "/asresult"),
            valuation_first: $valuation_first,
        }
    };
}

/// The flow the business buys most traffic for (`/actives/flow`); live sessions open in its layout.
pub const FLOW: Flow = flow!("flow", "低价好车 顾问帮你挑", "说出预算和城市，购车顾问30分钟内联系您，按条件挑车、约看车，服务免费。", false, false,
        [FLOW_DOC: "个人信息授权书" "/agreement", FLOW_SERVICE_DOC: "车源推荐服务协议" "/agreementhx"]);

/// The short-video app's flow (`/actives/douyinflow`).
pub const DOUYIN_FLOW: Flow = flow!("douyinflow", "抖音用户专享 好车低价看", "刷到心动的车？留下手机号，顾问帮您问底价、约看车，服务免费。", true, false,
        [FLOW_DOC: "个人信息授权书" "/agreement", FLOW_SERVICE_DOC: "车源推荐服务协议" "/agreementhx"]);

/// The flow that values first and finds cars on request (`/actives/newFlow`).
pub const NEW_FLOW: Flow = flow!("newFlow", "卖车先估价 买车有顾问", "30秒估出您的车值多少钱；想买车，告诉我们预算，顾问帮您找。", false, true,
        [FLOW_DOC: "个人信息授权书" "/agreement"]);

/// The three flow families, in the specification's order.
pub const FLOWS: [Flow; 3] = [FLOW, DOUYIN_FLOW, NEW_FLOW];

/// The flow family a request path belongs to (`/actives/{slug}` or below it).
pub fn flow_of(path: &str) -> Option<&'static Flow> {
    let rest = path.strip_prefix("/actives/")?;
    let slug = rest.split('/').next()?;
    FLOWS.iter().find(|f| f.slug == slug)
}

/// The desktop flow (`/actives/pcflow`, `/assess`, `/sell`): the landing with the valuation and
/// the sell form; its cars open on the site's own pages.
pub const PC_FLOW: Flow = Flow {
    slug: "pcflow",
    base: "/actives/pcflow",
    list: "/carlist",
    details: "/details/{id}",
    title: "卖车先估价 买车有顾问",
    pitch: "免费估价不留手机号；卖车由顾问上门检测、推荐给认证车商；买车告诉我们预算，顾问帮您挑。",
    douyin: false,
    links: &[("免费估价", "/actives/pcflow/assess"), ("我要卖车", "/actives/pcflow/sell")],
    agreements: &[("个人信息授权书", "/actives/help/flowagree")],
    docs: &[domain::legal::FLOW_DOC],
    assess: "/actives/pcflow/assess",
    valuation_first: true,
};

impl Flow {
    /// The page of car `id` inside the flow.
    pub fn car_href(&self, id: i64) -> String {
        self.details.replace("{id}", &id.to_string())
    }

    /// Whether the visit is from the short-video app: this is its flow, its browser is the
    /// app's, or its landing said so (`type=douyin`, kept for the visit).
    pub fn douyin_visit(&self, visitor: &crate::http::visitor::Visitor) -> bool {
        self.douyin || visitor.device.douyin || visitor.attribution.as_ref().is_some_and(|a| a.kind == "douyin")
    }

    /// The chrome of one of its pages; `lead_href` is where the sticky bar goes.
    pub fn chrome(&self, visitor: &crate::http::visitor::Visitor, lead_href: String) -> crate::render::meta::FlowChrome {
        let douyin = self.douyin_visit(visitor);
        crate::render::meta::FlowChrome {
            home: self.base,
            links: self.links,
            agreements: self.agreements,
            lead_href,
            lead_text: if douyin { "免费问底价 · 顾问1对1" } else { "免费咨询 · 留下手机号" },
            douyin,
        }
    }

    /// What a lead from its forms stores as accepted (`slug@version,…`).
    pub fn accepted(&self) -> String {
        domain::legal::versions(self.docs)
    }
}
