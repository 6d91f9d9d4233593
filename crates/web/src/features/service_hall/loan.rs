//! `/servicehall/fenqi/fenqi`: the loan calculator. A GET form (price in 万, down-payment share,
//! term, annual rate, repayment method; `listing=` fills in the price of a car on sale) answered
//! on the same address, so a result can be shared and needs no script: the down payment, the
//! loan, the monthly payment, the interest and the schedule month by month. The lender's fees
//! (service, GPS, monthly management) are optional fields; the annualised rate is computed from
//! what the borrower actually receives and pays, fees included (单利 with the compound beside it),
//! next to the contract rate, as loan offers must state it. Under the figures, a
//! form to ask for the loan: a `finance` lead carrying the plan in its note, to the listing's shop
//! when the car is a dealer's, else to our advisers.

use crate::http::routes::{Access, Routes};
use domain::selling::FieldErrors;
use std::collections::BTreeMap;

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::lead::Intent;
use domain::loan::{Fees, Method, Plan, percent, yuan};
use serde::Deserialize;
use store::{LeadOutcome, ListingDetail, NewLead};

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

const PATH: &str = "/servicehall/fenqi/fenqi";

/// The calculator's fields and the application's, all as typed.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct LoanForm {
    #[serde(default)]
    price: String,
    #[serde(default)]
    down: String,
    #[serde(default)]
    months: String,
    #[serde(default)]
    rate: String,
    #[serde(default)]
    method: String,
    /// 服务费, yuan.
    #[serde(default)]
    fee: String,
    /// GPS费, yuan.
    #[serde(default)]
    gps: String,
    /// 月管理费, yuan a month.
    #[serde(default)]
    mgmt: String,
    /// A listing on sale whose price fills the form and whose shop gets the application.
    #[serde(default)]
    listing: String,
    /// Set by the calculator's button: the figures were asked for (an empty price is a mistake).
    #[serde(default)]
    calc: String,
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    city: String,
}

impl LoanForm {
    /// The plan and its fees, or each wrong field's message.
    fn plan(&self) -> Result<(Plan, Fees), BTreeMap<&'static str, &'static str>> {
        let plan = domain::loan::parse(&self.price, &self.down, &self.months, &self.rate, &self.method)?;
        Ok((plan, domain::loan::parse_fees(&plan, &self.fee, &self.gps, &self.mgmt)?))
    }
}

/// One month of the schedule as shown.
struct RowView {
    month: u32,
    payment: String,
    principal: String,
    interest: String,
    balance: String,
}

/// The figures of a plan.
struct Figures {
    method: &'static str,
    down: String,
    loan: String,
    /// The monthly payment (equal instalments), or the first month's (equal principal).
    monthly: String,
    /// Equal principal: how much less each month.
    falls_by: Option<String>,
    interest: String,
    /// The contract's annual rate.
    rate: String,
    /// Every fee over the term, when there are any, and what they are.
    fees: Option<(String, String)>,
    /// What the borrower receives: the loan less the one-off fees.
    received: String,
    /// The first month's payment with the monthly fee, when there is one.
    monthly_paid: Option<String>,
    /// The annualised rate from the cash flows: 单利 and 复利, or why it cannot be stated.
    apr: Result<(String, String), &'static str>,
    /// Interest and fees together.
    cost: String,
    /// Down payment plus every month plus every fee.
    total: String,
    /// Interest and fees, fen (the all-in cost adds them).
    cost_fen: i64,
    /// The car price the figures are for, fen.
    price_fen: i64,
    /// The other method's interest and first payment, for the comparison line.
    other: String,
    rows: Vec<RowView>,
}

fn figures(plan: &Plan, fees: &Fees) -> Figures {
    let rows = plan.schedule();
    let interest = Plan::total_interest(&rows);
    let other_method = if plan.method == Method::Annuity { Method::Principal } else { Method::Annuity };
    let other_plan = Plan { method: other_method, ..*plan };
    let other_rows = other_plan.schedule();
    let other_interest = Plan::total_interest(&other_rows);
    let first = rows.first().map_or(0, |r| r.payment_fen);
    let other_first = other_rows.first().map_or(0, |r| r.payment_fen);
    let other = if plan.rate_bp == 0 {
        format!("{}：首月还{}元，同样不付利息。", other_method.label(), yuan(other_first))
    } else if other_interest < interest {
        format!("改选{}：首月还{}元，总利息少{}元。", other_method.label(), yuan(other_first), yuan(interest - other_interest))
    } else {
        format!(
            "改选{}：每月还{}元，首月少还{}元，但总利息多{}元。",
            other_method.label(),
            yuan(other_first),
            yuan(first - other_first),
            yuan(other_interest - interest)
        )
    };
    let falls_by = (plan.method == Method::Principal && rows.len() > 1).then(|| yuan(rows[0].payment_fen - rows[1].payment_fen));
    let fee_total = fees.total(plan.months);
    let fee_parts: Vec<String> = [("服务费", fees.service_fen, ""), ("GPS费", fees.gps_fen, ""), ("月管理费", fees.monthly_fen, "/月")]
        .iter()
        .filter(|(_, fen, _)| *fen > 0)
        .map(|(name, fen, per)| format!("{name}{}元{per}", yuan(*fen)))
        .collect();
    let apr = plan.annual_rate(fees).map(|r| (percent(r.simple_bp), percent(r.compound_bp))).map_err(|_| domain::loan::NoRate::MESSAGE);
    Figures {
        method: plan.method.label(),
        down: yuan(plan.down_fen),
        loan: yuan(plan.loan_fen),
        monthly: yuan(first),
        falls_by,
        interest: yuan(interest),
        rate: percent(i64::from(plan.rate_bp)),
        fees: (fee_total > 0).then(|| (yuan(fee_total), fee_parts.join("、"))),
        received: yuan(plan.loan_fen - fees.upfront()),
        monthly_paid: (fees.monthly_fen > 0).then(|| yuan(first + fees.monthly_fen)),
        apr,
        cost: yuan(interest + fee_total),
        cost_fen: interest + fee_total,
        price_fen: plan.price_fen,
        total: yuan(plan.down_fen + rows.iter().map(|r| r.payment_fen).sum::<i64>() + fee_total),
        other,
        rows: rows
            .iter()
            .map(|r| RowView {
                month: r.month,
                payment: yuan(r.payment_fen),
                principal: yuan(r.principal_fen),
                interest: yuan(r.interest_fen),
                balance: yuan(r.balance_fen),
            })
            .collect(),
    }
}

#[derive(Template)]
#[template(path = "loan/calculator.html")]
struct LoanPage {
    page: PageMeta,
    form: LoanForm,
    errors: FieldErrors,
    form_error: Option<String>,
    figures: Option<Figures>,
    /// The car of `listing=`: id, title, whether a dealer sells it.
    car: Option<(i64, String, bool)>,
    /// A dealer sells the car: the application goes to its shop.
    dealer: bool,
    /// The car's all-in cost bought on this loan: the total in 万 and its parts on one line.
    allin: Option<(String, String)>,
    downs: &'static [u32],
    terms: &'static [u32],
    provinces: crate::render::choices::ProvinceCities,
}

/// The car of `listing=`, when it is on sale.
async fn listing_of(state: &AppState, form: &LoanForm) -> Result<Option<ListingDetail>, AppError> {
    let Some(id) = form.listing.trim().parse::<i64>().ok().filter(|id| *id > 0) else { return Ok(None) };
    match state.store.public_listing(id).await {
        Ok(d) => Ok(Some(d)),
        Err(store::DbError::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    mut form: LoanForm,
    mut errors: FieldErrors,
    form_error: Option<String>,
    code: StatusCode,
) -> Result<Response, AppError> {
    let listing = listing_of(state, &form).await?;
    let asked = !form.calc.is_empty();
    if !asked {
        // A first visit starts from the usual loan: 30% down over 36 months at the reference rate.
        for (field, value) in [
            (&mut form.down, domain::loan::DEFAULT_DOWN.to_string()),
            (&mut form.months, domain::loan::DEFAULT_TERM.to_string()),
            (&mut form.rate, format!("{}.{}", domain::loan::DEFAULT_RATE_BP / 100, domain::loan::DEFAULT_RATE_BP % 100 / 10)),
            (&mut form.method, Method::Annuity.as_str().to_owned()),
        ] {
            if field.trim().is_empty() {
                *field = value;
            }
        }
    }
    if let Some(d) = &listing
        && form.price.trim().is_empty()
    {
        form.price = domain::money::wan(d.price_yuan);
    }
    if form.city.is_empty() {
        form.city = visitor.city_slug.clone().unwrap_or_default();
    }
    let figures = if asked || listing.is_some() {
        match form.plan() {
            Ok((plan, fees)) => Some(figures(&plan, &fees)),
            Err(e) => {
                for (field, message) in e {
                    errors.entry(field).or_insert_with(|| message.to_owned());
                }
                None
            }
        }
    } else {
        None
    };
    // A car opened from its page that is too cheap to need a loan is not a mistake of the
    // visitor's: the page explains it beside the price, with 200.
    let opened_from_car = !asked && listing.is_some();
    let code = if code == StatusCode::OK && !errors.is_empty() && !opened_from_car { StatusCode::UNPROCESSABLE_ENTITY } else { code };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Default, "分期计算器")
        .describe("二手车分期月供计算：填写车价、首付比例、期限和年利率，算出月供、总利息和每月还款计划，等额本息和等额本金对比，可直接申请分期。")
        .canonical_path(state, PATH);
    if asked || listing.is_some() || !form.mobile.is_empty() {
        page.noindex();
    }
    // The car of `listing=` at its own price: what it costs on the road bought on this loan.
    let allin = match (&listing, &figures) {
        (Some(d), Some(f)) if f.price_fen == d.price_yuan * 100 => crate::features::buying::all_in::all_in(d, visitor.city_slug.as_deref(), state.clock.now())
            .map(|view| {
                let with = view.cost.with_loan(f.cost_fen);
                (domain::money::wan(with.total_fen / 100), crate::features::buying::all_in::AllInView::summary_of(&with))
            }),
        _ => None,
    };
    let tpl = LoanPage {
        allin,
        page,
        errors,
        form_error,
        figures,
        dealer: listing.as_ref().is_some_and(|d| d.shop_id.is_some()),
        car: listing.map(|d| (d.listing_id, d.title, d.shop_id.is_some())),
        downs: &domain::loan::DOWN_PERCENTS,
        terms: &domain::loan::TERMS,
        provinces: crate::render::choices::province_cities(),
        form,
    };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = code;
    Ok(res)
}

/// `GET /servicehall/fenqi/fenqi`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Query(form): Query<LoanForm>) -> Result<Response, AppError> {
    render(&state, &visitor, form, FieldErrors::new(), None, StatusCode::OK).await
}

/// `POST /servicehall/fenqi/fenqi`: ask for the loan of the figures shown.
pub async fn apply(State(state): State<AppState>, visitor: Visitor, Form(mut form): Form<LoanForm>) -> Result<Response, AppError> {
    form.calc = "1".to_owned();
    let mut errors: FieldErrors = FieldErrors::new();
    let lead =
        crate::services::leads::lead_from(&visitor, &form.mobile, Intent::Finance, PATH.to_owned()).map_err(|m| errors.insert("mobile", m.to_owned())).ok();
    let city = domain::region::city_by_slug(form.city.trim());
    if city.is_none() {
        errors.insert("city", "请选择您所在的城市".to_owned());
    }
    let plan = form.plan();
    let (Some(lead), Some(city), Ok((plan, fees))) = (lead, city, plan) else {
        return render(&state, &visitor, form, errors, None, StatusCode::UNPROCESSABLE_ENTITY).await;
    };
    let listing = listing_of(&state, &form).await?;
    let rows = plan.schedule();
    let mut note = format!(
        "车价{}万，首付{}%（{}元），{}期，年利率{}，{}，首月还款{}元",
        domain::money::wan(plan.price_fen / 100),
        plan.down_percent,
        yuan(plan.down_fen),
        plan.months,
        percent(i64::from(plan.rate_bp)),
        plan.method.label(),
        yuan(rows.first().map_or(0, |r| r.payment_fen)),
    );
    if fees.total(plan.months) > 0 {
        note.push_str(&format!("，费用合计{}元", yuan(fees.total(plan.months))));
    }
    if let Ok(r) = plan.annual_rate(&fees) {
        note.push_str(&format!("，年化利率（单利）{}", percent(r.simple_bp)));
    }
    let lead = NewLead {
        city_code: i32::try_from(city.code).ok(),
        listing_id: listing.as_ref().map(|d| d.listing_id),
        shop_id: listing.as_ref().and_then(|d| d.shop_id),
        note,
        ..lead
    };
    match crate::services::leads::submit_lead(&state, &lead, state.clock.now()).await? {
        LeadOutcome::RateLimited => {
            render(&state, &visitor, form, errors, Some(crate::services::leads::RATE_LIMITED.to_owned()), StatusCode::TOO_MANY_REQUESTS).await
        }
        _ => {
            let to =
                listing.and_then(|d| d.shop_oname).map_or_else(|| "/actives/gratitude?from=finance".to_owned(), |o| format!("/actives/gratitude?shop={o}"));
            Ok(see_other(&to, Vec::new()))
        }
    }
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/servicehall/fenqi/fenqi", page);
    r.post(Access::Public, "/servicehall/fenqi/fenqi", apply);
}
