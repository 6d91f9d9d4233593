//! News articles: the home page's top five, the `/news` tabs and pages, and single articles.

use serde::Serialize;

use crate::{DbError, Store, Val, found, from_row, on_pool};

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

const NEWS_COLUMNS: &str = "news_id, category, title, summary, cover, source, demo, published_at";

/// An article as a list of headlines shows it (the home page's five, the sitemap's newest): no
/// summary, cover or source, which the home page does not show and which were most of the text
/// its news read decoded (about a twentieth of the page's instructions, callgrind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsHeadline {
    /// Primary key.
    pub news_id: i64,
    /// Category tab, e.g. 行业, 导购, 用车.
    pub category: String,
    /// Headline.
    pub title: String,
    /// Publication time.
    pub published_at: i64,
}

from_row!(NewsHeadline { news_id, category, title, published_at });

/// A whole article.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewsArticle {
    /// The headline fields.
    pub item: NewsItem,
    /// Body text; paragraphs separated by blank lines.
    pub body: String,
}

impl Store {
    /// The newest articles' headlines, newest first.
    pub async fn latest_news(&self, limit: i64) -> Result<Vec<NewsHeadline>, DbError> {
        self.read_all("select news_id, category, title, published_at from news order by published_at desc, news_id desc limit $1", vec![Val::Int(limit)]).await
    }

    /// One article's headline row.
    pub async fn news_item(&self, news_id: i64) -> Result<NewsItem, DbError> {
        let row = on_pool!(self, p => {
            sqlx::query_as::<_, NewsItem>(sqlx::AssertSqlSafe(format!("select {NEWS_COLUMNS} from news where news_id = $1")))
            .bind(news_id)
            .fetch_optional(p)
            .await?
        });
        found(row)
    }

    /// Categories with their article counts, largest first.
    pub async fn news_categories(&self) -> Result<Vec<(String, i64)>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, (String, i64)>("select category, count(*) from news group by category order by count(*) desc, category")
                .fetch_all(p)
                .await?
        });
        Ok(rows)
    }

    /// One page of articles, newest first, in one category when given; with the total.
    pub async fn news_page(&self, category: Option<&str>, offset: i64, limit: i64) -> Result<(i64, Vec<NewsItem>), DbError> {
        let cat = category.unwrap_or("");
        let filter = "($1 = '' or category = $1)";
        let list = format!("select {NEWS_COLUMNS} from news where {filter} order by published_at desc, news_id desc limit $2 offset $3");
        let count = format!("select count(*) from news where {filter}");
        let (total, items) = on_pool!(self, p => {
            let total = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(count)).bind(cat).fetch_one(p).await?;
            let items = sqlx::query_as::<_, NewsItem>(sqlx::AssertSqlSafe(list)).bind(cat).bind(limit).bind(offset).fetch_all(p).await?;
            (total, items)
        });
        Ok((total, items))
    }

    /// An article with its body.
    pub async fn news_article(&self, news_id: i64) -> Result<NewsArticle, DbError> {
        let item = self.news_item(news_id).await?;
        let body: String = on_pool!(self, p => {
            sqlx::query_scalar("select body from news where news_id = $1").bind(news_id).fetch_one(p).await?
        });
        Ok(NewsArticle { item, body })
    }

    /// Other recent articles of a category.
    pub async fn related_news(&self, category: &str, except: i64, limit: i64) -> Result<Vec<NewsItem>, DbError> {
        let sql = format!("select {NEWS_COLUMNS} from news where category = $1 and news_id <> $2 order by published_at desc, news_id desc limit $3");
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, NewsItem>(sqlx::AssertSqlSafe(sql)).bind(category).bind(except).bind(limit).fetch_all(p).await?
        });
        Ok(rows)
    }
}
