//! News articles for the home page's top five (the /news pages come with the buyer issue).

use serde::Serialize;

use crate::{DbError, Store, found, from_row, on_pool};

/// A news article without its body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewsItem {
    /// Primary key.
    pub news_id: i64,
    /// Category tab, e.g. 行业, 导购, 用车.
    pub category: String,
    /// Headline.
    pub title: String,
    /// One-paragraph summary.
    pub summary: String,
    /// Cover image field.
    pub cover: String,
    /// Where it comes from.
    pub source: String,
    /// Generated demo content.
    pub demo: bool,
    /// Publication time.
    pub published_at: i64,
}

from_row!(NewsItem { news_id, category, title, summary, cover, source, demo, published_at });

impl Store {
    /// The newest articles.
    pub async fn latest_news(&self, limit: i64) -> Result<Vec<NewsItem>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, NewsItem>(
                "select news_id, category, title, summary, cover, source, demo, published_at from news order by published_at desc, news_id desc limit $1",
            )
            .bind(limit)
            .fetch_all(p)
            .await?
        });
        Ok(rows)
    }

    /// One article's headline row.
    pub async fn news_item(&self, news_id: i64) -> Result<NewsItem, DbError> {
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, NewsItem>(
                "select news_id, category, title, summary, cover, source, demo, published_at from news where news_id = $1",
            )
            .bind(news_id)
            .fetch_optional(p)
            .await?
        });
        found(row)
    }
}
