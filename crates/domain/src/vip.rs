//! VIP plans and what each one gives, in numbers the code enforces and `/servicehall/vipequity`
//! shows; and how a purchase extends a membership.
//!
//! ```
//! let plan = domain::vip::plan("buyer-month").unwrap();
//! assert_eq!((plan.price_fen, plan.days, plan.free_reports_per_month), (1_900, 30, 2));
//! assert!(domain::vip::plan("gold").is_none());
//! ```

crate::stored_enum! {
    /// Who a plan is for.
    pub enum Audience {
        /// People buying a car.
        Buyer = "buyer" => "买车用户",
        /// Private sellers.
        Seller = "seller" => "个人卖家",
        /// Dealers.
        Dealer = "dealer" => "商家",
    }
}

/// Where a dealer plan puts the shop's cars first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// In the one city chosen when buying.
    City,
    /// Everywhere.
    Nationwide,
}

/// A plan: its price, length and benefits. A benefit a plan lacks is the free level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Stored code.
    pub code: &'static str,
    /// Name shown.
    pub name: &'static str,
    /// Who it is for.
    pub audience: Audience,
    /// Price in fen.
    pub price_fen: i64,
    /// Days one purchase adds.
    pub days: i64,
    /// History reports free each calendar month.
    pub free_reports_per_month: u32,
    /// Saved-search and price-drop alerts pushed at once instead of in the daily digest.
    pub instant_alerts: bool,
    /// 擦亮 allowed per listing per day.
    pub refreshes_per_day: u32,
    /// Days a 确认在售 keeps a listing online.
    pub confirm_days: i64,
    /// Dealer plans: cars in the promoted places of 综合 (labelled 推广) on these lists.
    pub reach: Option<Reach>,
    /// One line for the plan's card.
    pub pitch: &'static str,
    /// Sold on `/vip`. A plan whose benefits are not all in force is kept off sale, so a plan is
    /// never sold on a promise the site cannot keep yet.
    pub on_sale: bool,
}

/// What everyone has without a plan.
pub const FREE: Plan = Plan {
    code: "",
    name: "普通用户",
    audience: Audience::Buyer,
    price_fen: 0,
    days: 0,
    free_reports_per_month: 0,
    instant_alerts: false,
    // The free level is the selling rules': 擦亮 once per REFRESH_EVERY_SECS, confirmations
    // lasting CONFIRM_VALID_SECS.
    refreshes_per_day: (86_400 / crate::selling::REFRESH_EVERY_SECS) as u32,
    confirm_days: crate::selling::CONFIRM_VALID_SECS / 86_400,
    reach: None,
    pitch: "",
    on_sale: true,
};

/// Promoted places at the top of page 1 of 综合: the newest matching cars of shops whose dealer
/// plan applies to the list (a nationwide plan to every list, a city plan to its city's),
/// labelled 推广 (a paid place is always said to be one).
pub const PROMOTED_SLOTS: i64 = 3;

/// The plans on sale, in the order `/vip` shows them.
pub const PLANS: [Plan; 5] = [
    Plan {
        code: "buyer-month",
        name: "买车VIP月卡",
        audience: Audience::Buyer,
        price_fen: 1_900,
        days: 30,
        free_reports_per_month: 2,
        instant_alerts: true,
        pitch: "每月免费查2次车况报告，订阅的车降价立即提醒",
        ..FREE
    },
    Plan {
        code: "buyer-year",
        name: "买车VIP年卡",
        audience: Audience::Buyer,
        price_fen: 16_800,
        days: 365,
        free_reports_per_month: 5,
        instant_alerts: true,
        pitch: "每月免费查5次车况报告，适合长期看车、帮亲友选车",
        ..FREE
    },
    Plan {
        code: "seller-month",
        name: "卖车VIP月卡",
        audience: Audience::Seller,
        price_fen: 2_900,
        days: 30,
        refreshes_per_day: 3,
        confirm_days: 60,
        pitch: "每天擦亮3次，确认在售一次管60天",
        ..FREE
    },
    Plan {
        code: "dealer-city",
        name: "商家同城VIP",
        audience: Audience::Dealer,
        price_fen: 99_800,
        days: 90,
        reach: Some(Reach::City),
        pitch: "所选城市的综合排序第1页前3位推广展示（标注“推广”），店铺VIP标识",
        ..FREE
    },
    Plan {
        code: "dealer-china",
        name: "商家全国VIP",
        audience: Audience::Dealer,
        price_fen: 298_000,
        days: 365,
        reach: Some(Reach::Nationwide),
        pitch: "全国综合排序第1页前3位推广展示（标注“推广”），店铺VIP标识",
        ..FREE
    },
];

/// A campaign: one plan at a lower price until a deadline (`/actives/buyvip?c=…`). Its terms
/// are kept on the orders bought under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Campaign {
    /// Code in the URL and on the order.
    pub code: &'static str,
    /// Headline.
    pub title: &'static str,
    /// The plan it sells.
    pub plan: &'static str,
    /// Campaign price in fen (below the plan's).
    pub price_fen: i64,
    /// First second it sells (Unix time).
    pub starts_at: i64,
    /// Last second it sells: the deadline shown.
    pub ends_at: i64,
    /// Who it is for and why, in a sentence.
    pub pitch: &'static str,
}

/// The campaigns, past and running.
pub const CAMPAIGNS: [Campaign; 2] = [
    Campaign {
        code: "seller-winter",
        title: "冬季卖车季 · 卖车VIP月卡特惠",
        plan: "seller-month",
        price_fen: 1_990,
        // 2026-11-01 00:00 to 2026-12-31 23:59:59, China time.
        starts_at: 1_793_462_400,
        ends_at: 1_798_732_799,
        pitch: "年底换车高峰，每天擦亮3次、确认在售一次管60天，让更多买家先看到您的车。",
    },
    Campaign {
        code: "dealer-city-newyear",
        title: "新春开门红 · 商家同城VIP限时价",
        plan: "dealer-city",
        price_fen: 69_800,
        // 2027-01-15 00:00 to 2027-02-28 23:59:59, China time.
        starts_at: 1_799_942_400,
        ends_at: 1_803_830_399,
        pitch: "春节后看车高峰，所选城市综合排序第1页推广位展示您的车源，店铺显示VIP商家标识。",
    },
];

impl Campaign {
    /// Whether it sells at `now`.
    pub fn running(&self, now: i64) -> bool {
        (self.starts_at..=self.ends_at).contains(&now)
    }

    /// The plan it sells.
    pub fn plan(&self) -> Option<&'static Plan> {
        plan(self.plan)
    }

    /// Its terms as kept on an order: `c=…&price=…&until=…`.
    pub fn terms(&self) -> String {
        format!("c={}&price={}&until={}", self.code, self.price_fen, self.ends_at)
    }
}

/// The campaign with this code, running or not.
pub fn campaign(code: &str) -> Option<&'static Campaign> {
    CAMPAIGNS.iter().find(|c| c.code == code)
}

/// The campaigns selling at `now`, whose plan is on sale.
pub fn campaigns_running(now: i64) -> impl Iterator<Item = &'static Campaign> {
    CAMPAIGNS.iter().filter(move |c| c.running(now) && c.plan().is_some_and(|p| p.on_sale))
}

/// The plan with this code, if it is on sale.
pub fn plan(code: &str) -> Option<&'static Plan> {
    PLANS.iter().find(|p| p.code == code)
}

/// The plans for one audience.
pub fn plans_for(audience: Audience) -> impl Iterator<Item = &'static Plan> {
    PLANS.iter().filter(move |p| p.audience == audience)
}

/// The plans on sale, in order.
pub fn on_sale() -> impl Iterator<Item = &'static Plan> {
    PLANS.iter().filter(|p| p.on_sale)
}

/// What running memberships give together: the best level of each benefit (a dealer's city plan
/// and nationwide plan reach nationwide).
pub fn combined<'a>(plans: impl IntoIterator<Item = &'a Plan>) -> Plan {
    plans.into_iter().fold(FREE, |acc, p| Plan {
        free_reports_per_month: acc.free_reports_per_month.max(p.free_reports_per_month),
        instant_alerts: acc.instant_alerts || p.instant_alerts,
        refreshes_per_day: acc.refreshes_per_day.max(p.refreshes_per_day),
        confirm_days: acc.confirm_days.max(p.confirm_days),
        reach: match (acc.reach, p.reach) {
            (Some(Reach::Nationwide), _) | (_, Some(Reach::Nationwide)) => Some(Reach::Nationwide),
            (Some(Reach::City), _) | (_, Some(Reach::City)) => Some(Reach::City),
            _ => None,
        },
        ..acc
    })
}

/// Seconds between two 擦亮 of one listing: a day shared out over the day's allowance.
pub fn refresh_every_secs(benefits: &Plan) -> i64 {
    86_400 / i64::from(benefits.refreshes_per_day.max(1))
}

/// Seconds a 确认在售 (or an approval or 擦亮) keeps a listing online.
pub fn confirm_secs(benefits: &Plan) -> i64 {
    benefits.confirm_days * 86_400
}

/// Whether the plan needs a city chosen when buying (the dealers' city plan).
pub fn needs_city(plan: &Plan) -> bool {
    plan.reach == Some(Reach::City)
}

/// The start and end of the membership a purchase of `days` buys at `now`: it follows on from a
/// membership of the same plan still running (`running_until`), so a renewal loses no day.
pub fn extend(now: i64, running_until: Option<i64>, days: i64) -> (i64, i64) {
    let start = running_until.filter(|&end| end > now).unwrap_or(now);
    (start, start + days * 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_every_plan_gives_something() {
        for (i, p) in PLANS.iter().enumerate() {
            assert!(PLANS[i + 1..].iter().all(|q| q.code != p.code), "{}", p.code);
            assert!(p.price_fen > 0 && p.days > 0);
            let gives = p.free_reports_per_month > FREE.free_reports_per_month
                || p.instant_alerts
                || p.refreshes_per_day > FREE.refreshes_per_day
                || p.confirm_days > FREE.confirm_days
                || p.reach.is_some();
            assert!(gives, "{} gives nothing over the free level", p.code);
            assert_eq!(plan(p.code), Some(p));
        }
        assert_eq!(plans_for(Audience::Dealer).count(), 2);
        assert!(needs_city(plan("dealer-city").unwrap()) && !needs_city(plan("dealer-china").unwrap()));
    }

    #[test]
    fn memberships_combine_to_the_best_of_each_benefit() {
        let none = combined([]);
        assert_eq!(none, FREE);
        assert_eq!(
            (refresh_every_secs(&none), confirm_secs(&none)),
            (crate::selling::REFRESH_EVERY_SECS, crate::selling::CONFIRM_VALID_SECS),
            "the free level is the selling rules'"
        );
        let seller = combined([plan("seller-month").unwrap()]);
        assert_eq!((seller.refreshes_per_day, seller.confirm_days), (3, 60));
        assert_eq!(refresh_every_secs(&seller), 8 * 3_600);
        let dealer = combined([plan("dealer-city").unwrap(), plan("dealer-china").unwrap(), plan("buyer-month").unwrap()]);
        assert_eq!((dealer.reach, dealer.free_reports_per_month, dealer.instant_alerts), (Some(Reach::Nationwide), 2, true));
        assert_eq!(on_sale().filter(|p| p.audience == Audience::Buyer).count(), 2, "history reports and instant alerts are in force");
        assert_eq!(on_sale().filter(|p| p.audience == Audience::Dealer).count(), 2);
    }

    #[test]
    fn campaigns_sell_their_plan_cheaper_until_their_deadline() {
        for c in CAMPAIGNS {
            let p = c.plan().unwrap_or_else(|| panic!("{} sells no plan", c.code));
            assert!(c.price_fen > 0 && c.price_fen < p.price_fen, "{}: a campaign price is below the plan's", c.code);
            assert!(c.starts_at < c.ends_at);
            assert_eq!(campaign(c.code), Some(&c));
            assert!(c.running(c.starts_at) && c.running(c.ends_at) && !c.running(c.ends_at + 1) && !c.running(c.starts_at - 1));
        }
        assert_eq!(crate::time::datetime(CAMPAIGNS[0].ends_at), "2026-12-31 23:59:59");
        assert_eq!(crate::time::datetime(CAMPAIGNS[0].starts_at), "2026-11-01 00:00:00");
        assert_eq!(crate::time::datetime(CAMPAIGNS[1].ends_at), "2027-02-28 23:59:59");
        assert_eq!(crate::time::datetime(CAMPAIGNS[1].starts_at), "2027-01-15 00:00:00");
        // 2026-11-21: the winter campaign runs, the new-year one has not begun.
        let now = 1_795_228_215;
        assert_eq!(campaigns_running(now).map(|c| c.code).collect::<Vec<_>>(), ["seller-winter"]);
        assert_eq!(CAMPAIGNS[0].terms(), "c=seller-winter&price=1990&until=1798732799");
    }

    #[test]
    fn a_renewal_follows_on_and_a_lapsed_one_starts_now() {
        let day = 86_400;
        assert_eq!(extend(1_000, None, 30), (1_000, 1_000 + 30 * day));
        assert_eq!(extend(1_000, Some(500), 30), (1_000, 1_000 + 30 * day), "lapsed");
        assert_eq!(extend(1_000, Some(1_000 + 5 * day), 30), (1_000 + 5 * day, 1_000 + 35 * day), "running");
    }
}
