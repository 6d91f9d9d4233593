//! Sellers' statements of their cars' condition (车况声明), in versions: a save that changes
//! anything adds a version, none is ever changed, and the statements are decoded once here.
//! A version also lists the car's damage marks (`damage`) and the document photos backing it
//! (证件照片) as they stood: adding or removing one writes the next version with the same items,
//! so what a buyer accepted includes the map and the documents.

use domain::disclosure::{Check, Document, DocumentFinding, MAX_DOCUMENTS, Statement, decode, encode};

use crate::{Backend, DbError, Store, Stored, from_row, on_pool, on_writer};

/// One version of a car's statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disclosure {
    /// The car.
    pub listing_id: i64,
    /// 1 for the first statement, counting up.
    pub version: i32,
    /// The items as stated, each with what our sources said of it when it was saved.
    pub statements: Vec<(Statement, Check)>,
    /// The user who saved it (the private seller, or the dealer's staff).
    pub made_by: i64,
    /// When.
    pub made_at: i64,
    /// The ids of the damage marks the car had in this version, oldest first.
    pub marks: Vec<i64>,
    /// The ids of the document photos backing it, oldest first.
    pub documents: Vec<i64>,
}

/// A document photo backing a statement (证件照片).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementDocument {
    /// Id.
    pub statement_document_id: i64,
    /// What it is.
    pub kind: Document,
    /// The photo's storage key (full size).
    pub photo_path: String,
    /// Staff's comparison of it with the statement, once made.
    pub finding: Option<DocumentFinding>,
}

/// A document photo waiting for staff to compare it with its car's current statement.
#[derive(Debug, Clone)]
pub struct DocumentToCheck {
    /// The photo.
    pub document: StatementDocument,
    /// Its car.
    pub listing_id: i64,
    /// The car's title.
    pub title: String,
    /// The car's current statement.
    pub statements: Vec<(Statement, Check)>,
}

type DocumentRow = (i64, String, String, String, String, String, String);

fn document((statement_document_id, kind, photo_path, finding, note, items, answers): DocumentRow) -> Result<StatementDocument, DbError> {
    let kind = Document::decode("statement_document.kind", &kind)?;
    Ok(DocumentRead { statement_document_id, kind, photo_path, finding, finding_note: note, finding_items: items, checked_answers: answers }.into())
}

/// A document photo's row as read, its kind decoded where it is read.
struct DocumentRead {
    statement_document_id: i64,
    kind: Document,
    photo_path: String,
    finding: String,
    finding_note: String,
    finding_items: String,
    checked_answers: String,
}

from_row!(DocumentRead { statement_document_id, kind as stored, photo_path, finding, finding_note, finding_items, checked_answers });

impl From<DocumentRead> for StatementDocument {
    fn from(r: DocumentRead) -> StatementDocument {
        let finding = match r.finding.as_str() {
            "" => None,
            f => Some(DocumentFinding {
                differs: (f == "differs").then_some(r.finding_note),
                wrong: r.finding_items.split(',').filter_map(domain::disclosure::Item::parse).collect(),
                answers: DocumentFinding::decode_answers(&r.checked_answers),
            }),
        };
        StatementDocument { statement_document_id: r.statement_document_id, kind: r.kind, photo_path: r.photo_path, finding }
    }
}

const DOCUMENT_COLUMNS: &str = "statement_document_id, kind, photo_path, finding, finding_note, finding_items, checked_answers";

/// How adding a document photo went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentAdded {
    /// Added, with this id.
    Added(i64),
    /// The car has [`MAX_DOCUMENTS`] already.
    Full,
    /// Not the user's car.
    NotFound,
}

type Row = (i64, i32, String, i64, i64, String, String);

/// The ids of a version's list (`12,15`).
pub fn ids_of(list: &str) -> Vec<i64> {
    list.split(',').filter_map(|m| m.parse().ok()).collect()
}

fn disclosure((listing_id, version, text, made_by, made_at, marks, documents): Row) -> Disclosure {
    Disclosure { listing_id, version, statements: decode(&text), made_by, made_at, marks: ids_of(&marks), documents: ids_of(&documents) }
}

const COLUMNS: &str = "select listing_id, version, statements, made_by, made_at, marks, documents from disclosure";

/// Inside a write transaction `$tx`: whether car `$listing` is `$user`'s and not deleted, the car
/// locked for the rest of it on PostgreSQL (SQLite's write lock holds everything already).
macro_rules! owned {
    ($tx:ident, $backend:expr, $listing:expr, $user:expr) => {{
        let lock = if $backend == $crate::Backend::Postgres { " for update" } else { "" };
        let sql = format!("select listing_id from listing where listing_id = $1 and status <> 'deleted' and {}{lock}", $crate::selling::OWNED);
        let found: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind($listing).bind($user).fetch_optional(&mut *$tx).await?;
        found.is_some()
    }};
}
pub(crate) use owned;

/// Inside a write transaction `$tx` on car `$listing` (locked): the ids of its rows of `$table`
/// (`damage_mark` or `statement_document`) not removed, comma-joined, as a version stores them.
macro_rules! ids_now {
    ($tx:ident, $table:literal, $listing:expr) => {{
        let sql = concat!("select ", $table, "_id from ", $table, " where listing_id = $1 and removed_at is null order by ", $table, "_id");
        let ids: Vec<i64> = sqlx::query_scalar(sql).bind($listing).fetch_all(&mut *$tx).await?;
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    }};
}
pub(crate) use ids_now;

/// Inside a write transaction `$tx`: inserts version `$version` of car `$listing`'s statement —
/// its encoded items `$statements`, made by `$by` at `$now` — with the car's damage marks and
/// document photos as they are now.
macro_rules! insert_version {
    ($tx:ident, $listing:expr, $version:expr, $statements:expr, $by:expr, $now:expr) => {{
        let listing: i64 = $listing;
        let (marks, documents) = ($crate::disclosure::ids_now!($tx, "damage_mark", listing), $crate::disclosure::ids_now!($tx, "statement_document", listing));
        sqlx::query("insert into disclosure (listing_id, version, statements, made_by, made_at, marks, documents) values ($1, $2, $3, $4, $5, $6, $7)")
            .bind(listing)
            .bind($version)
            .bind($statements)
            .bind($by)
            .bind($now)
            .bind(marks)
            .bind(documents)
            .execute(&mut *$tx)
            .await?;
    }};
}
pub(crate) use insert_version;

/// Inside a write transaction `$tx` that has just changed car `$listing`'s damage marks or
/// document photos: when the car has a statement, writes its next version — the same items, the
/// marks and documents as they are now — made by `$by` at `$now`.
macro_rules! restate {
    ($tx:ident, $listing:expr, $by:expr, $now:expr) => {{
        let (listing, by, now): (i64, i64, i64) = ($listing, $by, $now);
        let current: Option<(i32, String)> = sqlx::query_as("select version, statements from disclosure where listing_id = $1 order by version desc limit 1")
            .bind(listing)
            .fetch_optional(&mut *$tx)
            .await?;
        if let Some((version, statements)) = current {
            $crate::disclosure::insert_version!($tx, listing, version + 1, statements, by, now);
        }
    }};
}
pub(crate) use restate;

impl Store {
    /// A car's current statement (its newest version), if its seller made one.
    pub async fn disclosure_of(&self, listing_id: i64) -> Result<Option<Disclosure>, DbError> {
        let sql = format!("{COLUMNS} where listing_id = $1 order by version desc limit 1");
        let row: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(listing_id).fetch_optional(p).await?);
        Ok(row.map(disclosure))
    }

    /// One version of a car's statement (what a lead or a reservation was made against).
    pub async fn disclosure_version(&self, listing_id: i64, version: i32) -> Result<Option<Disclosure>, DbError> {
        let sql = format!("{COLUMNS} where listing_id = $1 and version = $2");
        let row: Option<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(version).fetch_optional(p).await?);
        Ok(row.map(disclosure))
    }

    /// Saves a car's statement, with the damage marks and documents it has now, as its next version and answers
    /// that version; the same statements saved again (a form sent twice) add nothing and answer
    /// the current version.
    pub async fn add_disclosure(&self, listing_id: i64, statements: &[(Statement, Check)], made_by: i64, now: i64) -> Result<i32, DbError> {
        let text = encode(statements);
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if backend == Backend::Postgres {
                // Two saves at once take turns on the car (SQLite's write lock does the same).
                sqlx::query("select listing_id from listing where listing_id = $1 for update").bind(listing_id).execute(&mut *tx).await?;
            }
            let current: Option<(i32, String, String, String)> =
                sqlx::query_as("select version, statements, marks, documents from disclosure where listing_id = $1 order by version desc limit 1")
                    .bind(listing_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let (marks, documents) = (ids_now!(tx, "damage_mark", listing_id), ids_now!(tx, "statement_document", listing_id));
            if let Some((version, ..)) = current.as_ref().filter(|(_, t, m, d)| *t == text && *m == marks && *d == documents) {
                return Ok(*version);
            }
            let version = current.map_or(1, |(v, ..)| v + 1);
            insert_version!(tx, listing_id, version, &text, made_by, now);
            tx.commit().await?;
            Ok(version)
        })
    }

    /// The document photos car `listing_id` has now (`None`), or those of `ids` whether removed or
    /// not (one version's), oldest first.
    pub async fn statement_documents(&self, listing_id: i64, ids: Option<&[i64]>) -> Result<Vec<StatementDocument>, DbError> {
        if ids.is_some_and(<[i64]>::is_empty) {
            return Ok(Vec::new());
        }
        let now_only = if ids.is_none() { " and removed_at is null" } else { "" };
        let sql = format!("select {DOCUMENT_COLUMNS} from statement_document where listing_id = $1{now_only} order by statement_document_id");
        // Read on the calling thread's reader: the car's page reads them.
        let rows: Vec<DocumentRead> = self.read_all(&sql, vec![crate::Val::Int(listing_id)]).await?;
        Ok(rows.into_iter().filter(|row| ids.is_none_or(|ids| ids.contains(&row.statement_document_id))).map(StatementDocument::from).collect())
    }

    /// Document photos staff have not compared yet, on cars with a statement that are not
    /// deleted, oldest first: each with its car's current statement.
    pub async fn documents_to_check(&self, limit: i64) -> Result<Vec<DocumentToCheck>, DbError> {
        let columns = DOCUMENT_COLUMNS.split(", ").map(|c| format!("sd.{c}")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "select {columns}, sd.listing_id, l.title, d.statements from statement_document sd join listing l on l.listing_id = sd.listing_id \
             join disclosure d on d.listing_id = sd.listing_id and d.version = (select max(version) from disclosure where listing_id = sd.listing_id) \
             where sd.finding = '' and sd.removed_at is null and l.status <> 'deleted' order by sd.statement_document_id limit $1"
        );
        type Row = (i64, String, String, String, String, String, String, i64, String, String);
        let rows: Vec<Row> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(limit).fetch_all(p).await?);
        rows.into_iter()
            .map(|(id, kind, path, finding, note, items, answers, listing_id, title, statements)| {
                let document = document((id, kind, path, finding, note, items, answers))?;
                Ok(DocumentToCheck { document, listing_id, title, statements: decode(&statements) })
            })
            .collect()
    }

    /// Staff member `staff` compared document photo `id` with its car's current statement: it
    /// shows what was stated (`differs` `None`), or something else on the items `wrong`. The
    /// answers compared are kept with the finding, which speaks only of them. `false` when it is
    /// removed or compared already.
    pub async fn check_document(&self, id: i64, staff: i64, differs: Option<(&str, &[domain::disclosure::Item])>, now: i64) -> Result<bool, DbError> {
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            let found: Option<(i64, String)> =
                sqlx::query_as("select listing_id, kind from statement_document where statement_document_id = $1 and finding = '' and removed_at is null")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some((listing_id, kind)) = found else { return Ok(false) };
            let kind = Document::decode("statement_document.kind", &kind)?;
            let statements: Option<String> =
                sqlx::query_scalar("select statements from disclosure where listing_id = $1 order by version desc limit 1")
                    .bind(listing_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some(statements) = statements else { return Ok(false) };
            let answers = DocumentFinding::encode_answers(&DocumentFinding::answers_of(&decode(&statements), kind));
            sqlx::query(
                "update statement_document set finding = $2, finding_note = $3, finding_items = $4, checked_answers = $5, checked_by = $6, checked_at = $7 \
                 where statement_document_id = $1",
            )
            .bind(id)
            .bind(if differs.is_some() { "differs" } else { "consistent" })
            .bind(differs.map_or("", |(note, _)| note))
            .bind(differs.map_or(String::new(), |(_, items)| items.iter().map(|i| i.as_str()).collect::<Vec<_>>().join(",")))
            .bind(answers)
            .bind(staff)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Adds a document photo to car `listing_id` of `user_id`, unless it has [`MAX_DOCUMENTS`]
    /// already, and writes the statement's next version when the car has one.
    pub async fn add_statement_document(&self, listing_id: i64, user_id: i64, kind: Document, photo_path: &str, now: i64) -> Result<DocumentAdded, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if !owned!(tx, backend, listing_id, user_id) {
                return Ok(DocumentAdded::NotFound);
            }
            let n: i64 = sqlx::query_scalar("select count(*) from statement_document where listing_id = $1 and removed_at is null")
                .bind(listing_id)
                .fetch_one(&mut *tx)
                .await?;
            if n >= MAX_DOCUMENTS as i64 {
                return Ok(DocumentAdded::Full);
            }
            let id: i64 = sqlx::query_scalar(
                "insert into statement_document (listing_id, kind, photo_path, made_by, created_at) values ($1, $2, $3, $4, $5) returning statement_document_id",
            )
            .bind(listing_id)
            .bind(kind.as_str())
            .bind(photo_path)
            .bind(user_id)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            restate!(tx, listing_id, user_id, now);
            tx.commit().await?;
            Ok(DocumentAdded::Added(id))
        })
    }

    /// Removes one of car `listing_id`'s damage marks (`table` `damage_mark`) or document photos
    /// (`statement_document`) for its owner `user_id`; `false` when it is not there (or not
    /// theirs). On a car with a statement it is kept for the versions that show it and the next
    /// version leaves it out; otherwise it is deleted (and its photo left to the orphan sweep).
    pub(crate) async fn remove_held(&self, table: &str, listing_id: i64, user_id: i64, id: i64, now: i64) -> Result<bool, DbError> {
        let backend = self.backend();
        on_writer!(self, p => {
            let mut tx = crate::begin_write!(self, p);
            if !owned!(tx, backend, listing_id, user_id) {
                return Ok(false);
            }
            let stated: i64 = sqlx::query_scalar("select count(*) from disclosure where listing_id = $1").bind(listing_id).fetch_one(&mut *tx).await?;
            let done = if stated > 0 {
                let sql = format!("update {table} set removed_at = $3 where {table}_id = $2 and listing_id = $1 and removed_at is null");
                sqlx::query(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(id).bind(now).execute(&mut *tx).await?
            } else {
                let sql = format!("delete from {table} where {table}_id = $2 and listing_id = $1");
                sqlx::query(sqlx::AssertSqlSafe(sql)).bind(listing_id).bind(id).execute(&mut *tx).await?
            }
            .rows_affected()
                > 0;
            if !done {
                return Ok(false);
            }
            restate!(tx, listing_id, user_id, now);
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Removes document photo `id` of car `listing_id` of `user_id` ([`Store::remove_held`]).
    pub async fn remove_statement_document(&self, listing_id: i64, user_id: i64, id: i64, now: i64) -> Result<bool, DbError> {
        self.remove_held("statement_document", listing_id, user_id, id, now).await
    }

    /// The statement's version a lead was left against.
    pub async fn lead_disclosure_version(&self, lead_id: i64) -> Result<Option<i32>, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar("select disclosure_version from lead where lead_id = $1").bind(lead_id).fetch_optional(p).await?).flatten())
    }
}
