//! Vehicle-history data: the four products (维保, 出险, 车辆状态, 里程) of a VIN. Providers answer
//! asynchronously (a query becomes a provider task whose report comes later), so the interface
//! does too: [`ReportData::submit`] answers with the record at once or with a task, and the task's
//! answer comes by a signed push ([`ReportData::verify_push`]) or by asking
//! ([`ReportData::result`]).
//!
//! - `sandbox`: the record `domain::report::sandbox_record` builds from the VIN, at once.
//! - `jumdata`: 聚美智数's protocol. Requests are form posts carrying `appId`, `timestamp` (Unix
//!   milliseconds) and `sign` = hex SHA-256 of `appId + appSecret + timestamp`, with the `vin`,
//!   the products wanted (`items`) and our `notifyUrl`; answers are a JSON envelope whose `code`
//!   200 is success (`taskNo`, and `data` once the report exists; 202 while it is being made).
//!   The report is pushed to `notifyUrl` as a JSON body with a `sign` header = hex SHA-256 of
//!   `appSecret + body`; a push whose signature does not match is refused.

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::{AdapterError, json_int as int, json_text as text};
use crate::config::{Config, ReportAdapter, Secret};
use domain::report::{Battery, Claim, Flags, Kind, OdometerReading, Product, Record, Service};
use domain::validate::Vin;

/// What the provider says about a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The report.
    Ready(Record),
    /// Being made: the provider's task number.
    Pending(String),
    /// The provider cannot answer this VIN (no data, not a VIN it knows); asking again will not
    /// help.
    Failed(String),
}

/// A verified push: the task and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    /// The provider's task number.
    pub task: String,
    /// Its answer.
    pub answer: Answer,
}

/// The vehicle-history adapter chosen by `report.adapter`.
#[derive(Debug)]
pub enum ReportData {
    /// Records built from the VIN.
    Sandbox,
    /// 聚美智数.
    Jumdata(Jumdata),
}

/// 聚美智数 settings.
#[derive(Debug)]
pub struct Jumdata {
    endpoint: String,
    result_endpoint: String,
    app_id: String,
    app_secret: Secret,
    client: reqwest::Client,
}

/// A request's `sign`: hex SHA-256 of `appId + appSecret + timestamp`.
pub fn request_sign(app_id: &str, app_secret: &str, timestamp_ms: i64) -> String {
    hex::encode(Sha256::digest(format!("{app_id}{app_secret}{timestamp_ms}")))
}

/// A push's `sign` header: hex SHA-256 of `appSecret + body`.
pub fn push_sign(app_secret: &str, body: &str) -> String {
    let mut h = Sha256::new();
    h.update(app_secret.as_bytes());
    h.update(body.as_bytes());
    hex::encode(h.finalize())
}

impl ReportData {
    /// The adapter the configuration names.
    pub fn from_config(config: &Config, client: reqwest::Client) -> ReportData {
        match config.report.adapter {
            ReportAdapter::Sandbox => ReportData::Sandbox,
            ReportAdapter::Jumdata => ReportData::Jumdata(Jumdata {
                endpoint: config.report.endpoint.clone(),
                result_endpoint: config.report.result_endpoint.clone(),
                app_id: config.report.app_id.clone(),
                app_secret: config.report.app_secret.clone(),
                client,
            }),
        }
    }

    /// The data's source, as reports name it.
    pub fn source(&self) -> &'static str {
        match self {
            ReportData::Sandbox => domain::report::SANDBOX_SOURCE,
            ReportData::Jumdata(_) => "聚美智数",
        }
    }

    /// The records a listing's VIN trust panel summarises, where this source gives them at
    /// publication: the sandbox's records of the VIN (with its battery for a car that has one).
    /// The provider sells each query and answers later, so with it a listing has no panel.
    pub fn panel_record(&self, vin: &Vin, battery: bool, now: i64) -> Option<Record> {
        match self {
            ReportData::Sandbox => {
                Some(Record { battery: battery.then(|| domain::battery::sandbox_battery(vin, now)), ..domain::report::sandbox_record(vin, now) })
            }
            ReportData::Jumdata(_) => None,
        }
    }

    /// Asks for `product` of `vin`; the provider pushes the report to `notify_url`.
    pub async fn submit(&self, vin: &Vin, product: Product, notify_url: &str, now: i64) -> Result<Answer, AdapterError> {
        let j = match self {
            ReportData::Sandbox => {
                let battery = product.kinds().contains(&Kind::Battery).then(|| domain::battery::sandbox_battery(vin, now));
                return Ok(Answer::Ready(Record { battery, ..domain::report::sandbox_record(vin, now) }));
            }
            ReportData::Jumdata(j) => j,
        };
        let items = product.kinds().iter().map(|k| k.as_str()).collect::<Vec<_>>().join(",");
        let reply = j.post(&j.endpoint, &[("vin", vin.as_ref()), ("items", &items), ("notifyUrl", notify_url)], now).await?;
        answer_of(&reply)
    }

    /// Asks about a task.
    pub async fn result(&self, task: &str, now: i64) -> Result<Answer, AdapterError> {
        let j = match self {
            ReportData::Sandbox => return Err(AdapterError::Invalid("the sandbox answers at once")),
            ReportData::Jumdata(j) => j,
        };
        let reply = j.post(&j.result_endpoint, &[("taskNo", task)], now).await?;
        answer_of(&reply)
    }

    /// A push, if its `sign` header matches its body; `None` for anything else.
    pub fn verify_push(&self, sign: &str, body: &str) -> Option<Push> {
        let ReportData::Jumdata(j) = self else { return None };
        let expected = push_sign(j.app_secret.expose(), body);
        if !domain::auth::same_secret(&sign.trim().to_ascii_lowercase(), &expected) || j.app_secret.is_empty() {
            return None;
        }
        let reply: Value = serde_json::from_str(body).ok()?;
        let task = text(&reply["taskNo"]);
        if task.is_empty() {
            return None;
        }
        Some(Push { answer: answer_of(&reply).ok()?, task })
    }
}

impl Jumdata {
    async fn post(&self, url: &str, params: &[(&str, &str)], now: i64) -> Result<Value, AdapterError> {
        let ts = (now * 1_000).to_string();
        let sign = request_sign(&self.app_id, self.app_secret.expose(), now * 1_000);
        let mut form: Vec<(&str, &str)> = vec![("appId", self.app_id.as_str()), ("timestamp", ts.as_str()), ("sign", sign.as_str())];
        form.extend_from_slice(params);
        let body = super::query_string(&form);
        let res = self.client.post(url).header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded").body(body).send().await?;
        if !res.status().is_success() {
            return Err(AdapterError::Http(format!("history report: {}", res.status())));
        }
        Ok(res.json().await?)
    }
}

/// The envelope: 200 with data is the report, 200 or 202 without it a task being made; 400-class
/// codes mean this query can never succeed; anything else is the provider's trouble (retried).
fn answer_of(reply: &Value) -> Result<Answer, AdapterError> {
    let code = text(&reply["code"]);
    let task = text(&reply["taskNo"]);
    match code.as_str() {
        "200" if reply["data"].is_object() => Ok(Answer::Ready(decode(&reply["data"])?)),
        "200" | "202" if !task.is_empty() => Ok(Answer::Pending(task)),
        "400" | "404" | "410" => Ok(Answer::Failed(text(&reply["msg"]))),
        _ => Err(AdapterError::Provider { code, message: text(&reply["msg"]) }),
    }
}

/// The provider's report as our record: `maintenance` [{date, mileage, shopName, content}],
/// `claims` [{date, amount (fen), cause, parts}], `status` {mortgage, seizure, theft, scrap},
/// `mileage` [{date, mileage, source}], `battery` {ratedCapacity, usableCapacity (kWh), cycles,
/// cellVoltageDiff (mV), fastChargeRatio, method, testDate}. Dates keep their first ten
/// characters (`YYYY-MM-DD`).
pub fn decode(data: &Value) -> Result<Record, AdapterError> {
    let list = |key: &str| data[key].as_array().cloned().unwrap_or_default();
    let date = |v: &Value| {
        let d = text(v);
        if d.len() >= 7 && d.is_char_boundary(d.len().min(10)) { Ok(d[..d.len().min(10)].to_owned()) } else { Err(AdapterError::Decode(format!("date {d:?}"))) }
    };
    let mut services = Vec::new();
    for s in list("maintenance") {
        services.push(Service { date: date(&s["date"])?, km: int(&s["mileage"]), shop: text(&s["shopName"]), items: text(&s["content"]) });
    }
    let mut claims = Vec::new();
    for c in list("claims") {
        claims.push(Claim { date: date(&c["date"])?, amount_yuan: int(&c["amount"]) / 100, cause: text(&c["cause"]), parts: text(&c["parts"]) });
    }
    let st = &data["status"];
    let flags =
        Flags { mortgaged: int(&st["mortgage"]) != 0, seized: int(&st["seizure"]) != 0, stolen: int(&st["theft"]) != 0, scrapped: int(&st["scrap"]) != 0 };
    let mut readings = Vec::new();
    for r in list("mileage") {
        readings.push(OdometerReading { date: date(&r["date"])?, km: int(&r["mileage"]), source: text(&r["source"]) });
    }
    let b = &data["battery"];
    let battery = if b.is_object() {
        // Capacities in kWh with decimals, the fast-charge share as a fraction or a percentage.
        let wh = |v: &Value| v.as_f64().or_else(|| text(v).parse().ok()).map_or(0, |k: f64| (k * 1_000.0).round() as i64);
        let share = b["fastChargeRatio"].as_f64().or_else(|| text(&b["fastChargeRatio"]).parse().ok()).unwrap_or(0.0);
        Some(Battery {
            usable_wh: wh(&b["usableCapacity"]),
            rated_wh: wh(&b["ratedCapacity"]),
            cycles: int(&b["cycles"]),
            cell_spread_mv: int(&b["cellVoltageDiff"]),
            fast_charge_pct: if share <= 1.0 { (share * 100.0).round() as i64 } else { share.round() as i64 },
            method: text(&b["method"]),
            tested: date(&b["testDate"])?,
        })
    } else {
        None
    };
    services.sort_by(|a, b| a.date.cmp(&b.date));
    claims.sort_by(|a, b| a.date.cmp(&b.date));
    Ok(Record { services, claims, flags, readings, battery })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_as_the_provider_documents() {
        // sha256("xyzxy2121zxyz" + "efcefcef1121cefcefc1212121" + "1555378976238"), the
        // provider's own example inputs.
        let sign = request_sign("xyzxy2121zxyz", "efcefcef1121cefcefc1212121", 1_555_378_976_238);
        assert_eq!(sign, hex::encode(Sha256::digest(b"xyzxy2121zxyzefcefcef1121cefcefc12121211555378976238")));
        assert_eq!(sign.len(), 64);
        assert_ne!(push_sign("a", "b"), push_sign("b", "a"));
    }

    #[test]
    fn the_envelope_says_ready_pending_failed_or_trouble() {
        let pending: Value = serde_json::json!({"code": 200, "msg": "成功", "taskNo": "074388502348792558"});
        assert_eq!(answer_of(&pending).unwrap(), Answer::Pending("074388502348792558".into()));
        let making: Value = serde_json::json!({"code": "202", "taskNo": "9"});
        assert_eq!(answer_of(&making).unwrap(), Answer::Pending("9".into()));
        let bad: Value = serde_json::json!({"code": 400, "msg": "VIN无记录"});
        assert_eq!(answer_of(&bad).unwrap(), Answer::Failed("VIN无记录".into()));
        assert!(matches!(answer_of(&serde_json::json!({"code": 603, "msg": "余额不足"})), Err(AdapterError::Provider { .. })));
        let ready: Value = serde_json::json!({"code": 200, "taskNo": "9", "data": {
            "maintenance": [{"date": "2023-05-02 10:00:00", "mileage": "31200", "shopName": "长沙广汽丰田4S店", "content": "更换机油"},
                            {"date": "2021-03-01", "mileage": 12000, "shopName": "长沙广汽丰田4S店", "content": "首保"}],
            "claims": [{"date": "2022-08-09", "amount": 360_000, "cause": "追尾", "parts": "后保险杠"}],
            "status": {"mortgage": 1, "seizure": "0", "theft": false, "scrap": 0},
            "mileage": [{"date": "2021-03-01", "mileage": 12000, "source": "4S店保养"}]
        }});
        let Answer::Ready(r) = answer_of(&ready).unwrap() else { panic!("ready") };
        assert_eq!(r.services.iter().map(|s| (s.date.as_str(), s.km)).collect::<Vec<_>>(), [("2021-03-01", 12_000), ("2023-05-02", 31_200)]);
        assert_eq!((r.claims[0].amount_yuan, r.claims[0].cause.as_str()), (3_600, "追尾"));
        assert_eq!(r.flags, Flags { mortgaged: true, ..Flags::default() });
        assert_eq!(r.readings.len(), 1);
        assert_eq!(r.battery, None);
        let battery: Value = serde_json::json!({"code": 200, "taskNo": "10", "data": {"battery": {
            "ratedCapacity": 78.0, "usableCapacity": "71.6", "cycles": 412, "cellVoltageDiff": 18,
            "fastChargeRatio": 0.35, "method": "车载BMS数据读取", "testDate": "2026-11-20 09:30:00"}}});
        let Answer::Ready(r) = answer_of(&battery).unwrap() else { panic!("ready") };
        let b = r.battery.unwrap();
        assert_eq!((b.rated_wh, b.usable_wh, b.cycles, b.cell_spread_mv, b.fast_charge_pct), (78_000, 71_600, 412, 18, 35));
        assert_eq!((b.soh_text().as_str(), b.tested.as_str()), ("91.7%", "2026-11-20"));
        let broken: Value = serde_json::json!({"code": 200, "data": {"maintenance": [{"date": "x"}]}});
        assert!(answer_of(&broken).is_err(), "a report that cannot be read is not stored");
    }
}
