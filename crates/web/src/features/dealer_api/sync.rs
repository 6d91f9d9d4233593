//! The dealer centre's 库存同步 (`/space/stock-sync`): the address where the shop's dealer system
//! publishes its stock (Meta's automotive inventory feed, `domain::stock_feed`), read every night
//! at 03:00 Beijing time, and on the page when the dealer asks.
//!
//! A reading is a stock import (`import.rs`): the feed is turned into the template's sheet and
//! planned against the shop's cars. The nightly reading applies it when every row is clean and
//! it takes down no more than the guard allows — undoable for a day like any import —, and
//! otherwise keeps it as a preview and tells the owner by SMS; a reading asked for on the page is
//! always a preview, applied by the dealer.
//!
//! A reading that found the shop in step with the feed (or held it for wrong rows or too many
//! removals) keeps the feed's validators and the shop's stock mark; the next one asks for the
//! feed only if it changed since, and only while no car of the shop changed either (else a hand
//! edit on the site would outlive the feed's word): most nights a dealer's system answers
//! `304 Not Modified`, nothing is read or planned, and a held sync is not told again.

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use domain::stock_feed::{self as feed, SyncOutcome};
use domain::stock_import::{self as rules, COLUMNS, ImportStatus, Sheet};

use super::import::{self, Applied};
use crate::adapters::stock_feed::{FEED_WAIT, Fetched, StockFeed, Validators};
use crate::auth::access::Dealer;
use crate::auth::signin::see_other;
use crate::features::dealers::shop_head::ShopHead;
use crate::http::error::AppError;
use crate::http::extract::Query;
use crate::http::routes::{Access, Routes};
use crate::http::visitor::Visitor;
use crate::render::meta::{Layout, PageMeta};
use crate::services::outbound::{self, Reach};
use crate::state::AppState;

/// Readings a shop may ask for on the page in an hour (each fetches the feed).
const READS_PER_HOUR: i64 = 10;

/// Shops read in one ten-minute round; the rest wait for the next round.
const SHOPS_PER_ROUND: i64 = 20;

/// The longest feed address kept.
const URL_MAX_CHARS: usize = 500;

/// How a reading went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The outcome.
    pub outcome: SyncOutcome,
    /// What it says (Chinese).
    pub message: String,
    /// The import it made.
    pub import_id: Option<i64>,
    /// For the owner's SMS when a nightly reading is held: 数据有误, 下架过多, 无法读取.
    reason: &'static str,
    /// What the next reading sends to ask for the feed only if it changed: set when this one
    /// found the shop in step with a feed that came with validators, or held it for rows or a
    /// removal that only a change can resolve.
    in_step: Option<store::InStep>,
}

impl Reading {
    /// As the store records it.
    fn finished(&self) -> store::Finished<'_> {
        store::Finished { outcome: self.outcome, message: &self.message, import_id: self.import_id, in_step: self.in_step.as_ref() }
    }

    fn failed(message: String) -> Reading {
        Reading { outcome: SyncOutcome::Failed, message, import_id: None, reason: "无法读取", in_step: None }
    }
}

/// The shop a reading is for.
struct Shop {
    shop_id: i64,
    owner: i64,
    contact: String,
}

/// Whether `url` can be a feed's address: as the feed adapter will fetch it (the sandbox, which
/// fetches nothing, takes any `http(s)` address); the reason is Chinese.
async fn check(state: &AppState, url: &str) -> Result<(), String> {
    match state.adapters.stock_feed {
        StockFeed::Sandbox => match reqwest::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "https" | "http") && u.host_str().is_some() => Ok(()),
            _ => Err("库存数据地址须是以 https:// 开头的网址".to_owned()),
        },
        StockFeed::Feed => outbound::pinned(url, Reach::of(state.config.env), "库存数据地址", FEED_WAIT).await.map(|_| ()),
    }
}

/// The feed at `url`, through the adapter (only if it changed since `since`, when given).
async fn fetch(state: &AppState, url: &str, since: Option<&Validators>) -> Result<Fetched, String> {
    let pinned = match state.adapters.stock_feed {
        StockFeed::Sandbox => None,
        StockFeed::Feed => Some(outbound::pinned(url, Reach::of(state.config.env), "库存数据地址", FEED_WAIT).await?),
    };
    state.adapters.stock_feed.fetch(pinned, since).await
}

/// Reads the shop's feed into an import and, when `nightly` and it is clean and within the
/// guard, applies it; at night, asks for the feed only if it changed, when the last reading found
/// the shop in step with it (or held it for good) and none of the shop's cars changed since.
async fn read(state: &AppState, shop: &Shop, sync: &store::StockSync, nightly: bool) -> Result<Reading, AppError> {
    let now = state.clock.now();
    // Taken before the shop's cars are read for the plan: a car changed after it moves the mark,
    // so the next reading reads the feed whole.
    let mark = state.store.stock_mark(shop.shop_id).await?;
    // A reading the dealer asks for on the page reads the feed whole: they asked to see it now.
    let since = sync.in_step.as_ref().filter(|s| nightly && s.stock_mark == mark);
    let sent = since.map(|s| Validators { etag: s.etag.clone(), modified: s.modified.clone() });
    let mut came = Validators::default();
    let sheet = match fetch(state, &sync.feed_url, sent.as_ref()).await {
        Err(why) => return Ok(Reading::failed(why)),
        // Nothing changed on either side since the last reading: what it found stands.
        Ok(Fetched::NotModified) if sync.outcome == Some(SyncOutcome::Held) => {
            let message = "库存数据和本店车辆都没有变化，上次读取发现的问题仍在：请查看上次的预览，或在车商系统中改正".to_owned();
            return Ok(Reading { outcome: SyncOutcome::Held, message, import_id: sync.import_id, reason: "", in_step: since.cloned() });
        }
        Ok(Fetched::NotModified) => {
            let message = "库存数据自上次同步以来没有变化，本店车辆也没有改动，无需更新".to_owned();
            return Ok(Reading { outcome: SyncOutcome::Unchanged, message, import_id: None, reason: "", in_step: since.cloned() });
        }
        Ok(Fetched::ShopStock) => {
            let mut rows = vec![COLUMNS.iter().map(rules::template_header).collect()];
            rows.extend(import::stock_rows(state, shop.shop_id).await?);
            Sheet { rows, first_line: 1 }
        }
        Ok(Fetched::Body(bytes, validators)) => {
            came = validators;
            let read = tokio::task::spawn_blocking(move || read_feed(&bytes).and_then(|s| feed::to_sheet(&s)))
                .await
                .map_err(|e| AppError::Internal(format!("reading a stock feed: {e}")))?;
            match read {
                Ok(sheet) => sheet,
                Err(why) => return Ok(Reading::failed(why)),
            }
        }
    };
    let (rows, given) = match rules::read_feed_rows(&sheet) {
        Ok(r) => r,
        Err(why) => return Ok(Reading::failed(why)),
    };
    // What the next night sends to ask for the feed only if it changed, should this reading
    // leave the shop in step with it (or held for good).
    let seen = (!came.is_empty()).then_some(store::InStep { etag: came.etag, modified: came.modified, stock_mark: mark });
    let mut plan = import::plan(state, shop.shop_id, &rows, &given, &shop.contact).await?;
    plan.from_feed = true;
    let refused = plan.count("refused");
    if refused == 0 && plan.count("create") == 0 && plan.count("update") == 0 && plan.gone() == 0 {
        let bare = match plan.bare() {
            0 => String::new(),
            n => format!("；另有{n}辆在售车没有填车架号，同步不会改动它们"),
        };
        let message = format!("库存数据与本店有车架号的{}辆车一致，没有需要更新的{bare}", plan.count("same"));
        return Ok(Reading { outcome: SyncOutcome::Unchanged, message, import_id: None, reason: "", in_step: seen });
    }
    let json = serde_json::to_string(&plan).map_err(|e| AppError::Internal(format!("keeping a stock feed's plan: {e}")))?;
    let name = format!("库存同步 {}", &domain::time::datetime(now)[..16]);
    let id = state.store.create_stock_import(shop.shop_id, shop.owner, &name, &json, now).await?;
    // Held for what only a change to the feed or to the shop can resolve (`stuck`): while neither
    // changes, later nights find the same and neither make another preview nor tell the owner again.
    let held = |message: String, reason: &'static str, stuck: bool| {
        Ok(Reading { outcome: SyncOutcome::Held, message, import_id: Some(id), reason, in_step: seen.clone().filter(|_| stuck) })
    };
    if refused > 0 {
        return held(format!("{refused}辆车的数据有误，没有同步：请在预览中查看标红的行，在车商系统中改正"), "数据有误", true);
    }
    if plan.guarded() {
        let message = format!("将下架{}辆车，超过在售车辆的{}%，没有自动同步：请核对后在预览中确认", plan.gone(), rules::GUARD_PERCENT);
        return held(message, "下架过多", true);
    }
    if !nightly {
        return held(format!("已读取：{}。请在预览中确认后导入", import::summary(&plan)), "", false);
    }
    // Applied as the 确认导入 button applies it, claimed first like a click.
    if !state.store.move_stock_import(id, ImportStatus::Previewed, ImportStatus::Applied, now, 0).await? {
        return held("这次同步已在处理中".to_owned(), "", false);
    }
    let summary = import::summary(&plan);
    let task = tokio::spawn(import::run_apply(state.clone(), shop.owner, shop.shop_id, id, plan, now));
    match task.await.map_err(|e| AppError::Internal(format!("applying stock import {id}: {e}")))?? {
        // The cars it wrote moved the mark: the next reading reads the feed whole and, finding the
        // shop in step, keeps what it sees.
        Applied::Written => {
            Ok(Reading { outcome: SyncOutcome::Applied, message: format!("已同步：{summary}"), import_id: Some(id), reason: "", in_step: None })
        }
        Applied::PhotosFailed => held("部分新车的照片无法下载，没有同步：请在预览中查看标红的行".to_owned(), "数据有误", false),
    }
}

/// The most distinct fields read from an XML feed (a feed's fields and each photo's address).
const XML_MAX_FIELDS: usize = 400;

/// Fields of Meta's XML form that repeat: each is indexed as the CSV form flattens it
/// (`image[0].url`, `image[0].tag[1]`).
const XML_LISTS: &[&str] = &["image", "tag"];

/// A feed's bytes as rows of text cells: CSV or TSV, or Meta's XML form (`<listings>` of
/// `<listing>`s) flattened into the columns the CSV form names (`mileage.value`,
/// `image[0].url`, an address's `<component name="city">` as `address.city`).
fn read_feed(bytes: &[u8]) -> Result<Sheet, String> {
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if text.trim_ascii_start().starts_with(b"<") { read_xml_feed(text) } else { import::read_delimited(bytes) }
}

/// Meta's XML feed form as a sheet: a header of every field path met, in the order met, and a
/// row for each `<listing>`. No document type or entity of the feed's own is read (quick-xml
/// expands only XML's five and character references), so a feed cannot make the reader fetch
/// or grow anything.
fn read_xml_feed(bytes: &[u8]) -> Result<Sheet, String> {
    use quick_xml::events::Event;
    use std::collections::HashMap;
    let text = std::str::from_utf8(bytes).map_err(|_| "XML 格式的库存数据须为 UTF-8 编码".to_owned())?;
    // Text is trimmed per field, not per event: an entity splits a field's text into events.
    let mut reader = quick_xml::Reader::from_str(text);
    let mut columns: Vec<String> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut listings: Vec<Vec<(usize, String)>> = Vec::new();
    // Inside a listing: its fields so far, the path of elements open below it, and for each open
    // element how many children of each list name it has had.
    let mut fields: Option<Vec<(usize, String)>> = None;
    let mut path: Vec<String> = Vec::new();
    let mut counts: Vec<HashMap<String, usize>> = Vec::new();
    let mut value = String::new();
    loop {
        let event = reader.read_event().map_err(|_| format!("库存数据不是有效的 XML（约第{}个字节处），请检查车商系统导出的格式", reader.error_position()))?;
        match event {
            Event::Eof if fields.is_some() => return Err("库存数据不完整：在一辆车的中间就结束了，可能没有下载完，请稍后重试".to_owned()),
            Event::Eof => break,
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_lowercase();
                if fields.is_none() {
                    if name == "listing" {
                        fields = Some(Vec::new());
                        counts = vec![HashMap::new()];
                    }
                    continue;
                }
                let named = (name == "component").then(|| e.try_get_attribute("name").ok().flatten()).flatten();
                let segment = match named.and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok().map(|v| v.trim().to_lowercase())) {
                    Some(component) => component,
                    None if XML_LISTS.contains(&name.as_str()) => {
                        let n = counts.last_mut().map(|c| c.entry(name.clone()).or_insert(0)).map_or(0, |n| {
                            *n += 1;
                            *n - 1
                        });
                        format!("{name}[{n}]")
                    }
                    None => name,
                };
                path.push(segment);
                counts.push(HashMap::new());
                value.clear();
            }
            Event::Text(t) if fields.is_some() => value.push_str(&t.xml10_content()),
            Event::CData(c) if fields.is_some() => value.push_str(&c.xml10_content()),
            Event::GeneralRef(r) if fields.is_some() => match r.resolve_char_ref() {
                Ok(Some(c)) => value.push(c),
                _ => value.push_str(quick_xml::escape::resolve_predefined_entity(&r).unwrap_or("")),
            },
            Event::End(_) => {
                let Some(got) = fields.as_mut() else { continue };
                if path.is_empty() {
                    listings.extend(fields.take());
                    if listings.len() > rules::MAX_ROWS {
                        return Err(import::too_many_rows());
                    }
                    continue;
                }
                let text = value.trim();
                if !text.is_empty() {
                    let key = path.join(".");
                    let column = match at.get(&key) {
                        Some(&i) => i,
                        None if columns.len() >= XML_MAX_FIELDS => return Err(format!("库存数据的字段超过{XML_MAX_FIELDS}个，请只导出车辆的字段")),
                        None => {
                            columns.push(key.clone());
                            at.insert(key, columns.len() - 1);
                            columns.len() - 1
                        }
                    };
                    got.push((column, text.to_owned()));
                }
                value.clear();
                path.pop();
                counts.pop();
            }
            _ => {}
        }
    }
    if listings.is_empty() {
        return Err("XML 库存数据中没有车辆：每辆车应是一个 <listing> 元素".to_owned());
    }
    let mut rows = Vec::with_capacity(listings.len() + 1);
    for listing in &listings {
        let mut row = vec![String::new(); columns.len()];
        for (i, v) in listing {
            row[*i].clone_from(v);
        }
        rows.push(row);
    }
    rows.insert(0, columns);
    Ok(Sheet { rows, first_line: 1 })
}

/// The shop a dealer's reading is for.
fn shop_of(dealer: &ShopHead, user: &store::User) -> Shop {
    Shop { shop_id: dealer.shop_id, owner: user.user_id, contact: import::shop_contact(dealer, user) }
}

/// The nightly round: reads every shop whose sync is due (at most [`SHOPS_PER_ROUND`]), each
/// moved to the next night before it is read; tells an owner whose reading was not applied.
/// How many shops were read.
pub async fn nightly(state: &AppState) -> Result<usize, AppError> {
    let now = state.clock.now();
    let due = state.store.claim_due_stock_syncs(now, feed::next_nightly(now), SHOPS_PER_ROUND).await?;
    for sync in &due {
        // A shop without an owner, or an owner without this shop, has no one to read for.
        let Some(owner_id) = state.store.shop_owner_id(sync.shop_id).await? else { continue };
        let Some(dealer) = ShopHead::of_owner(state, owner_id).await?.filter(|d| d.shop_id == sync.shop_id) else { continue };
        let owner = state.store.user(owner_id).await?;
        let reading = match read(state, &shop_of(&dealer, &owner), sync, true).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(shop = sync.shop_id, error = ?e, "a stock sync failed");
                Reading::failed("同步时出现内部错误，已记录，将在下一晚重试".to_owned())
            }
        };
        state.store.finish_stock_sync(sync.shop_id, now, true, &reading.finished()).await?;
        tracing::info!(shop = sync.shop_id, outcome = reading.outcome.as_str(), message = %reading.message, "stock sync read");
        if !reading.reason.is_empty()
            && let Some(mobile) = owner.mobile.as_deref()
            && let Err(e) = state.adapters.sms.send_stock_sync_held(mobile, reading.reason).await
        {
            tracing::warn!(shop = sync.shop_id, error = %e, "a held stock sync not told by SMS");
        }
    }
    Ok(due.len())
}

#[derive(Template)]
#[template(path = "dealer_api/sync.html")]
struct SyncPage {
    page: PageMeta,
    dealer: ShopHead,
    /// The address as kept or typed.
    url: String,
    url_error: Option<String>,
    notice: Option<String>,
    sync: Option<SyncView>,
    /// The latest readings, newest first (同步记录).
    readings: Vec<ReadingView>,
    sandbox: bool,
}

/// One reading as the 同步记录 lists it.
struct ReadingView {
    when: String,
    how: &'static str,
    outcome: &'static str,
    ok: bool,
    message: String,
    import_id: Option<i64>,
}

/// Readings the page lists.
const READINGS_SHOWN: i64 = 14;

/// The sync as the page shows it.
struct SyncView {
    next: String,
    last: Option<String>,
    outcome: &'static str,
    ok: bool,
    message: String,
    import_id: Option<i64>,
}

async fn render(
    state: &AppState,
    visitor: &Visitor,
    dealer: ShopHead,
    url: Option<String>,
    url_error: Option<String>,
    notice: Option<String>,
) -> Result<Response, AppError> {
    let (kept, readings) = tokio::try_join!(state.store.stock_sync(dealer.shop_id), state.store.stock_sync_readings(dealer.shop_id, READINGS_SHOWN))?;
    let readings = readings
        .into_iter()
        .map(|r| ReadingView {
            when: domain::time::datetime(r.read_at)[5..16].to_owned(),
            how: if r.nightly { "每晚" } else { "立即读取" },
            outcome: r.outcome.label(),
            ok: matches!(r.outcome, SyncOutcome::Applied | SyncOutcome::Unchanged),
            message: r.message,
            import_id: r.import_id,
        })
        .collect();
    let url = url.or_else(|| kept.as_ref().map(|s| s.feed_url.clone())).unwrap_or_default();
    let sync = kept.map(|s| SyncView {
        next: domain::time::datetime(s.next_at)[..16].to_owned(),
        last: s.last_at.map(|t| domain::time::datetime(t)[..16].to_owned()),
        outcome: s.outcome.map_or("", SyncOutcome::label),
        ok: matches!(s.outcome, Some(SyncOutcome::Applied | SyncOutcome::Unchanged)),
        message: s.message,
        import_id: s.import_id,
    });
    let status = if url_error.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let mut page = PageMeta::for_visitor(state, visitor, Layout::Dealer, "库存同步");
    page.private();
    let sandbox = state.adapters.stock_feed == StockFeed::Sandbox;
    let tpl = SyncPage { page, dealer, url, url_error, notice, sync, readings, sandbox };
    let mut res = Html(tpl.render()?).into_response();
    *res.status_mut() = status;
    Ok(res)
}

/// `GET /space/stock-sync`.
pub async fn page(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, Query(q): Query<super::Done>) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let notice = match q.done.as_str() {
        "saved" => Some("已保存：每晚3点读取一次库存数据。可以先点“立即读取”看看会发生什么。".to_owned()),
        "stopped" => Some("已停止库存同步，车源不会再按库存数据更新。".to_owned()),
        _ => None,
    };
    render(&state, &visitor, dealer, None, None, notice).await
}

/// `POST /space/stock-sync` (`feed_url`): sets the address, read next at 03:00.
pub async fn save(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer, body: Bytes) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let url: String = form_urlencoded::parse(&body).find(|(k, _)| k == "feed_url").map(|(_, v)| v.trim().to_owned()).unwrap_or_default();
    let error = if url.is_empty() {
        Some("请填写库存数据地址".to_owned())
    } else if url.chars().count() > URL_MAX_CHARS {
        Some(format!("地址不能超过{URL_MAX_CHARS}个字符"))
    } else {
        check(&state, &url).await.err()
    };
    if let Some(e) = error {
        let kept: String = url.chars().take(URL_MAX_CHARS + 20).collect();
        return render(&state, &visitor, dealer, Some(kept), Some(e), None).await;
    }
    let now = state.clock.now();
    state.store.save_stock_sync(dealer.shop_id, &url, feed::next_nightly(now), now).await?;
    Ok(see_other("/space/stock-sync?done=saved", Vec::new()))
}

/// `POST /space/stock-sync/read`: reads the feed now, into a preview the dealer applies.
pub async fn read_now(State(state): State<AppState>, visitor: Visitor, Dealer(user): Dealer) -> Result<Response, AppError> {
    let dealer = ShopHead::of_owner(&state, user.user_id).await?.ok_or(AppError::NotFound)?;
    let Some(sync) = state.store.stock_sync(dealer.shop_id).await? else { return Ok(see_other("/space/stock-sync", Vec::new())) };
    let now = state.clock.now();
    let counter = format!("stock-sync:{}", dealer.shop_id);
    if let Some(refused) = state.store.throttle(&[(counter.as_str(), domain::limit::Limit::per_hour(READS_PER_HOUR))], now).await? {
        let wait = (refused.retry_after + 59) / 60;
        let notice = format!("每小时最多立即读取{READS_PER_HOUR}次，请{wait}分钟后再试");
        return render(&state, &visitor, dealer, None, None, Some(notice)).await;
    }
    let reading = read(&state, &shop_of(&dealer, &user), &sync, false).await?;
    state.store.finish_stock_sync(dealer.shop_id, now, false, &reading.finished()).await?;
    match reading.import_id {
        Some(id) => Ok(see_other(&format!("/space/stock-import/{id}"), Vec::new())),
        None => Ok(see_other("/space/stock-sync?done=read", Vec::new())),
    }
}

/// `POST /space/stock-sync/stop`.
pub async fn stop(State(state): State<AppState>, Dealer(user): Dealer) -> Result<Response, AppError> {
    let shop = state.store.own_shop(user.user_id).await?;
    state.store.drop_stock_sync(shop.shop_id).await?;
    Ok(see_other("/space/stock-sync?done=stopped", Vec::new()))
}

/// This module's routes.
pub fn routes(r: &mut Routes) {
    r.get(Access::Dealer, "/space/stock-sync", page);
    r.post(Access::Dealer, "/space/stock-sync", save);
    r.post(Access::Dealer, "/space/stock-sync/read", read_now);
    r.post(Access::Dealer, "/space/stock-sync/stop", stop);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Meta's sample listing, in Chinese, with what XML allows around it: a declaration, a
    /// comment, CDATA, entities and an empty element.
    const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<listings>
  <title>武汉宏达二手车</title>
  <link rel="self" href="https://dms.example.com"/>
  <!-- 每辆在售车一个 listing -->
  <listing>
    <vehicle_id>A1</vehicle_id>
    <vin>LSVAB12C8E4567890</vin>
    <make>大众</make>
    <model>朗逸</model>
    <year>2021</year>
    <trim>舒适版</trim>
    <mileage><value>32000</value><unit>KM</unit></mileage>
    <price>98,000 CNY</price>
    <exterior_color>White</exterior_color>
    <transmission>AUTOMATIC</transmission>
    <address format="simple">
      <component name="addr1">汉阳大道88号</component>
      <component name="city">上海</component>
    </address>
    <description><![CDATA[一手车 <原版原漆>]]> &amp; 全程4S保养&#x3002;</description>
    <image><url>https://p.example/1.jpg</url><tag>外观</tag></image>
    <image><url>https://p.example/2.jpg</url></image>
    <registration_date>2021-06</registration_date>
    <emission_standard>国六</emission_standard>
    <availability>AVAILABLE</availability>
    <drivetrain/>
  </listing>
  <listing>
    <vin>LSVAB12C8E4567891</vin>
    <availability>NOT_AVAILABLE</availability>
  </listing>
</listings>"#;

    #[test]
    fn an_xml_feed_reads_as_its_flattened_csv_form() {
        let xml = read_feed(XML.as_bytes()).expect("a feed");
        let tsv = "vehicle_id\tvin\tmake\tmodel\tyear\ttrim\tmileage.value\tmileage.unit\tprice\texterior_color\ttransmission\taddress.addr1\taddress.city\tdescription\timage[0].url\timage[0].tag[0]\timage[1].url\tregistration_date\temission_standard\tavailability\n\
                   A1\tLSVAB12C8E4567890\t大众\t朗逸\t2021\t舒适版\t32000\tKM\t98,000 CNY\tWhite\tAUTOMATIC\t汉阳大道88号\t上海\t一手车 <原版原漆> & 全程4S保养。\thttps://p.example/1.jpg\t外观\thttps://p.example/2.jpg\t2021-06\t国六\tAVAILABLE\n\
                   \tLSVAB12C8E4567891\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\tNOT_AVAILABLE\n";
        let flat = read_feed(tsv.as_bytes()).expect("a feed");
        assert_eq!(xml.rows, flat.rows);
        let (a, b) = (feed::to_sheet(&xml).unwrap(), feed::to_sheet(&flat).unwrap());
        assert_eq!(a.rows, b.rows);
        assert_eq!(a.rows[1][1], "大众 朗逸");
        assert!(a.rows[2].iter().all(String::is_empty), "a car not on offer is a blank row");
        // With a byte-order mark, as some systems write it.
        let marked = [b"\xef\xbb\xbf".as_slice(), XML.as_bytes()].concat();
        assert_eq!(read_feed(&marked).unwrap().rows, xml.rows);
    }

    #[test]
    fn a_broken_or_hostile_xml_feed_is_refused_with_a_reason() {
        let refused = |xml: &str| read_feed(xml.as_bytes()).expect_err(xml);
        assert!(refused("<listings><listing><vin>L1</listing></listings>").contains("不是有效的 XML"));
        assert!(refused("<listings><title>空</title></listings>").contains("<listing>"));
        // An entity of the feed's own is neither fetched nor expanded.
        let xxe = r#"<?xml version="1.0"?><!DOCTYPE l [<!ENTITY x SYSTEM "file:///etc/passwd">]><listings><listing><vin>&x;</vin></listing></listings>"#;
        let sheet = read_feed(xxe.as_bytes()).unwrap();
        assert!(sheet.rows.concat().iter().all(|c| !c.contains("root")), "{:?}", sheet.rows);
        assert!(feed::to_sheet(&sheet).is_err(), "no car without its VIN");
        let many = format!("<listings>{}</listings>", "<listing><vin>L1</vin></listing>".repeat(rules::MAX_ROWS + 1));
        assert!(refused(&many).contains("最多"));
        assert!(refused("<listings><listing><vin>L1</vin>").contains("不完整"), "a feed cut off mid-way");
    }
}
