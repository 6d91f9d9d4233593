//! `cargo xtask bench [--million] [--secs N]`: the performance harness.
//!
//! One run on this machine:
//! 1. seeds a SQLite database of 100,000 listings (1,000,000 with `--million`) and the same on
//!    PostgreSQL, each kept under `target/bench/` (or in the `usedcar_bench_{n}` database) and
//!    reused by later runs;
//! 2. times every `/carlist` filter combination at the database on both (`usedcar bench-search`);
//! 3. starts the release server on the SQLite file, loads `/`, a mix of `/carlist` filter URLs
//!    and a mix of `/details/{id}` with wrk (64 connections, 2 threads), with the response cache
//!    off and then on, and reads the server's peak RSS;
//! 4. saves the very same response bodies as files and serves them from nginx in the same run
//!    under the same load, for the ratio;
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

/// The page groups and their URLs, read off the running site.
fn pick_urls(base: &str) -> Result<Vec<(&'static str, Vec<String>)>, String> {
    let list = fetch(&format!("{base}/carlist"))?;
    let mut lists: BTreeSet<String> = BTreeSet::new();
    lists.insert("/carlist".to_owned());
    lists.insert("/carlist?page=2".to_owned());
    for href in attr_values(&list, "href", "/carlist?") {
        if lists.len() >= 24 {
            break;
        }
        lists.insert(href);
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
    Ok(vec![("home", vec!["/".to_owned()]), ("carlist", lists.into_iter().collect()), ("details", details)])
}

fn lua_script(path: &Path, urls: &[String]) -> Res {
    let list: Vec<String> = urls.iter().map(|u| format!("{u:?}")).collect();
    let script = format!(
        "local paths = {{ {} }}\nlocal n = 0\nrequest = function()\n  n = n + 1\n  return wrk.format(\"GET\", paths[(n % #paths) + 1])\nend\n",
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
    lua_script(script, urls)?;
    // A short warm-up (caches, connections), then the measured run.
    output(Command::new("wrk").args(["-t2", "-c64", "-d2s", "-s"]).arg(script).arg(base))?;
    let out = output(Command::new("wrk").args(["-t2", &format!("-c{CONNECTIONS}"), &format!("-d{secs}s"), "--latency", "-s"]).arg(script).arg(base))?;
    let field = |prefix: &str| out.lines().find_map(|l| l.trim().strip_prefix(prefix).map(|r| r.trim().to_owned()));
    let rps: f64 = field("Requests/sec:").and_then(|v| v.parse().ok()).ok_or_else(|| format!("wrk printed no rate:\n{out}"))?;
    let non_2xx: u64 = field("Non-2xx or 3xx responses:").and_then(|v| v.parse().ok()).unwrap_or(0);
    Ok(json!({
        "rps": rps.round(),
        "p50_ms": field("50%").as_deref().and_then(millis),
        "p99_ms": field("99%").as_deref().and_then(millis),
        "non_2xx": non_2xx,
        "socket_errors": field("Socket errors:"),
    }))
}

/// Peak resident memory of a process, in MB.
fn peak_rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

fn start_server(bin: &Path, db: &str, cache_secs: u32) -> Result<(Server, String), String> {
    let addr = format!("127.0.0.1:{}", free_port()?);
    let child = Command::new(bin)
        .args(["serve", "--addr", &addr, "--database-url", db])
        .env("USEDCAR_LOG", "warn")
        .env("USEDCAR_SITE_URL", format!("http://{addr}"))
        .env("USEDCAR_CACHE_RESPONSE_SECS", cache_secs.to_string())
        // The production default: list totals are recounted at most every 30 s (both runs; the
        // response cache is what the two runs compare).
        .env("USEDCAR_CACHE_COUNT_SECS", COUNT_CACHE_SECS)
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

fn http(bin: &Path, db: &str, dir: &Path, secs: u32) -> Result<Value, String> {
    let script = dir.join("urls.lua");
    let (server, base) = start_server(bin, db, 0)?;
    let groups = pick_urls(&base)?;
    let static_dir = dir.join("static");
    let _ = std::fs::remove_dir_all(&static_dir);
    let mut pages = serde_json::Map::new();
    let mut statics: Vec<(&str, Vec<String>)> = Vec::new();
    for (group, urls) in &groups {
        std::fs::create_dir_all(static_dir.join(group)).map_err(|e| e.to_string())?;
        let mut files = Vec::new();
        for (i, url) in urls.iter().enumerate() {
            curl(&format!("{base}{url}"), false, &static_dir.join(group).join(format!("{i}.html")))?;
            files.push(format!("/{group}/{i}.html"));
        }
        statics.push((group, files));
        let weight = weights(&base, &urls[0], group, dir)?;
        let off = wrk(&base, urls, &script, secs)?;
        pages.insert((*group).to_owned(), json!({ "urls": urls.len(), "weight": weight, "cache_off": off }));
    }
    let rss_off = peak_rss_mb(server.0.id());
    drop(server);

    let (server, base) = start_server(bin, db, 2)?;
    for (group, urls) in &groups {
        let on = wrk(&base, urls, &script, secs)?;
        if let Some(p) = pages.get_mut(*group) {
            p["cache_on"] = on;
        }
    }
    let rss_on = peak_rss_mb(server.0.id());
    drop(server);

    let port = free_port()?;
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, nginx_conf(dir, port)).map_err(|e| e.to_string())?;
    let child = Command::new("/usr/sbin/nginx").arg("-c").arg(&conf).arg("-p").arg(dir).stderr(Stdio::inherit()).spawn().map_err(|e| format!("nginx: {e}"))?;
    let mut nginx = Server(child);
    let addr = format!("127.0.0.1:{port}");
    wait_for(&addr, &mut nginx.0)?;
    for (group, files) in &statics {
        let ng = wrk(&format!("http://{addr}"), files, &script, secs)?;
        if let Some(p) = pages.get_mut(*group) {
            for mode in ["cache_off", "cache_on"] {
                let ours = p[mode]["rps"].as_f64().unwrap_or(0.0);
                let theirs = ng["rps"].as_f64().unwrap_or(0.0);
                p[mode]["vs_nginx"] = json!(if theirs > 0.0 { (ours / theirs * 1000.0).round() / 1000.0 } else { 0.0 });
            }
            p["nginx"] = ng;
        }
    }
    // `stop` through the master, which takes its workers with it (killing the master alone
    // would leave them running and listening).
    let _ = Command::new("/usr/sbin/nginx").arg("-c").arg(&conf).arg("-p").arg(dir).args(["-s", "stop"]).status();
    let _ = nginx.0.wait();
    drop(nginx);
    let first_urls: serde_json::Map<String, Value> = groups.iter().map(|(g, urls)| ((*g).to_owned(), json!(urls[0]))).collect();
    Ok(json!({ "pages": pages, "first_urls": first_urls, "peak_rss_mb": { "cache_off": rss_off, "cache_on": rss_on } }))
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
        "\n{:<8} {:>9} {:>7} {:>7} {:>6} | {:>9} {:>7} {:>7} {:>6} | {:>9} | {:>6} {:>5} {:>5} {:>6} {:>6}",
        "page", "off r/s", "p50", "p99", "×ngx", "on r/s", "p50", "p99", "×ngx", "nginx r/s", "html", "css", "js", "total", "fold"
    );
    if let Some(pages) = report["http"]["pages"].as_object() {
        for (name, p) in pages {
            let (off, on, w) = (&p["cache_off"], &p["cache_on"], &p["weight"]);
            println!(
                "{:<8} {:>9} {:>7} {:>7} {:>6} | {:>9} {:>7} {:>7} {:>6} | {:>9} | {:>6} {:>5} {:>5} {:>6} {:>6} {:>6}",
                name,
                num(&off["rps"]),
                num(&off["p50_ms"]),
                num(&off["p99_ms"]),
                num(&off["vs_nginx"]),
                num(&on["rps"]),
                num(&on["p50_ms"]),
                num(&on["p99_ms"]),
                num(&on["vs_nginx"]),
                num(&p["nginx"]["rps"]),
                num(&w["html_gzip"]),
                num(&w["css_gzip"]),
                num(&w["js_gzip"]),
                num(&w["total_gzip"]),
                num(&w["first_screen_gzip"]),
                num(&w["js_later_gzip"])
            );
        }
    }
    println!(
        "latency in ms at {CONNECTIONS} connections; bytes gzipped; fold = gzipped HTML to the end of the first screen; later = JS of islands that load only when scrolled into view (not in total)"
    );
    println!("peak RSS (MB): cache off {}, cache on {}", num(&report["http"]["peak_rss_mb"]["cache_off"]), num(&report["http"]["peak_rss_mb"]["cache_on"]));
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
            "filters at the database, {backend}: {} queries, p50 {} ms, p99 {} ms, max {} ms {}",
            num(&d["queries"]),
            num(&d["p50_ms"]),
            num(&d["p99_ms"]),
            num(&d["max_ms"]),
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
