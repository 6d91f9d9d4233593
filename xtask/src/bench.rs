//! `cargo xtask bench [--million] [--secs N]`: the performance harness.
//!
//! One run on this machine:
//! 1. seeds a SQLite database of 100,000 listings (1,000,000 with `--million`) and the same on
//!    PostgreSQL, each kept under `target/bench/` (or in the `usedcar_bench_{n}` database) and
//!    reused by later runs;
//! 2. times every `/carlist` filter combination at the database on both (`usedcar bench-search`);
//! 3. starts the release server on the SQLite file, loads `/`, a mix of `/carlist` URLs from
//!    every facet the list page links (brand, series, price, age, mileage, body, seats,
//!    emission, fuel, gearbox, region, keyword searches, each sort, deep pages, two and three
//!    filters) and a mix of `/details/{id}` with wrk (64 connections, 2 threads), with the
//!    response cache off and then on, each facet alone (cache off), the list's mix once more on
//!    a node whose list totals expire every 2 s (timeouts counted) and on a node whose SQLite
//!    readers do not map the file, and reads each server's peak RSS and private memory;
//! 4. saves the very same response bodies as files and serves them from nginx, run under the
//!    same load right after each of our runs, for the ratio (per page and per facet; side by
//!    side, because this machine's speed drifts by a fifth over minutes);
//! 5. measures the compressed bytes of each page's HTML, CSS and island JavaScript and how much
//!    gzipped HTML it takes to reach the end of the first screen;
//! 6. runs Lighthouse 12 (npm, `tests/perf`) in its default mobile mode on Debian's Chromium
//!    against `/`, `/carlist` and a `/details/{id}`: the four category scores, LCP, TBT, CLS and
//!    the audits that failed;
//! 7. writes everything to `target/bench/bench.json` and prints a short table.
//!
//! wrk and nginx are Debian packages, installed when missing. Requests carry no
//! `Accept-Encoding`, so both servers send the same identity bytes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::{Res, Server, build_islands, cargo, ensure_chromium, free_port, npm_install, root, run, wait_for};

const CONNECTIONS: u32 = 64;
/// `cache.count_secs` of the server under test: staging's and production's default.
const COUNT_CACHE_SECS: &str = "30";
/// What a returning visitor's browser sends: the device id issued on their first page.
const RETURNING_COOKIE: &str = "hx_did=5f1c0a9e3b7d4c2a8e6f0b1d9c3a7e52";

/// List totals' lifetime in the phase that runs across their expiry.
const EXPIRY_COUNT_SECS: &str = "2";

struct Opts {
    listings: usize,
    secs: u32,
}

fn opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts { listings: 100_000, secs: 10 };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--million" => o.listings = 1_000_000,
            "--secs" => o.secs = it.next().and_then(|s| s.parse().ok()).ok_or("--secs needs a number")?,
            other => return Err(format!("unknown bench option {other}")),
        }
    }
    Ok(o)
}

/// Installs a Debian package when its program is missing.
pub fn ensure_program(path: &str, package: &str) -> Res {
    if Path::new(path).exists() {
        return Ok(());
    }
    eprintln!("{path} missing: installing Debian's {package}");
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get").args(["install", "-y", "-qq", "--no-install-recommends", package]).env("DEBIAN_FRONTEND", "noninteractive"))
}

fn output(cmd: &mut Command) -> Result<String, String> {
    eprintln!("$ {cmd:?}");
    let out = cmd.stderr(Stdio::inherit()).output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed with {}", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The SQLite file of `n` listings, seeded once.
fn sqlite_db(bin: &Path, dir: &Path, n: usize) -> Result<String, String> {
    let db = dir.join(format!("sqlite-{n}.db"));
    if !db.exists() {
        let part = dir.join(format!("sqlite-{n}.part.db"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", part.display()));
        }
        run(Command::new(bin).args(["seed", "--listings", &n.to_string(), "--database-url", &part.to_string_lossy()]).env("USEDCAR_LOG", "warn"))?;
        std::fs::rename(&part, &db).map_err(|e| e.to_string())?;
    }
    Ok(db.to_string_lossy().into_owned())
}

/// The PostgreSQL server the harnesses use (`USEDCAR_TEST_PG_URL`, else 127.0.0.1:5432): its
/// admin database's URL, and that URL without the database, to name another on the same server.
pub(crate) fn pg_server() -> (String, String) {
    let admin = std::env::var("USEDCAR_TEST_PG_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b).to_owned();
    (admin, base)
}

/// The PostgreSQL database of `n` listings, created and seeded once.
fn pg_db(bin: &Path, n: usize) -> Result<String, String> {
    let name = format!("usedcar_bench_{n}");
    let (admin, base) = pg_server();
    let exists = output(Command::new("psql").args([admin.as_str(), "-tAc", &format!("select 1 from pg_database where datname = '{name}'")]))?;
    if exists.trim() != "1" {
        output(Command::new("psql").args([admin.as_str(), "-c", &format!("create database {name}")]))?;
    }
    let url = format!("{base}/{name}");
    run(Command::new(bin).args(["seed", "--listings", &n.to_string(), "--if-empty", "true", "--database-url", &url]).env("USEDCAR_LOG", "warn"))?;
    Ok(url)
}

fn bench_search(bin: &Path, url: &str) -> Result<Value, String> {
    let out = output(Command::new(bin).args(["bench-search", "--database-url", url]).env("USEDCAR_LOG", "warn"))?;
    let line = out.lines().rev().find(|l| l.trim_start().starts_with('{')).ok_or("bench-search printed no JSON")?;
    serde_json::from_str(line).map_err(|e| e.to_string())
}

fn curl(url: &str, gzip: bool, to: &Path) -> Result<u64, String> {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "--fail", "-o"]).arg(to).args(["-w", "%{size_download}"]);
    if gzip {
        cmd.args(["-H", "Accept-Encoding: gzip"]);
    }
    let out = cmd.arg(url).stderr(Stdio::inherit()).output().map_err(|e| format!("curl: {e}"))?;
    if !out.status.success() {
        return Err(format!("curl {url} failed with {}", out.status));
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().map_err(|e| format!("curl size: {e}"))
}

fn fetch(url: &str) -> Result<String, String> {
    let tmp = std::env::temp_dir().join(format!("usedcar_bench_fetch_{}", std::process::id()));
    curl(url, false, &tmp)?;
    let body = std::fs::read_to_string(&tmp).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&tmp);
    body
}

fn gzip_len(bytes: &[u8]) -> Result<u64, String> {
    use std::io::Write as _;
    let mut child = Command::new("gzip").args(["-6", "-c"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().map_err(|e| format!("gzip: {e}"))?;
    child.stdin.take().ok_or("gzip stdin")?.write_all(bytes).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok(out.stdout.len() as u64)
}

/// Every `attr="…"` value in `html` whose value starts with `prefix`, `&amp;` decoded.
fn attr_values(html: &str, attr: &str, prefix: &str) -> Vec<String> {
    let open = format!("{attr}=\"{prefix}");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&open) {
        let v = &rest[i + attr.len() + 2..];
        let end = v.find('"').unwrap_or(v.len());
        out.push(v[..end].replace("&amp;", "&").replace("&#38;", "&"));
        rest = &v[end..];
    }
    out
}

/// The facets of the list page, in the report's order: what a visitor narrows the list by.
/// `first` is the unfiltered list, `deep` a page 20 or further on, `sort` any order but 综合,
/// `reply` the cars of sellers who answer within the hour.
const FACETS: [&str; 18] = [
    "first",
    "brand",
    "series",
    "price",
    "age",
    "mileage",
    "body",
    "seats",
    "emission",
    "fuel",
    "gearbox",
    "region",
    "reply",
    "keyword",
    "sort",
    "deep",
    "two filters",
    "three filters",
];

/// A page group or a facet, and its URLs.
type Group = (&'static str, Vec<String>);

/// Most URLs one facet brings to the bench.
const PER_FACET: usize = 12;

/// What visitors type into the search box: a series, a body type, seats, an energy, a colour, a
/// model name, a gearbox, a city with a body type, a price, and words that name no filter.
const KEYWORDS: [&str; 12] = ["宝马X3", "SUV", "7座", "新能源", "白色", "凯美瑞", "自动挡", "北京 SUV", "5万以内", "个人一手", "天窗", "低油耗"];

/// The facet a list URL belongs to (see [`FACETS`]), by the filters its query sets.
fn facet_of(url: &str) -> &'static str {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let page = pairs.iter().find(|(k, _)| k == "page").and_then(|(_, v)| v.parse::<u32>().ok()).unwrap_or(1);
    let filters: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).filter(|k| !matches!(*k, "sort" | "page")).collect();
    if page >= 20 {
        return "deep";
    }
    if pairs.iter().any(|(k, _)| k == "sort") {
        return "sort";
    }
    match filters.as_slice() {
        [] => "first",
        ["brand", "series"] => "series",
        ["province" | "city"] | ["province", "city"] => "region",
        [one] => FACETS.iter().copied().find(|f| f == one).unwrap_or("two filters"),
        [_, _] => "two filters",
        _ => "three filters",
    }
}

/// `/carlist` links in `html` and the highest page number any of them names.
fn list_links(html: &str) -> (Vec<String>, u32) {
    let links = attr_values(html, "href", "/carlist");
    let last = links
        .iter()
        .filter_map(|u| {
            u.split_once('?').map(|(_, q)| form_urlencoded::parse(q.as_bytes()).find(|(k, _)| k == "page").and_then(|(_, v)| v.parse::<u32>().ok()))
        })
        .flatten()
        .max()
        .unwrap_or(1);
    (links.into_iter().filter(|u| u == "/carlist" || u.starts_with("/carlist?")).collect(), last)
}

/// `url` with `page=n` appended.
fn at_page(url: &str, n: u32) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}page={n}")
}

/// The list URLs of every facet, read off the running site as a visitor would follow them:
/// the links of `/carlist`, of a brand's list (its series), of a body type's and a province's
/// lists, of a two-filter list (its three-filter links), the keyword searches of [`KEYWORDS`],
/// and page 40 and the last page of each list read.
fn facet_urls(base: &str) -> Result<Vec<Group>, String> {
    let mut found: Vec<Group> = FACETS.iter().map(|f| (*f, Vec::new())).collect();
    let mut add = |url: String| {
        let facet = facet_of(&url);
        if let Some((_, urls)) = found.iter_mut().find(|(f, _)| *f == facet)
            && urls.len() < PER_FACET
            && !urls.contains(&url)
        {
            urls.push(url);
        }
    };
    let mut read = vec!["/carlist".to_owned()];
    let mut next = 0;
    while next < read.len() {
        let url = read[next].clone();
        next += 1;
        let (links, last) = list_links(&fetch(&format!("{base}{url}"))?);
        add(url.clone());
        for n in [40, last] {
            if n >= 20 && n <= last && !url.contains("page=") {
                add(at_page(&url, n));
            }
        }
        for link in links {
            // Follow the first link of each kind once: a brand (its series), a body type, a
            // province (its cities), a sort, and the first two-filter list (its third filters).
            let kind = facet_of(&link);
            if read.len() < 8 && matches!(kind, "brand" | "body" | "region" | "two filters" | "sort") && !read.iter().any(|r| facet_of(r) == kind) {
                read.push(link.clone());
            }
            add(link);
        }
    }
    for word in KEYWORDS {
        add(format!("/carlist?{}", form_urlencoded::Serializer::new(String::new()).append_pair("keyword", word).finish()));
    }
    found.retain(|(_, urls)| !urls.is_empty());
    Ok(found)
}

/// The page groups and their URLs, read off the running site: the home page, the list (every
/// facet's URLs, taken in turn) and up to 64 cars; and the facets apart.
fn pick_urls(base: &str) -> Result<(Vec<Group>, Vec<Group>), String> {
    let facets = facet_urls(base)?;
    let mut lists: Vec<String> = Vec::new();
    for i in 0..PER_FACET {
        lists.extend(facets.iter().filter_map(|(_, urls)| urls.get(i).cloned()));
    }
    let mut details: Vec<String> = Vec::new();
    for page in 1..=4 {
        let body = fetch(&format!("{base}/carlist?page={page}"))?;
        for href in attr_values(&body, "href", "/details/") {
            if href[9..].bytes().all(|b| b.is_ascii_digit()) && !details.contains(&href) {
                details.push(href);
            }
        }
    }
    details.truncate(64);
    if details.is_empty() {
        return Err("no cars on /carlist".to_owned());
    }
    Ok((vec![("home", vec!["/".to_owned()]), ("carlist", lists), ("details", details)], facets))
}

/// A wrk script that cycles through `urls`, each request carrying `cookie` when given.
fn lua_script(path: &Path, urls: &[String], cookie: Option<&str>) -> Res {
    let list: Vec<String> = urls.iter().map(|u| format!("{u:?}")).collect();
    let headers = cookie.map_or_else(String::new, |c| format!("wrk.headers[\"Cookie\"] = {c:?}\n"));
    let script = format!(
        "local paths = {{ {} }}\nlocal n = 0\n{headers}request = function()\n  n = n + 1\n  return wrk.format(\"GET\", paths[(n % #paths) + 1])\nend\n",
        list.join(", ")
    );
    std::fs::write(path, script).map_err(|e| e.to_string())
}

fn millis(v: &str) -> Option<f64> {
    let v = v.trim();
    let (num, scale) = if let Some(n) = v.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = v.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (v, 1.0)
    };
    num.parse::<f64>().ok().map(|n| (n * scale * 1000.0).round() / 1000.0)
}

/// One wrk run over `urls` at `base`: req/s, p50 and p99 (ms), and non-2xx responses.
fn wrk(base: &str, urls: &[String], script: &Path, secs: u32) -> Result<Value, String> {
    wrk_with(base, urls, script, secs, None)
}

/// [`wrk`] with every request carrying `cookie`.
fn wrk_with(base: &str, urls: &[String], script: &Path, secs: u32, cookie: Option<&str>) -> Result<Value, String> {
    lua_script(script, urls, cookie)?;
    // A short warm-up (caches, connections), then the measured run.
    output(Command::new("wrk").args(["-t2", "-c64", "-d2s", "-s"]).arg(script).arg(base))?;
    let out = output(Command::new("wrk").args(["-t2", &format!("-c{CONNECTIONS}"), &format!("-d{secs}s"), "--latency", "-s"]).arg(script).arg(base))?;
    let field = |prefix: &str| out.lines().find_map(|l| l.trim().strip_prefix(prefix).map(|r| r.trim().to_owned()));
    let rps: f64 = field("Requests/sec:").and_then(|v| v.parse().ok()).ok_or_else(|| format!("wrk printed no rate:\n{out}"))?;
    let non_2xx: u64 = field("Non-2xx or 3xx responses:").and_then(|v| v.parse().ok()).unwrap_or(0);
    let socket_errors = field("Socket errors:");
    // `connect 0, read 0, write 0, timeout 12`: requests still unanswered after wrk's 2 s.
    let timeouts: u64 = socket_errors.as_deref().and_then(|e| e.rsplit_once("timeout ")).and_then(|(_, n)| n.trim().parse().ok()).unwrap_or(0);
    Ok(json!({
        "rps": rps.round(),
        "p50_ms": field("50%").as_deref().and_then(millis),
        "p99_ms": field("99%").as_deref().and_then(millis),
        "non_2xx": non_2xx,
        "timeouts": timeouts,
        "socket_errors": socket_errors,
    }))
}

/// A memory figure of a process's `/proc/{pid}/{file}` (`status`: `VmHWM:`, `RssAnon:`;
/// `smaps_rollup`: `Pss:`), in MB.
pub(crate) fn proc_mb(pid: u32, file: &str, field: &str) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
    let kb: f64 = text.lines().find_map(|l| l.strip_prefix(field))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// A server's memory after its runs: the peak resident set (`VmHWM`), its proportional set
/// (`Pss`) and its private memory (`RssAnon`: heap, stacks, SQLite's page caches). Where SQLite's
/// readers map the file (`cache.reader_map_mb`), the peak counts its pages as often as
/// connections map them; the proportional set counts each page once, with the program's own
/// mapped code: what the process keeps resident, anonymous or not.
fn memory_mb(pid: u32) -> Value {
    json!({
        "peak": proc_mb(pid, "status", "VmHWM:"),
        "proportional": proc_mb(pid, "smaps_rollup", "Pss:"),
        "private": proc_mb(pid, "status", "RssAnon:"),
    })
}

fn start_server(bin: &Path, db: &str, cache_secs: u32) -> Result<(Server, String), String> {
    start_server_with(bin, db, (cache_secs, COUNT_CACHE_SECS), &[])
}

/// [`start_server`] with list totals kept for `count_secs` and settings of its own (`USEDCAR_*`
/// variables).
fn start_server_with(bin: &Path, db: &str, (cache_secs, count_secs): (u32, &str), settings: &[(&str, &str)]) -> Result<(Server, String), String> {
    let addr = format!("127.0.0.1:{}", free_port()?);
    let child = Command::new(bin)
        .args(["serve", "--addr", &addr, "--database-url", db])
        .env("USEDCAR_LOG", "warn")
        .env("USEDCAR_SITE_URL", format!("http://{addr}"))
        .env("USEDCAR_CACHE_RESPONSE_SECS", cache_secs.to_string())
        // The production default: list totals are recounted at most every 30 s (both runs; the
        // response cache is what the two runs compare).
        .env("USEDCAR_CACHE_COUNT_SECS", count_secs)
        .envs(settings.iter().copied())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start server: {e}"))?;
    let mut server = Server(child);
    wait_for(&addr, &mut server.0)?;
    Ok((server, format!("http://{addr}")))
}

/// The islands of a page: each one's module URL and when it loads (`idle` or `visible`).
fn islands(html: &str) -> Vec<(String, String)> {
    html.split("<div data-island=")
        .skip(1)
        .filter_map(|part| {
            let tag = &part[..part.find('>').unwrap_or(part.len())];
            let src = attr_values(tag, "data-src", "/dist/").into_iter().next()?;
            let load = attr_values(tag, "data-load", "").into_iter().next().unwrap_or_default();
            Some((src, load))
        })
        .collect()
}

/// The scripts `roots` load: themselves and every chunk they import, transitively.
fn js_closure(base: &str, roots: Vec<String>) -> Result<BTreeSet<String>, String> {
    let mut files: BTreeSet<String> = BTreeSet::new();
    let mut queue = roots;
    while let Some(src) = queue.pop() {
        if !src.ends_with(".js") || !files.insert(src.clone()) {
            continue;
        }
        let text = fetch(&format!("{base}{src}"))?;
        let dir_url = src.rsplit_once('/').map_or("", |(d, _)| d);
        for quote in ["\"./", "'./"] {
            let mut rest = text.as_str();
            while let Some(i) = rest.find(quote) {
                let v = &rest[i + 3..];
                let end = v.find(['"', '\'']).unwrap_or(v.len());
                if v[..end].ends_with(".js") {
                    queue.push(format!("{dir_url}/{}", &v[..end]));
                }
                rest = &v[end..];
            }
        }
    }
    Ok(files)
}

/// The compressed weight of a page: HTML, CSS, the island loader and modules with the chunks
/// they import (those of islands that load only when scrolled to apart, as `js_later_gzip`),
/// and the gzipped HTML up to the end of the first screen.
fn weights(base: &str, url: &str, group: &str, dir: &Path) -> Result<Value, String> {
    let tmp = dir.join("weight.tmp");
    let html_gz = curl(&format!("{base}{url}"), true, &tmp)?;
    let html = fetch(&format!("{base}{url}"))?;
    let mut css = 0;
    for href in attr_values(&html, "href", "/dist/").into_iter().filter(|h| h.ends_with(".css")) {
        css += curl(&format!("{base}{href}"), true, &tmp)?;
    }
    // What loads with the page (its scripts and the islands that load when the browser is idle)
    // and what loads later, only when its island scrolls into view (`data-load="visible"`).
    let (later_roots, now_islands): (Vec<_>, Vec<_>) = islands(&html).into_iter().partition(|(_, load)| load == "visible");
    // ` src` with its space: a script's own attribute, not an island's `data-src`.
    let now_roots = attr_values(&html, " src", "/dist/").into_iter().chain(now_islands.into_iter().map(|(src, _)| src)).collect();
    let now_files = js_closure(base, now_roots)?;
    let later_files: BTreeSet<String> = js_closure(base, later_roots.into_iter().map(|(src, _)| src).collect())?.difference(&now_files).cloned().collect();
    let mut js = 0;
    for src in &now_files {
        js += curl(&format!("{base}{src}"), true, &tmp)?;
    }
    let mut js_later = 0;
    for src in &later_files {
        js_later += curl(&format!("{base}{src}"), true, &tmp)?;
    }
    let _ = std::fs::remove_file(&tmp);
    // The first screen: the first four cards of a list, everything above the lead form of a car.
    let fold = match group {
        "carlist" => html.find("<ul class=\"cards\">").and_then(|start| html[start..].match_indices("</li>").nth(3).map(|(i, _)| start + i + 5)),
        "details" => html.find("id=\"lead\""),
        _ => None,
    };
    let first_screen = match fold {
        Some(end) => Some(gzip_len(&html.as_bytes()[..end])?),
        None => None,
    };
    Ok(json!({
        "html_gzip": html_gz,
        "css_gzip": css,
        "js_gzip": js,
        "js_files": now_files.len(),
        "js_later_gzip": js_later,
        "total_gzip": html_gz + css + js,
        "first_screen_gzip": first_screen,
    }))
}

fn nginx_conf(dir: &Path, port: u16) -> String {
    format!(
        "user root;\nworker_processes 2;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/nginx-error.log warn;\nevents {{ worker_connections 2048; }}\n\
         http {{\n  access_log off;\n  default_type text/html;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 1000000;\n\
         server {{\n    listen 127.0.0.1:{port};\n    root {d}/static;\n  }}\n}}\n",
        d = dir.display()
    )
}

/// Saves the body of each of `urls` at `base` as `static/{group}/{i}.html` under `dir`, for
/// nginx to serve; returns the files' paths as nginx serves them.
fn save_statics(base: &str, urls: &[String], group: &str, dir: &Path) -> Result<Vec<String>, String> {
    let to = dir.join("static").join(group);
    std::fs::create_dir_all(&to).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        curl(&format!("{base}{url}"), false, &to.join(format!("{i}.html")))?;
        files.push(format!("/{group}/{i}.html"));
    }
    Ok(files)
}

/// Our rate over nginx's, to three places.
fn ratio(ours: &Value, nginx: &Value) -> Value {
    let (ours, theirs) = (ours["rps"].as_f64().unwrap_or(0.0), nginx["rps"].as_f64().unwrap_or(0.0));
    json!(if theirs > 0.0 { (ours / theirs * 1000.0).round() / 1000.0 } else { 0.0 })
}

/// nginx serving `dir/static` on a free port, stopped when dropped.
struct Nginx {
    server: Server,
    conf: PathBuf,
    dir: PathBuf,
    base: String,
}

impl Nginx {
    fn start(dir: &Path) -> Result<Nginx, String> {
        let port = free_port()?;
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, nginx_conf(dir, port)).map_err(|e| e.to_string())?;
        let child =
            Command::new("/usr/sbin/nginx").arg("-c").arg(&conf).arg("-p").arg(dir).stderr(Stdio::inherit()).spawn().map_err(|e| format!("nginx: {e}"))?;
        let mut server = Server(child);
        let addr = format!("127.0.0.1:{port}");
        wait_for(&addr, &mut server.0)?;
        Ok(Nginx { server, conf, dir: dir.to_owned(), base: format!("http://{addr}") })
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // `stop` through the master, which takes its workers with it (killing the master alone
        // would leave them running and listening).
        let _ = Command::new("/usr/sbin/nginx").arg("-c").arg(&self.conf).arg("-p").arg(&self.dir).args(["-s", "stop"]).status();
        let _ = self.server.0.wait();
    }
}

/// Our run of `urls` and, right after it, nginx's of the same bodies (`files`), for a ratio of
/// two rates measured under the same conditions (the machine's speed drifts over minutes):
/// ours with `vs_nginx` and nginx's own run beside it.
fn side_by_side(base: &str, urls: &[String], nginx: &Nginx, files: &[String], script: &Path, secs: u32) -> Result<(Value, Value), String> {
    let mut ours = wrk(base, urls, script, secs)?;
    let theirs = wrk(&nginx.base, files, script, secs)?;
    ours["vs_nginx"] = ratio(&ours, &theirs);
    Ok((ours, theirs))
}

/// Side-by-side runs of a page group, ours and nginx in turn: one run of each moves by a fifth
/// from one run to the next on this machine (the cached list: 0.86–1.02× nginx in three runs).
const PAIRS: usize = 3;

/// [`side_by_side`] [`PAIRS`] times: each side's run of the median rate, the ratio of the two,
/// and every run's rate beside it (`runs_rps`).
fn side_by_side_median(base: &str, urls: &[String], nginx: &Nginx, files: &[String], script: &Path, secs: u32) -> Result<(Value, Value), String> {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..PAIRS {
        let (o, t) = side_by_side(base, urls, nginx, files, script, secs)?;
        ours.push(o);
        theirs.push(t);
    }
    let median = |runs: &[Value]| {
        let mut sorted: Vec<&Value> = runs.iter().collect();
        sorted.sort_by(|a, b| a["rps"].as_f64().unwrap_or(0.0).total_cmp(&b["rps"].as_f64().unwrap_or(0.0)));
        let mut m = sorted[sorted.len() / 2].clone();
        m["runs_rps"] = runs.iter().map(|r| r["rps"].clone()).collect();
        m
    };
    let (mut o, t) = (median(&ours), median(&theirs));
    o["vs_nginx"] = ratio(&o, &t);
    Ok((o, t))
}

fn http(bin: &Path, db: &str, dir: &Path, secs: u32) -> Result<Value, String> {
    let script = dir.join("urls.lua");
    let (server, base) = start_server(bin, db, 0)?;
    let (groups, facets) = pick_urls(&base)?;
    let _ = std::fs::remove_dir_all(dir.join("static"));
    // The bodies nginx serves, saved before any run; nginx then runs beside every run of ours.
    let mut statics: Vec<Vec<String>> = Vec::new();
    for (group, urls) in &groups {
        statics.push(save_statics(&base, urls, group, dir)?);
    }
    let mut facet_statics = Vec::new();
    for (i, (_, urls)) in facets.iter().enumerate() {
        facet_statics.push(save_statics(&base, urls, &format!("facet-{i}"), dir)?);
    }
    let nginx = Nginx::start(dir)?;
    let mut pages = serde_json::Map::new();
    for ((group, urls), files) in groups.iter().zip(&statics) {
        let weight = weights(&base, &urls[0], group, dir)?;
        let (off, ng) = side_by_side_median(&base, urls, &nginx, files, &script, secs)?;
        pages.insert((*group).to_owned(), json!({ "urls": urls.len(), "weight": weight, "cache_off": off, "nginx": ng }));
    }
    // Each facet of the list alone, uncached, for half the time (at least 3 s).
    let facet_secs = (secs / 2).max(3);
    let mut facet_rows = Vec::new();
    for ((facet, urls), files) in facets.iter().zip(&facet_statics) {
        let (off, ng) = side_by_side(&base, urls, &nginx, files, &script, facet_secs)?;
        facet_rows.push(json!({ "facet": facet, "urls": urls, "cache_off": off, "nginx": ng }));
    }
    let rss_off = memory_mb(server.0.id());
    drop(server);

    // The list's mix again on a node that keeps its totals for 2 s only: the run crosses an
    // expiry of every total about every 2 s, and each must cost one recount, not a stall.
    let (server, base) = start_server_with(bin, db, (0, EXPIRY_COUNT_SECS), &[])?;
    let mix = groups.iter().find(|(g, _)| *g == "carlist").map(|(_, u)| u.clone()).unwrap_or_default();
    let mut expiry = wrk(&base, &mix, &script, secs)?;
    expiry["count_secs"] = json!(EXPIRY_COUNT_SECS.parse::<u32>().unwrap_or(0));
    drop(server);

    // The list's mix once more on a node whose SQLite readers do not map the file: what the map
    // gains a second, and what it costs the resident set.
    let (server, base) = start_server_with(bin, db, (0, COUNT_CACHE_SECS), &[("USEDCAR_CACHE_READER_MAP_MB", "0")])?;
    wrk(&base, &mix, &script, 2)?;
    let mut unmapped = wrk(&base, &mix, &script, secs)?;
    unmapped["memory_mb"] = memory_mb(server.0.id());
    drop(server);

    let (server, base) = start_server(bin, db, 2)?;
    for ((group, urls), files) in groups.iter().zip(&statics) {
        let (on, ng) = side_by_side_median(&base, urls, &nginx, files, &script, secs)?;
        // The same pages for returning visitors: each request carries the device id every
        // visitor is given on their first page (a car's page served so also queues the view for
        // the visitor's history, within the address's hourly budget: wrk is one address).
        let mut returning = wrk_with(&base, urls, &script, secs, Some(RETURNING_COOKIE))?;
        returning["vs_nginx"] = ratio(&returning, &ng);
        if let Some(p) = pages.get_mut(*group) {
            p["cache_on"] = on;
            p["cache_on_returning"] = returning;
            p["nginx_beside_cached"] = ng;
        }
    }
    let rss_on = memory_mb(server.0.id());
    drop(server);
    drop(nginx);
    let first_urls: serde_json::Map<String, Value> = groups.iter().map(|(g, urls)| ((*g).to_owned(), json!(urls[0]))).collect();
    Ok(json!({
        "pages": pages,
        "facets": facet_rows,
        "facet_seconds": facet_secs,
        "count_expiry": expiry,
        "unmapped": unmapped,
        "first_urls": first_urls,
        "memory_mb": { "cache_off": rss_off, "cache_on": rss_on },
    }))
}

/// Lighthouse on the first URL of each group, against a fresh server (cache off).
fn lighthouse(bin: &Path, db: &str, dir: &Path, groups: &[(String, String)]) -> Result<Value, String> {
    ensure_chromium()?;
    let perf = root().join("tests/perf");
    npm_install(&perf)?;
    let (server, base) = start_server(bin, db, 0)?;
    let mut out = serde_json::Map::new();
    for (group, url) in groups {
        let file = dir.join(format!("lighthouse-{group}.json"));
        run(Command::new(perf.join("node_modules/.bin/lighthouse"))
            .arg(format!("{base}{url}"))
            .args(["--quiet", "--output=json", "--only-categories=performance,accessibility,best-practices,seo"])
            .arg(format!("--output-path={}", file.display()))
            .arg("--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run --disable-sync --disable-quic")
            .env("CHROME_PATH", "/usr/bin/chromium"))?;
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&file).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        let audits = &r["audits"];
        let mut failed = Vec::new();
        let mut scores = serde_json::Map::new();
        if let Some(cats) = r["categories"].as_object() {
            for (id, c) in cats {
                scores.insert(id.clone(), json!((c["score"].as_f64().unwrap_or(0.0) * 100.0).round() as i64));
                for a in c["auditRefs"].as_array().into_iter().flatten() {
                    let audit = &audits[a["id"].as_str().unwrap_or("")];
                    if a["weight"].as_f64().unwrap_or(0.0) > 0.0 && audit["score"].as_f64().is_some_and(|s| s < 1.0) {
                        failed.push(format!("{id}: {}", a["id"].as_str().unwrap_or("")));
                    }
                }
            }
        }
        out.insert(
            group.clone(),
            json!({
                "url": url,
                "scores": scores,
                "lcp_ms": audits["largest-contentful-paint"]["numericValue"].as_f64().map(f64::round),
                "tbt_ms": audits["total-blocking-time"]["numericValue"].as_f64().map(f64::round),
                "cls": audits["cumulative-layout-shift"]["numericValue"],
                "failed_audits": failed,
            }),
        );
    }
    drop(server);
    Ok(Value::Object(out))
}

fn num(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    }
}

#[expect(clippy::print_stdout, reason = "the table is what the command prints")]
fn table(report: &Value) {
    println!(
        "\n{:<8} {:>9} {:>7} {:>7} {:>6} | {:>9} {:>7} {:>7} {:>6} | {:>15} | {:>6} {:>5} {:>5} {:>6} {:>6}",
        "page", "off r/s", "p50", "p99", "×ngx", "on r/s", "p50", "p99", "×ngx", "nginx off / on", "html", "css", "js", "total", "fold"
    );
    if let Some(pages) = report["http"]["pages"].as_object() {
        for (name, p) in pages {
            let (off, on, w) = (&p["cache_off"], &p["cache_on"], &p["weight"]);
            println!(
                "{:<8} {:>9} {:>7} {:>7} {:>6} | {:>9} {:>7} {:>7} {:>6} | {:>15} | {:>6} {:>5} {:>5} {:>6} {:>6} {:>6}",
                name,
                num(&off["rps"]),
                num(&off["p50_ms"]),
                num(&off["p99_ms"]),
                num(&off["vs_nginx"]),
                num(&on["rps"]),
                num(&on["p50_ms"]),
                num(&on["p99_ms"]),
                num(&on["vs_nginx"]),
                format!("{} / {}", num(&p["nginx"]["rps"]), num(&p["nginx_beside_cached"]["rps"])),
                num(&w["html_gzip"]),
                num(&w["css_gzip"]),
                num(&w["js_gzip"]),
                num(&w["total_gzip"]),
                num(&w["first_screen_gzip"]),
                num(&w["js_later_gzip"])
            );
        }
    }
    println!("\n{:<8} {:>9} {:>7} {:>7} {:>6}   (returning visitors, with their device id; cache on)", "page", "r/s", "p50", "p99", "×ngx");
    if let Some(pages) = report["http"]["pages"].as_object() {
        for (name, p) in pages {
            let r = &p["cache_on_returning"];
            println!("{:<8} {:>9} {:>7} {:>7} {:>6}", name, num(&r["rps"]), num(&r["p50_ms"]), num(&r["p99_ms"]), num(&r["vs_nginx"]));
        }
    }
    println!("\n{:<14} {:>4} {:>9} {:>7} {:>7} {:>6} {:>9} {:>8}", "list facet", "urls", "off r/s", "p50", "p99", "×ngx", "nginx r/s", "timeouts");
    for f in report["http"]["facets"].as_array().into_iter().flatten() {
        let off = &f["cache_off"];
        println!(
            "{:<14} {:>4} {:>9} {:>7} {:>7} {:>6} {:>9} {:>8}",
            f["facet"].as_str().unwrap_or(""),
            f["urls"].as_array().map_or(0, Vec::len),
            num(&off["rps"]),
            num(&off["p50_ms"]),
            num(&off["p99_ms"]),
            num(&off["vs_nginx"]),
            num(&f["nginx"]["rps"]),
            num(&off["timeouts"])
        );
    }
    let e = &report["http"]["count_expiry"];
    println!(
        "list mix across count expiries (totals kept {} s): {} r/s, p50 {} ms, p99 {} ms, {} timeouts, {} non-2xx",
        num(&e["count_secs"]),
        num(&e["rps"]),
        num(&e["p50_ms"]),
        num(&e["p99_ms"]),
        num(&e["timeouts"]),
        num(&e["non_2xx"])
    );
    let m = &report["http"]["unmapped"];
    println!(
        "list mix with the SQLite file not mapped (cache.reader_map_mb = 0; the default maps 1024 MiB): {} r/s, p50 {} ms, p99 {} ms; memory afterwards peak {} / private {} MB",
        num(&m["rps"]),
        num(&m["p50_ms"]),
        num(&m["p99_ms"]),
        num(&m["memory_mb"]["peak"]),
        num(&m["memory_mb"]["private"])
    );
    println!(
        "latency in ms at {CONNECTIONS} connections; ×ngx against nginx run right after ours on the same bodies (nginx off / on: its run beside the uncached and the cached one; for pages, the median of {PAIRS} such pairs, every run's rate in bench.json); bytes gzipped; fold = gzipped HTML to the end of the first screen; later = JS of islands that load only when scrolled into view (not in total)"
    );
    let mem = &report["http"]["memory_mb"];
    println!(
        "memory (MB) after the runs, peak RSS / proportional (Pss: each mapped page once) / private (RssAnon): cache off {} / {} / {}, cache on {} / {} / {} (the peak counts the mapped database file once per reader connection)",
        num(&mem["cache_off"]["peak"]),
        num(&mem["cache_off"]["proportional"]),
        num(&mem["cache_off"]["private"]),
        num(&mem["cache_on"]["peak"]),
        num(&mem["cache_on"]["proportional"]),
        num(&mem["cache_on"]["private"])
    );
    if let Some(lh) = report["lighthouse"].as_object() {
        for (name, l) in lh {
            let s = &l["scores"];
            println!(
                "lighthouse {name}: performance {} accessibility {} best-practices {} seo {}; LCP {} ms, TBT {} ms, CLS {}",
                num(&s["performance"]),
                num(&s["accessibility"]),
                num(&s["best-practices"]),
                num(&s["seo"]),
                num(&l["lcp_ms"]),
                num(&l["tbt_ms"]),
                num(&l["cls"])
            );
        }
    }
    for backend in ["sqlite", "postgres"] {
        let d = &report["db"][backend];
        println!(
            "filters at the database, {backend}: {} queries, p50 {} ms, p99 {} ms, max {} ms (the first search after opening {} ms) {}",
            num(&d["queries"]),
            num(&d["p50_ms"]),
            num(&d["p99_ms"]),
            num(&d["max_ms"]),
            num(&d["first_search_ms"]),
            d["skipped"].as_str().unwrap_or("")
        );
    }
}

/// `cargo xtask bench`.
#[expect(clippy::print_stdout, reason = "where the report went is part of the output")]
pub fn bench(args: &[String]) -> Res {
    let o = opts(args)?;
    ensure_program("/usr/bin/wrk", "wrk")?;
    ensure_program("/usr/sbin/nginx", "nginx")?;
    build_islands()?;
    run(cargo().args(["build", "--release", "-p", "web", "--bin", "usedcar"]))?;
    let bin = root().join("target/release/usedcar");
    let dir: PathBuf = root().join("target/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let sqlite = sqlite_db(&bin, &dir, o.listings)?;
    let mut db = serde_json::Map::new();
    db.insert("sqlite".to_owned(), bench_search(&bin, &sqlite)?);
    let pg = match pg_db(&bin, o.listings) {
        Ok(url) => bench_search(&bin, &url)?,
        Err(e) => json!({ "skipped": format!("PostgreSQL unavailable: {e}") }),
    };
    db.insert("postgres".to_owned(), pg);
    let http = http(&bin, &sqlite, &dir, o.secs)?;
    let first = |group: &str| http["first_urls"][group].as_str().map(|u| (group.to_owned(), u.to_owned()));
    let lh_pages: Vec<(String, String)> = ["home", "carlist", "details"].into_iter().filter_map(first).collect();
    let lighthouse = lighthouse(&bin, &sqlite, &dir, &lh_pages)?;
    let report = json!({
        "listings": o.listings,
        "connections": CONNECTIONS,
        "seconds_per_run": o.secs,
        "machine": { "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0) },
        "db": db,
        "http": http,
        "lighthouse": lighthouse,
    });
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("bench.json"), &text).map_err(|e| e.to_string())?;
    table(&report);
    println!("written to {}", dir.join("bench.json").display());
    Ok(())
}
