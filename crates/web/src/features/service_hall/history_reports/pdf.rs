//! `/servicehall/viewpdf?report=…`: a report as a PDF, its orderer's only.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use domain::report::{Kind, Product};

use crate::auth::access::SignedIn;
use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::state::AppState;

use super::results::{ReportQuery, ready_view};

/// `GET /servicehall/viewpdf?report=…`: the report as a PDF with its Chinese text in an embedded
/// font subset.
pub async fn viewpdf(State(state): State<AppState>, SignedIn(user): SignedIn, Query(q): Query<ReportQuery>) -> Result<Response, AppError> {
    let view = match ready_view(&state, &user, q.id()).await? {
        Ok(v) => v,
        Err(redirect) => return Ok(redirect),
    };
    let font = crate::render::pdf::font(&state.config.pdf.font, state.config.pdf.font_index)
        .ok_or_else(|| AppError::Upstream("PDF暂时无法生成，请在网页上查看报告".to_owned()))?;
    let kind_of = if view.product == Product::Battery { "电池检测报告" } else { "车况报告" };
    let mut blocks = vec![
        crate::render::pdf::Block::Title(format!("{kind_of} · {}", view.product.label())),
        crate::render::pdf::Block::Note(format!("报告编号 {} · 车辆 {} · 车架号 {}", view.id, view.title, view.vin)),
        crate::render::pdf::Block::Note(format!("数据来源 {} · 查询日期 {}", view.source, view.date)),
    ];
    if view.product != Product::Battery {
        blocks.push(crate::render::pdf::Block::Row("车况结论".to_owned(), view.condition.0.clone(), view.condition.1));
    }
    for s in &view.sections {
        blocks.push(crate::render::pdf::Block::Heading(format!("{}：{}", s.kind.label(), s.summary)));
        if s.kind == Kind::Mileage {
            blocks.push(crate::render::pdf::Block::Chart(view.points.clone()));
            for line in &view.verdict {
                blocks.push(crate::render::pdf::Block::Row("疑似调表".to_owned(), line.clone(), true));
            }
        }
        for (label, value, warn) in &s.rows {
            blocks.push(crate::render::pdf::Block::Row(label.clone(), value.clone(), *warn));
        }
    }
    blocks.push(crate::render::pdf::Block::Para(view.disclaimer().to_owned()));
    let pdf = crate::render::pdf::render(&font, &format!("{kind_of}{}", view.id), &format!("二手车网 {kind_of}"), &blocks)
        .ok_or_else(|| AppError::Upstream("PDF暂时无法生成，请在网页上查看报告".to_owned()))?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/pdf".to_owned()),
            (header::CONTENT_DISPOSITION, format!("inline; filename=\"report-{}.pdf\"", view.id)),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        pdf,
    )
        .into_response())
}
