//! The harness of the black-box HTTP tests: the whole router over a seeded database (a fresh
//! SQLite file, or a fresh PostgreSQL database when one answers, each a copy of a template seeded
//! once per run), driven through
//! `tower::ServiceExt::oneshot` (no sockets), with a fixed clock.

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use domain::time::FixedClock;
use store::Store;
use tower::ServiceExt as _;
use web::config::{Config, Env};
use web::state::AppState;

/// 2026-11-21 10:30:15 China time.
pub const NOW: i64 = 1_795_228_215;
pub const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";
pub const DESKTOP: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36";

pub struct TestApp {
    pub state: AppState,
    cleanup: Cleanup,
    /// The app's own upload directory (removed on drop).
    pub upload_dir: std::path::PathBuf,
    /// The router over `state`, built on first use (building it is most of a small request).
    router: std::sync::OnceLock<Router>,
}

enum Cleanup {
    File(std::path::PathBuf),
    Database { admin_url: String, name: String },
}

impl Drop for TestApp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.upload_dir);
        match &self.cleanup {
            Cleanup::File(path) => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
                }
            }
            Cleanup::Database { admin_url, name } => {
                // Drop the database from a fresh runtime: Drop cannot await.
                let (admin_url, name) = (admin_url.clone(), name.clone());
                let _ = std::thread::spawn(move || {
                    let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                    rt.block_on(async {
                        if let Ok(admin) = Store::connect(&admin_url).await {
                            let _ = admin.execute_admin(&format!("drop database if exists {name} with (force)")).await;
                            admin.close().await;
                        }
                    });
                })
                .join();
            }
        }
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
    pub bytes: usize,
    /// The body as sent (a downloaded workbook is no text).
    pub raw: Vec<u8>,
}

impl Reply {
    /// The `Location` header.
    pub fn location(&self) -> &str {
        self.headers.get("location").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// Every `Set-Cookie` value.
    pub fn cookies(&self) -> Vec<String> {
        self.headers.get_all("set-cookie").iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect()
    }

    /// The JSON-LD documents of a page, parsed.
    pub fn json_ld(&self) -> Vec<serde_json::Value> {
        self.page().select(r#"script[type="application/ld+json"]"#).iter().map(|doc| serde_json::from_str(&doc.raw).unwrap()).collect()
    }

    /// The body parsed as an HTML document, to read with CSS selectors.
    pub fn page(&self) -> Page {
        Page::parse(&self.body)
    }
}

/// A page parsed the way a browser parses it, read with CSS selectors.
pub struct Page(scraper::Html);

/// One element a selector matched, copied out of its page.
pub struct Node {
    /// Its text, runs of whitespace collapsed to one space and the ends trimmed.
    pub text: String,
    /// Its text as written.
    pub raw: String,
    /// Its outer HTML.
    pub html: String,
    attrs: Vec<(String, String)>,
}

impl Node {
    /// The value of its attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

impl Page {
    pub fn parse(html: &str) -> Page {
        Page(scraper::Html::parse_document(html))
    }

    /// The elements `css` selects, in document order.
    pub fn select(&self, css: &str) -> Vec<Node> {
        let selector = scraper::Selector::parse(css).unwrap_or_else(|e| panic!("selector {css:?}: {e}"));
        self.0
            .select(&selector)
            .map(|e| Node {
                raw: e.text().collect(),
                text: e.text().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" "),
                html: e.html(),
                attrs: e.value().attrs().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
            })
            .collect()
    }

    /// The one element `css` selects; a failure when there is none or several.
    pub fn one(&self, css: &str) -> Node {
        let mut found = self.select(css);
        assert_eq!(found.len(), 1, "{css} selects one element");
        found.remove(0)
    }

    /// The text of each element `css` selects.
    pub fn texts(&self, css: &str) -> Vec<String> {
        self.select(css).into_iter().map(|n| n.text).collect()
    }

    /// Attribute `name` of each element `css` selects that has it.
    pub fn attrs(&self, css: &str, name: &str) -> Vec<String> {
        self.select(css).iter().filter_map(|n| n.attr(name).map(str::to_owned)).collect()
    }

    /// How many elements `css` selects.
    pub fn count(&self, css: &str) -> usize {
        self.select(css).len()
    }
}

/// Listing ids linked from a page, in order.
pub fn detail_links(body: &str) -> Vec<i64> {
    Page::parse(body).attrs(r#"a[href^="/details/"]"#, "href").iter().filter_map(|h| h["/details/".len()..].parse().ok()).collect()
}

fn unique() -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("usedcar_http_{}_{n}_{nanos}", std::process::id())
}

fn app_of(store: Store, cleanup: Cleanup) -> TestApp {
    let mut config = Config::defaults(Env::Development);
    let upload_dir = std::env::temp_dir().join(format!("{}-upload", unique()));
    config.upload.dir = upload_dir.to_string_lossy().into_owned();
    TestApp { state: AppState::with_clock(config, store, Box::new(FixedClock(NOW))), cleanup, upload_dir, router: std::sync::OnceLock::new() }
}

/// Migrates a fresh database and seeds `listings` demo listings into it.
async fn migrate_and_seed(store: &Store, listings: usize) {
    store.migrate().await.unwrap();
    if listings > 0 {
        store::seed::seed(store, store::seed::SeedConfig { listings, seed: 3, now: NOW }).await.unwrap();
    }
}

/// The seeded databases of this run, one per backend and listing count: each is migrated and
/// seeded once, then copied for every test that asks for it (a file copy on SQLite, `create
/// database … template` on PostgreSQL), which is what the suite spent most of its time on.
static TEMPLATES: tokio::sync::Mutex<Vec<(bool, usize, String)>> = tokio::sync::Mutex::const_new(Vec::new());

/// The name templates of this run share; a run that died leaves ones another run removes.
fn template_prefix() -> String {
    format!("usedcar_tmpl_{}_", std::process::id())
}

/// Whether a template name belongs to a run that is gone.
fn orphaned(name: &str) -> bool {
    let pid = name.strip_prefix("usedcar_tmpl_").and_then(|rest| rest.split('_').next()).and_then(|p| p.parse::<u32>().ok());
    pid.is_some_and(|pid| pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists())
}

/// The SQLite template file with `listings`, made on first use.
async fn sqlite_template(listings: usize) -> String {
    let mut made = TEMPLATES.lock().await;
    if let Some((_, _, path)) = made.iter().find(|(pg, n, _)| !pg && *n == listings) {
        return path.clone();
    }
    let dir = std::env::temp_dir();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if orphaned(&name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let path = dir.join(format!("{}{listings}.db", template_prefix())).to_string_lossy().into_owned();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
    let store = Store::connect(&path).await.unwrap();
    migrate_and_seed(&store, listings).await;
    store.close().await;
    made.push((false, listings, path.clone()));
    path
}

/// A fresh SQLite database with `listings` demo listings.
pub async fn spawn_app(listings: usize) -> TestApp {
    let template = sqlite_template(listings).await;
    let path = std::env::temp_dir().join(format!("{}.db", unique()));
    for suffix in ["", "-wal"] {
        if std::path::Path::new(&format!("{template}{suffix}")).exists() {
            std::fs::copy(format!("{template}{suffix}"), format!("{}{suffix}", path.display())).unwrap();
        }
    }
    let store = Store::connect(path.to_str().unwrap()).await.unwrap();
    store.migrate().await.unwrap();
    app_of(store, Cleanup::File(path))
}

/// The PostgreSQL template database with `listings`, made on first use (templates of runs that
/// are gone are dropped then).
async fn pg_template(admin: &Store, base: &str, listings: usize) -> String {
    let mut made = TEMPLATES.lock().await;
    if let Some((_, _, name)) = made.iter().find(|(pg, n, _)| *pg && *n == listings) {
        return name.clone();
    }
    for old in admin.database_names("usedcar_tmpl_").await.unwrap() {
        if orphaned(&old) {
            let _ = admin.execute_admin(&format!("drop database if exists {old} with (force)")).await;
        }
    }
    let name = format!("{}{listings}", template_prefix());
    admin.execute_admin(&format!("drop database if exists {name} with (force)")).await.unwrap();
    admin.execute_admin(&format!("create database {name}")).await.unwrap();
    let store = Store::connect(&format!("{base}/{name}")).await.unwrap();
    migrate_and_seed(&store, listings).await;
    store.close().await;
    made.push((true, listings, name.clone()));
    name
}

/// A fresh PostgreSQL database; a failure when no server answers.
pub async fn spawn_pg_app(listings: usize) -> Option<TestApp> {
    let admin_url = std::env::var("USEDCAR_TEST_PG_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    let admin = match Store::connect(&admin_url).await {
        Ok(s) => s,
        Err(e) => {
            // Never a pass that ran nothing: `cargo xtask test` leaves the postgres variants out
            // (and says so) when no server answers outside CI.
            panic!("PostgreSQL unreachable at {admin_url}: {e}; start it, or run `cargo xtask test`, which leaves these variants out when there is none");
        }
    };
    let (base, _) = admin_url.rsplit_once('/').unwrap();
    let template = pg_template(&admin, base, listings).await;
    let name = unique();
    admin.execute_admin(&format!("create database {name} template {template}")).await.unwrap();
    // A test database need not survive a crash: commits skip the disk flush (the suite's time).
    admin.execute_admin(&format!("alter database {name} set synchronous_commit = off")).await.unwrap();
    admin.close().await;
    let store = Store::connect(&format!("{base}/{name}")).await.unwrap();
    store.migrate().await.unwrap();
    Some(app_of(store, Cleanup::Database { admin_url: admin_url.clone(), name }))
}

impl TestApp {
    pub fn router(&self) -> Router {
        self.router.get_or_init(|| web::app(self.state.clone())).clone()
    }

    /// The same database seen by another app instance with its own configuration and clock (a
    /// second node, a later time, or real adapters pointed at a mock peer).
    pub fn variant(&self, config: Config, now: i64) -> AppState {
        AppState::with_clock(config, self.state.store.clone(), Box::new(FixedClock(now)))
    }

    /// The database URL of a PostgreSQL test app (a second process can connect to it).
    pub fn pg_url(&self) -> Option<String> {
        match &self.cleanup {
            Cleanup::Database { admin_url, name } => Some(format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0)),
            Cleanup::File(_) => None,
        }
    }

    pub async fn get(&self, uri: &str, headers: &[(&str, &str)]) -> Reply {
        send(self.router(), Method::GET, uri, headers, None).await
    }

    /// Posts an urlencoded form.
    pub async fn post_form(&self, uri: &str, headers: &[(&str, &str)], form: &str) -> Reply {
        send(self.router(), Method::POST, uri, headers, Some(form.to_owned())).await
    }
}

/// One part of a multipart body: a text field or a file.
pub enum Part<'a> {
    Text(&'a str, &'a str),
    File(&'a str, &'a str, &'a [u8]),
}

/// A real JPEG of `w`×`h` with a gradient; `shade` makes photos differ.
pub fn jpeg(w: u32, h: u32, shade: u8) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, shade]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
    out.into_inner()
}

/// A `multipart/form-data` body and its content type.
pub fn multipart(parts: &[Part<'_>]) -> (String, Vec<u8>) {
    let boundary = "----usedcar-test-boundary-7d93";
    let mut body = Vec::new();
    for p in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match p {
            Part::Text(name, value) => {
                body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes());
            }
            Part::File(name, file, bytes) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: image/jpeg\r\n\r\n").as_bytes(),
                );
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\r\n");
            }
        }
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl TestApp {
    /// Posts a multipart form.
    pub async fn post_multipart(&self, uri: &str, headers: &[(&str, &str)], parts: &[Part<'_>]) -> Reply {
        let (ct, body) = multipart(parts);
        send_body(self.router(), uri, headers, &ct, body).await
    }
}

/// Posts raw bytes with a content type.
pub async fn send_body(router: Router, uri: &str, headers: &[(&str, &str)], content_type: &str, body: Vec<u8>) -> Reply {
    send_method(router, Method::POST, uri, headers, content_type, body).await
}

/// A request of `method` with a body of `content_type`.
pub async fn send_method(router: Router, method: Method, uri: &str, headers: &[(&str, &str)], content_type: &str, body: Vec<u8>) -> Reply {
    let mut req = Request::builder().method(method).uri(uri).header("content-type", content_type);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut req = req.body(Body::from(body)).unwrap();
    if let Some(ip) = headers.iter().find(|(k, _)| *k == "x-test-peer").map(|(_, v)| *v) {
        let addr = std::net::SocketAddr::new(ip.parse().unwrap(), 40000);
        req.extensions_mut().insert(axum::extract::ConnectInfo(addr));
    }
    let res = router.oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = axum::body::to_bytes(res.into_body(), 10 << 20).await.unwrap();
    Reply { status, headers, bytes: bytes.len(), body: String::from_utf8_lossy(&bytes).into_owned(), raw: bytes.to_vec() }
}

/// Every file under a directory (recursively).
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() { out.extend(files_under(&p)) } else { out.push(p) }
        }
    }
    out
}

/// GET through another app instance.
pub async fn get_on(state: &AppState, uri: &str, headers: &[(&str, &str)]) -> Reply {
    send(web::app(state.clone()), Method::GET, uri, headers, None).await
}

/// A form POST through another app instance.
pub async fn post_on(state: &AppState, uri: &str, headers: &[(&str, &str)], form: &str) -> Reply {
    send(web::app(state.clone()), Method::POST, uri, headers, Some(form.to_owned())).await
}

impl Reply {
    /// `name=value` of each cookie set (not cleared) by the response, joined for a `Cookie` header.
    pub fn cookie_header(&self) -> String {
        self.cookies().iter().filter(|c| !c.contains("Max-Age=0")).map(|c| c.split(';').next().unwrap().to_owned()).collect::<Vec<_>>().join("; ")
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

pub async fn send(router: Router, method: Method, uri: &str, headers: &[(&str, &str)], form: Option<String>) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let body = match form {
        Some(f) => {
            req = req.header("content-type", "application/x-www-form-urlencoded");
            Body::from(f)
        }
        None => Body::empty(),
    };
    let mut req = req.body(body).unwrap();
    if let Some(ip) = headers.iter().find(|(k, _)| *k == "x-test-peer").map(|(_, v)| *v) {
        let addr = std::net::SocketAddr::new(ip.parse().unwrap(), 40000);
        req.extensions_mut().insert(axum::extract::ConnectInfo(addr));
    }
    let res = router.oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = axum::body::to_bytes(res.into_body(), 10 << 20).await.unwrap();
    Reply { status, headers, bytes: bytes.len(), body: String::from_utf8_lossy(&bytes).into_owned(), raw: bytes.to_vec() }
}

/// Declares `$name::sqlite` and `$name::postgres` tests running `async fn $name(app: &TestApp)`
/// over `$listings` demo listings.
macro_rules! on_both {
    ($listings:expr => $($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn sqlite() {
                let app = crate::support::spawn_app($listings).await;
                super::$name(&app).await;
            }

            #[tokio::test]
            async fn postgres() {
                let Some(app) = crate::support::spawn_pg_app($listings).await else { return };
                super::$name(&app).await;
            }
        }
    )*};
}

/// The sandbox SMS code shown on the development login form.
pub fn shown_code(r: &Reply) -> String {
    let open = r#"<b class="sandbox-code">"#;
    let i = r.body.find(open).unwrap_or_else(|| panic!("no sandbox code on the page: {}", r.body)) + open.len();
    r.body[i..i + 6].to_owned()
}

/// Signs in by phone through the forms; returns the `Cookie` header of the session.
pub async fn login(app: &TestApp, mobile: &str, extra_cookie: &str) -> String {
    let h = [("cookie", extra_cookie), ("user-agent", IPHONE)];
    let sent = app.post_form("/sys/login/code", &h, &format!("mobile={mobile}&return=%2Fspace")).await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    let code = shown_code(&sent);
    let r = app.post_form("/sys/login", &h, &format!("mobile={mobile}&code={code}&return=%2Fspace")).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    r.cookie_header()
}

/// The phone of the dealer who owns shop `shop_id` (the seed's numbering of users' phones).
pub async fn owner_mobile(app: &TestApp, shop_id: i64) -> String {
    let oname = app.state.store.shop_oname(shop_id).await.unwrap();
    let owner = app.state.store.shop_by_oname(&oname).await.unwrap().owner_user_id.unwrap();
    for mobile in (0..200).map(|i| format!("1{}{:09}", [3, 5, 7, 8, 9][i % 5], 100_000_000 + i * 7919 % 900_000_000)) {
        if app.state.store.user_by_mobile(&mobile).await.unwrap().is_some_and(|u| u.user_id == owner) {
            return mobile;
        }
    }
    panic!("no owner phone for shop {shop_id}");
}
