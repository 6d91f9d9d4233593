//! What the sitemap lists: every online listing, news article and open shop, with `lastmod`.

use crate::{DbError, Store, on_pool};

/// URLs per sitemap file (the protocol's limit).
pub const SITEMAP_URLS: i64 = 50_000;

impl Store {
    /// Online listing ids with their last change, in id order, one sitemap file's worth from `offset`.
    pub async fn sitemap_listings(&self, offset: i64, limit: i64) -> Result<Vec<(i64, i64)>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, (i64, i64)>(
                "select listing_id, updated_at from listing where status = 'online' order by listing_id limit $1 offset $2",
            )
            .bind(limit)
            .bind(offset)
            .fetch_all(p)
            .await?
        });
        Ok(rows)
    }

    /// Every article id with its publication time, newest first.
    pub async fn sitemap_news(&self) -> Result<Vec<(i64, i64)>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, (i64, i64)>("select news_id, published_at from news order by published_at desc, news_id desc")
                .fetch_all(p)
                .await?
        });
        Ok(rows)
    }

    /// Every open shop's slug with its last change.
    pub async fn sitemap_shops(&self) -> Result<Vec<(String, i64)>, DbError> {
        let rows = on_pool!(self, p => {
            sqlx::query_as::<_, (String, i64)>("select oname, updated_at from shop where status = 'open' order by shop_id")
                .fetch_all(p)
                .await?
        });
        Ok(rows)
    }

    /// The latest change among online listings (the listings sitemaps' `lastmod`).
    pub async fn listings_lastmod(&self) -> Result<i64, DbError> {
        let t: Option<i64> = on_pool!(self, p => {
            sqlx::query_scalar("select max(updated_at) from listing where status = 'online'").fetch_one(p).await?
        });
        Ok(t.unwrap_or(0))
    }
}
