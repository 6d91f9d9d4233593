//! Verified reviews of shops (商家评价, `domain::review`): 我的评价 lists a buyer's dealings with
//! shops that may be reviewed and the reviews written (`buyer`); how a review and a shop's 评价
//! tab read (`ReviewView`, `ShopReviews`), which the shop's pages and the dealer centre's
//! answers (in `dealers`) show. Staff hide reported reviews at their desk.

mod buyer;

use domain::review::{Aspect, Basis};
use store::Review;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    buyer::routes(r);
}

/// A review as the pages show it.
pub struct ReviewView {
    pub id: i64,
    /// The writer, masked (`张**`).
    pub who: String,
    /// What the review rests on (`在线咨询`, `预约看车`…), said as verified.
    pub basis: &'static str,
    pub title: String,
    pub shop_name: String,
    pub shop_oname: String,
    /// Each rated aspect: its name and stars.
    pub stars: Vec<(&'static str, u8)>,
    /// `4.7`.
    pub score: String,
    /// The score in whole stars, `★★★★☆`.
    pub star_row: String,
    pub body: String,
    pub date: String,
    pub answer: String,
    pub answer_date: String,
    /// Why staff hid it (then nothing else of it is shown).
    pub hidden: Option<&'static str>,
    /// Its photos: each a 320 px image, its `srcset`, and the full-size picture it links to.
    pub photos: Vec<(String, String, String)>,
}

impl ReviewView {
    /// The view of a stored review (photos under `upload_base`).
    pub fn new(r: &Review, upload_base: &str) -> ReviewView {
        let stars = r.stars();
        ReviewView {
            id: r.review_id,
            who: masked(&r.nickname),
            basis: basis_label(r.basis),
            title: r.title.clone(),
            shop_name: r.shop_name.clone(),
            shop_oname: r.shop_oname.clone(),
            stars: Aspect::ALL.into_iter().map(|a| (a.label(), stars.of(a))).filter(|(_, n)| *n > 0).collect(),
            score: domain::review::rating_text(r.score, 1),
            star_row: star_row(r.score),
            body: r.body.clone(),
            date: domain::time::date(r.created_at),
            answer: r.answer.clone(),
            answer_date: r.answered_at.map(domain::time::date).unwrap_or_default(),
            hidden: r.hidden_reason.map(|h| h.label()),
            photos: r
                .photos
                .0
                .iter()
                .map(|path| {
                    let url = domain::image::join(upload_base, path);
                    (domain::image::sized(&url, upload_base, 320), domain::image::srcset(&url, upload_base).unwrap_or_default(), url)
                })
                .collect(),
        }
    }
}

/// A score in tenths as a row of five stars, rounded to whole ones (`47` → `★★★★★`).
fn star_row(score: i64) -> String {
    let whole = usize::try_from((score + 5) / 10).unwrap_or(0).min(5);
    format!("{}{}", "★".repeat(whole), "☆".repeat(5 - whole))
}

/// How a review's dealing reads beside it.
fn basis_label(b: Basis) -> &'static str {
    match b {
        Basis::Thread => "在线咨询过",
        Basis::Lead => "询价或看车后",
        Basis::Reservation => "预订过车辆",
    }
}

/// A nickname as reviews show it: its first character and `**` (`买家**` without one).
fn masked(nickname: &str) -> String {
    match nickname.chars().next() {
        Some(c) => format!("{c}**"),
        None => "买家**".to_owned(),
    }
}

/// Reviews a page of the 评价 tab shows.
const PER_PAGE: i64 = 20;

/// A shop's 评价 tab: the rating, each aspect's, a page of reviews.
pub struct ShopReviews {
    /// `4.6` (empty: no visible review yet).
    pub rating: String,
    /// Visible reviews.
    pub count: i64,
    /// Each aspect rated by someone: its name and mean (`4.8`).
    pub aspects: Vec<(&'static str, String)>,
    /// This page's reviews.
    pub list: Vec<ReviewView>,
    /// The pages around this one.
    pub prev: Option<String>,
    /// See `prev`.
    pub next: Option<String>,
    /// After writing or reporting.
    pub notice: Option<&'static str>,
    /// How reviews are made and kept.
    pub rule: &'static str,
}

impl ShopReviews {
    /// Page `page` of shop `s`'s reviews; `None` past the last page.
    pub async fn of(state: &crate::state::AppState, s: &store::Shop, page: i64, notice: Option<&'static str>) -> Result<Option<ShopReviews>, store::DbError> {
        if !(1..=500).contains(&page) {
            return Ok(None);
        }
        let (sum, rows) = tokio::try_join!(state.store.review_summary(s.shop_id), state.store.shop_reviews(s.shop_id, PER_PAGE + 1, (page - 1) * PER_PAGE))?;
        if page > 1 && rows.is_empty() {
            return Ok(None);
        }
        let href = |p: i64| if p > 1 { format!("/shop/{}/reviews?page={p}", s.oname) } else { format!("/shop/{}/reviews", s.oname) };
        let more = rows.len() as i64 > PER_PAGE;
        let aspects = Aspect::ALL
            .into_iter()
            .zip(sum.aspects)
            .filter(|(_, (_, n))| *n > 0)
            .map(|(a, (stars, n))| (a.label(), domain::review::rating_text(stars * 10, n)))
            .collect();
        Ok(Some(ShopReviews {
            rating: domain::review::rating_text(sum.points, sum.count),
            count: sum.count,
            aspects,
            list: rows.iter().take(PER_PAGE as usize).map(|r| ReviewView::new(r, &state.config.upload.base)).collect(),
            prev: (page > 1).then(|| href(page - 1)),
            next: more.then(|| href(page + 1)),
            notice,
            rule: domain::review::RULE,
        }))
    }
}
