//! The staff's campaign report, `/staff/campaigns`: leads per China day by ad platform, plan,
//! unit and keyword with how many were reported back to the platform, and each conversion
//! report's state (queued, sent, failed with the reason and the tries; a failed one can be sent
//! again), for a range of days; `/staff/campaigns.csv` is the same table as a CSV file for Excel
//! (UTF-8 with a BOM, a header row, cells a spreadsheet would run as formulas quoted as text).

use askama::Template;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use domain::text::csv_cell;
use serde::Deserialize;

use crate::auth::signin::see_other;
use crate::http::error::AppError;
use crate::http::extract::{Form, Query};
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

/// Days a report covers at most.
const MAX_DAYS: i64 = 92;
/// Days shown without a range: the last week, today included.
const DEFAULT_DAYS: i64 = 7;
/// Conversion reports listed.
const REPORTS_SHOWN: i64 = 100;

/// The range as typed.
#[derive(Debug, Default, Deserialize)]
pub struct RangeQuery {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    retried: String,
}

/// A range of China days: `[from, to)` in Unix seconds, and the dates as shown.
struct Range {
    from: i64,
    to: i64,
    from_text: String,
    to_text: String,
    error: Option<&'static str>,
}

fn range(q: &RangeQuery, now: i64) -> Range {
    let today = domain::time::parse_date(&domain::time::date(now)).unwrap_or_default();
    let default = (today - chrono::Days::new(DEFAULT_DAYS as u64 - 1), today);
    let typed = |t: &str| if t.trim().is_empty() { Some(None) } else { domain::time::parse_date(t).map(Some) };
    let (from, to, error) = match (typed(&q.from), typed(&q.to)) {
        (Some(f), Some(t)) => {
            let (f, t) = (f.unwrap_or(default.0), t.unwrap_or(default.1));
            if t < f {
                (default.0, default.1, Some("结束日期不能早于开始日期"))
            } else if (t - f).num_days() >= MAX_DAYS {
                (t - chrono::Days::new(MAX_DAYS as u64 - 1), t, Some("一次最多查看92天，已从结束日期往前取92天"))
            } else {
                (f, t, None)
            }
        }
        _ => (default.0, default.1, Some("日期格式应为 2026-11-01")),
    };
    Range {
        from: domain::time::china_midnight(from),
        to: domain::time::china_midnight(to) + 86_400,
        from_text: from.format("%Y-%m-%d").to_string(),
        to_text: to.format("%Y-%m-%d").to_string(),
        error,
    }
}

/// A platform's name as the report shows it; empty for leads from no ad click.
fn platform_label(stored: &str) -> &'static str {
    domain::attribution::Platform::parse(stored).map_or("", domain::attribution::Platform::label)
}

/// A conversion report as the table shows it.
struct ReportView {
    r: store::ConversionRow,
    click: String,
    when: String,
}

#[derive(Template)]
#[template(path = "campaigns/campaigns.html")]
struct CampaignsPage {
    page: PageMeta,
    from: String,
    to: String,
    error: Option<&'static str>,
    /// Each row with its platform's name.
    days: Vec<(store::CampaignDay, &'static str)>,
    totals: (i64, i64, i64),
    reports: Vec<ReportView>,
    csv_href: String,
    notice: Option<&'static str>,
}

/// `GET /staff/campaigns?from=&to=`.
pub async fn report(State(state): State<AppState>, visitor: Visitor, Query(q): Query<RangeQuery>) -> Result<Response, AppError> {
    let r = range(&q, state.clock.now());
    let (days, rows) = tokio::try_join!(state.store.campaign_days(r.from, r.to), state.store.conversions(r.from, r.to, REPORTS_SHOWN))?;
    let totals = days.iter().fold((0, 0, 0), |(l, s, f), d| (l + d.leads, s + d.reported, f + d.failed));
    let reports = rows
        .into_iter()
        .map(|r| ReportView { click: domain::attribution::cut(&r.click_id, 24), when: domain::time::datetime(r.sent_at.unwrap_or(r.created_at)), r })
        .collect();
    let mut page = PageMeta::for_visitor(&state, &visitor, Layout::Default, "推广效果").canonical_path(&state, "/staff/campaigns");
    page.private();
    let tpl = CampaignsPage {
        page,
        csv_href: format!("/staff/campaigns.csv?from={}&to={}", r.from_text, r.to_text),
        from: r.from_text,
        to: r.to_text,
        error: r.error,
        days: days.into_iter().map(|d| (platform_label(&d.ad_platform), d)).map(|(l, d)| (d, l)).collect(),
        totals,
        reports,
        notice: (q.retried == "1").then_some("已重新排队，几秒内发送；结果刷新后可见。"),
    };
    let mut res = Html(tpl.render()?).into_response();
    if r.error.is_some() {
        *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    }
    Ok(res)
}

/// `GET /staff/campaigns.csv?from=&to=`: the leads table as a file.
pub async fn csv(State(state): State<AppState>, Query(q): Query<RangeQuery>) -> Result<Response, AppError> {
    let r = range(&q, state.clock.now());
    let days = state.store.campaign_days(r.from, r.to).await?;
    // The BOM tells Excel the file is UTF-8; without it Chinese opens garbled.
    let mut out = String::from("\u{feff}日期,平台,计划,单元,关键词,线索数,已回传,回传失败\r\n");
    for d in &days {
        let cells = [d.day.as_str(), platform_label(&d.ad_platform), &d.plan, &d.unit, &d.keyword];
        let text: Vec<String> = cells.iter().map(|c| csv_cell(c)).chain([d.leads, d.reported, d.failed].iter().map(ToString::to_string)).collect();
        out.push_str(&text.join(","));
        out.push_str("\r\n");
    }
    let name = format!("attachment; filename=\"campaigns-{}-{}.csv\"", r.from_text, r.to_text);
    Ok((
        [(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()), (header::CONTENT_DISPOSITION, name), (header::CACHE_CONTROL, "no-store".to_owned())],
        out,
    )
        .into_response())
}

/// A failed report to send again.
#[derive(Debug, Default, Deserialize)]
pub struct RetryPost {
    #[serde(default, deserialize_with = "crate::http::extract::id")]
    id: Option<i64>,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
}

/// `POST /staff/campaigns`: a failed report queued again, its tries counted afresh, and sent.
pub async fn retry(State(state): State<AppState>, Form(post): Form<RetryPost>) -> Result<Response, AppError> {
    let id = post.id.ok_or(AppError::NotFound)?;
    let source = state.store.retry_conversion(id, state.clock.now()).await?.ok_or(AppError::NotFound)?;
    crate::services::conversions::send(&state, source);
    let back = crate::adapters::query_string(&[("from", post.from.trim()), ("to", post.to.trim()), ("retried", "1")]);
    Ok(see_other(&format!("/staff/campaigns?{back}"), Vec::new()))
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Staff, "/staff/campaigns", report);
    r.post(Access::Staff, "/staff/campaigns", retry);
    r.get(Access::Staff, "/staff/campaigns.csv", csv);
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_228_215; // 2026-11-21 10:30 China time

    fn q(from: &str, to: &str) -> RangeQuery {
        RangeQuery { from: from.to_owned(), to: to.to_owned(), retried: String::new() }
    }

    #[test]
    fn ranges_are_whole_china_days_within_bounds() {
        let r = range(&q("", ""), NOW);
        assert_eq!((r.from_text.as_str(), r.to_text.as_str(), r.error), ("2026-11-15", "2026-11-21", None));
        assert_eq!(r.to - r.from, 7 * 86_400);
        assert_eq!(domain::time::date(r.from), "2026-11-15");
        let r = range(&q("2026-11-20", "2026-11-01"), NOW);
        assert_eq!(r.error, Some("结束日期不能早于开始日期"));
        let r = range(&q("2026-01-01", "2026-11-21"), NOW);
        assert_eq!((r.from_text.as_str(), r.error.is_some()), ("2026-08-22", true));
        assert_eq!(range(&q("11/01", ""), NOW).error, Some("日期格式应为 2026-11-01"));
    }
}
