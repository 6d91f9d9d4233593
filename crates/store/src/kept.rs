//! What a store keeps in memory between reads, for [`KEPT_FOR`] at most: values every list page
//! asks for that change rarely. The popular brands (the catalogue, written by the seed alone)
//! cost a scan and a sort of the brand table on every list page — about 7% of the server's time
//! on `/carlist` under load (perf) for twelve rows that never change. A keyword's words, as
//! vocabulary term ids and how many postings each has ([`crate::search`]), cost a `like` over
//! the vocabulary and a count of up to [`domain::search::COUNT_CAP`] postings per word (on
//! SQLite up to [`crate::search::WORD_PROBE_FROM`]) on every search (白色, counted to 5,000: 4 ms
//! of its 5). The store forgets the words when it indexes a listing's text, so a listing's new
//! words are found at once on the node that wrote them, and within [`KEPT_FOR`] on the others;
//! a word's postings only choose a plan, never the result. Each series' id by its slug (the
//! catalogue again): a seat count names most series, and looking up 280 slugs in the series
//! table on every page cost 100 of the 130 µs of its ids query. The sort keys of every [`crate::search::ANCHOR_EVERY`]-th match of a list read deep: a page
//! is then read from the nearest one below it instead of skipping every match before it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::catalog::BrandRow;
use crate::search::{SeriesIds, Word};

/// How long a kept value is used.
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(30);

/// Keywords kept at most; past it, the expired ones are dropped (all of them if none had).
const WORDS_MAX: usize = 10_000;

/// Anchors of deep pages kept at most (see [`crate::search::ANCHOR_EVERY`]); past it, the
/// expired ones are dropped (all of them if none had).
const ANCHORS_MAX: usize = 20_000;

/// The kept values of one store and its clones.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    popular: Mutex<Option<(Instant, Vec<BrandRow>)>>,
    words: Keyed<Vec<Word>, WORDS_MAX>,
    series: Mutex<Option<(Instant, Arc<SeriesIds>)>>,
    anchors: Keyed<Vec<i64>, ANCHORS_MAX>,
}

/// Values kept by a text key, at most `MAX` of them: past it, the expired ones are dropped (all
/// of them if none had).
#[derive(Debug)]
struct Keyed<V, const MAX: usize>(Mutex<HashMap<String, (Instant, V)>>);

impl<V, const MAX: usize> Default for Keyed<V, MAX> {
    fn default() -> Self {
        Keyed(Mutex::default())
    }
}

impl<V: Clone, const MAX: usize> Keyed<V, MAX> {
    /// The value kept under `key`, when kept less than [`KEPT_FOR`] ago.
    fn get(&self, key: &str) -> Option<V> {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(key).filter(|(at, _)| at.elapsed() < KEPT_FOR).map(|(_, v)| v.clone())
    }

    fn keep(&self, key: String, value: V) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MAX {
            kept.retain(|_, (at, _)| at.elapsed() < KEPT_FOR);
            if kept.len() >= MAX {
                kept.clear();
            }
        }
        kept.insert(key, (Instant::now(), value));
    }

    fn clear(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

impl Kept {
    /// Every popular brand in order, when read less than [`KEPT_FOR`] ago.
    pub(crate) fn popular(&self) -> Option<Vec<BrandRow>> {
        let kept = self.popular.lock().unwrap_or_else(PoisonError::into_inner);
        kept.as_ref().filter(|(at, _)| at.elapsed() < KEPT_FOR).map(|(_, rows)| rows.clone())
    }

    pub(crate) fn keep_popular(&self, rows: Vec<BrandRow>) {
        *self.popular.lock().unwrap_or_else(PoisonError::into_inner) = Some((Instant::now(), rows));
    }

    /// The words of `keyword`, when looked up less than [`KEPT_FOR`] ago.
    pub(crate) fn words(&self, keyword: &str) -> Option<Vec<Word>> {
        self.words.get(keyword)
    }

    pub(crate) fn keep_words(&self, keyword: &str, words: &[Word]) {
        self.words.keep(keyword.to_owned(), words.to_vec());
    }

    /// Forgets every keyword's words (a listing's text was indexed).
    pub(crate) fn forget_words(&self) {
        self.words.clear();
    }

    /// Each series' id by its slug, when read less than [`KEPT_FOR`] ago.
    pub(crate) fn series_ids(&self) -> Option<Arc<SeriesIds>> {
        let kept = self.series.lock().unwrap_or_else(PoisonError::into_inner);
        kept.as_ref().filter(|(at, _)| at.elapsed() < KEPT_FOR).map(|(_, ids)| Arc::clone(ids))
    }

    /// Keeps `ids` (not an empty catalogue: the seed may be about to write it).
    pub(crate) fn keep_series_ids(&self, ids: Arc<SeriesIds>) {
        if !ids.is_empty() {
            *self.series.lock().unwrap_or_else(PoisonError::into_inner) = Some((Instant::now(), ids));
        }
    }

    /// Forgets the series' ids (the seed wrote the catalogue).
    pub(crate) fn forget_series_ids(&self) {
        *self.series.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The sort keys kept under `key` (a list and a place in it), when found less than
    /// [`KEPT_FOR`] ago.
    pub(crate) fn anchor(&self, key: &str) -> Option<Vec<i64>> {
        self.anchors.get(key)
    }

    pub(crate) fn keep_anchor(&self, key: String, keys: Vec<i64>) {
        self.anchors.keep(key, keys);
    }

    /// Forgets every anchor (the seed rewrote the listings).
    pub(crate) fn forget_anchors(&self) {
        self.anchors.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_kept_until_forgotten() {
        let kept = Kept::default();
        assert_eq!(kept.words("白色"), None);
        let words = vec![Word { ids: vec![3, 9], common: true, postings: 6_000 }];
        kept.keep_words("白色", &words);
        assert_eq!(kept.words("白色"), Some(words));
        assert_eq!(kept.words("黑色"), None);
        kept.forget_words();
        assert_eq!(kept.words("白色"), None);
    }

    #[test]
    fn series_ids_are_kept_until_forgotten_and_an_empty_catalogue_never() {
        let kept = Kept::default();
        kept.keep_series_ids(Arc::default());
        assert_eq!(kept.series_ids(), None);
        let ids: Arc<SeriesIds> = Arc::new([("langyi".to_owned(), 7)].into_iter().collect());
        kept.keep_series_ids(Arc::clone(&ids));
        assert_eq!(kept.series_ids(), Some(ids));
        kept.forget_series_ids();
        assert_eq!(kept.series_ids(), None);
    }

    #[test]
    fn anchors_are_kept_by_their_key_until_forgotten() {
        let kept = Kept::default();
        kept.keep_anchor("200 a".to_owned(), vec![1, 1_790_000_000, 512]);
        assert_eq!(kept.anchor("200 a"), Some(vec![1, 1_790_000_000, 512]));
        assert_eq!(kept.anchor("400 a"), None);
        kept.forget_anchors();
        assert_eq!(kept.anchor("200 a"), None);
    }

    #[test]
    fn a_full_memory_makes_room() {
        let kept = Kept::default();
        for i in 0..WORDS_MAX {
            kept.keep_words(&i.to_string(), &[]);
        }
        kept.keep_words("天窗", &[]);
        assert_eq!(kept.words("天窗"), Some(Vec::new()));
        assert!(kept.words.len() <= WORDS_MAX);
    }
}
