//! Our inspections of 精品 listings, by listing or by report number; the findings decoded once
//! here.

use domain::inspection::Inspection;

use crate::{BadStored, DbError, Store, on_pool, on_writer};

/// One inspection as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectionRecord {
    /// The listing inspected.
    pub listing_id: i64,
    /// `JC…`, printed on the report.
    pub report_no: String,
    /// Who inspected it (name and number).
    pub inspector: String,
    /// When.
    pub inspected_at: i64,
    /// What was found.
    pub inspection: Inspection,
}

type Row = (i64, String, String, i64, String);

fn record((listing_id, report_no, inspector, inspected_at, json): Row) -> Result<InspectionRecord, DbError> {
    let inspection = serde_json::from_str(&json).map_err(|_| BadStored { column: "inspection.result_json", value: json.clone(), kind: "Inspection" })?;
    Ok(InspectionRecord { listing_id, report_no, inspector, inspected_at, inspection })
}

const COLUMNS: &str = "select listing_id, report_no, inspector, inspected_at, result_json from inspection";

impl Store {
    /// A listing's latest inspection.
    pub async fn inspection_of_listing(&self, listing_id: i64) -> Result<Option<InspectionRecord>, DbError> {
        let sql = format!("{COLUMNS} where listing_id = $1 order by inspected_at desc limit 1");
        let row: Option<Row> = on_pool!(self, p => {
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(listing_id).fetch_optional(p).await?
        });
        row.map(record).transpose()
    }

    /// An inspection by its report number.
    pub async fn inspection_by_no(&self, report_no: &str) -> Result<Option<InspectionRecord>, DbError> {
        let sql = format!("{COLUMNS} where report_no = $1");
        let row: Option<Row> = on_pool!(self, p => {
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(report_no).fetch_optional(p).await?
        });
        row.map(record).transpose()
    }

    /// Stores an inspection of a listing.
    pub async fn add_inspection(&self, listing_id: i64, inspector: &str, inspected_at: i64, inspection: &Inspection) -> Result<String, DbError> {
        let no = domain::inspection::report_no(listing_id, inspected_at);
        let json = serde_json::to_string(inspection).unwrap_or_else(|_| "{\"findings\":[]}".to_owned());
        on_writer!(self, p => {
            sqlx::query("insert into inspection (listing_id, report_no, inspector, inspected_at, result_json) values ($1, $2, $3, $4, $5)")
                .bind(listing_id).bind(&no).bind(inspector).bind(inspected_at).bind(&json).execute(p).await?;
        });
        Ok(no)
    }
}
