//! `/actives/help/{slug}`: the site's agreements and policies (用户协议, 隐私政策, 个人信息保护说明,
//! 个人信息收集清单, 第三方信息共享清单, 个人卖车协议), each with its version and effective date,
//! from `domain::legal`.

use crate::http::routes::{Access, Routes};
use askama::Template;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Response};

use crate::http::error::AppError;
use crate::http::extract::Path;
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "legal/legal.html")]
struct LegalPage {
    page: PageMeta,
    doc: &'static domain::legal::Doc,
    others: Vec<&'static domain::legal::Doc>,
}

/// `GET /actives/help/{slug}`; 404 for a slug that names no document.
pub async fn doc(State(state): State<AppState>, visitor: Visitor, Path(slug): Path<String>) -> Result<Response, AppError> {
    let doc = domain::legal::doc(&slug).ok_or(AppError::NotFound)?;
    let page = PageMeta::for_visitor(&state, &visitor, Layout::Default, doc.title)
        .describe(doc.summary.to_owned())
        .canonical_path(&state, &format!("/actives/help/{}", doc.slug));
    let others = domain::legal::docs().iter().filter(|d| d.slug != doc.slug).collect();
    Ok(Html(LegalPage { page, doc, others }.render()?).into_response())
}

/// This feature's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Public, "/actives/help/{slug}", doc);
}
