//! `cargo xtask stress [--secs N] [--listings N] [--pg | --cluster] [--debug] [--soak MIN]`: the load runs of the test plan
//! on one machine (SQLite in WAL, or with `--pg` a PostgreSQL database of its own, or with
//! `--cluster` through nginx to two nodes on PostgreSQL with photos in the S3 store, RSS the two
//! nodes' together; the sandbox adapters, the response cache off), each driven by wrk with a Lua script and bounded in time:
//! - **L1 reads**: 64 connections over a mix of home, `/carlist` filter pages, detail pages and the
//!   JSON API;
//! - **L2 writes**: 16 connections posting 询底价 leads and sell requests, each from its own phone
//!   and its own address (`X-Forwarded-For`, the server trusting loopback as its proxy); every
//!   write the client saw acknowledged (303) is then looked for in the database: `lost` counts
//!   the acknowledged ones that are not there (a write still in flight when the run stops may be
//!   stored without its answer being counted, so `stored` can exceed `acknowledged`), and
//!   `duplicated` the phones with a lead stored twice;
//! - **L3 uploads**: eight signed-in sellers, a connection each, posting a 3 MB JPEG to the photo
//!   uploader over and over (each must be stored: 200), photos under `target/stress/`;
//! - **L5 codes**: 1,000 login-code requests for one phone from one address: one code is stored
//!   and sent, every other request is answered 429.
//! - **L4 soak** (`--soak MIN`, alone): L1's mix for `--secs` to learn its rate, then the same mix
//!   at half that rate for MIN minutes, the server's resident memory read every 15 s (with
//!   `--cluster`, through nginx, the two nodes' together; `soak-cluster.json`); the run
//!   fails when it ends more than 10 % above where it was after the first minute (the warm-up),
//!   or on any error.
//!
//! Per run it prints and writes to `target/stress/stress.json` (`stress-pg.json` with `--pg`):
//! requests, socket errors, answers that are not what the run expects (reads: 400 and more; writes:
//! anything but 303; uploads: anything but 200; codes: anything but 200 or 429), p50/p99 in ms, and the server's resident
//! memory before and after. The server runs as in production but for the response cache: list
//! totals memoised 30 s. Everything points at 127.0.0.1 and stops by itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Res, Server, free_port, root, run, wait_for};

/// How each run's client reports: wrk's totals and, from every thread, the statuses it saw.
const DONE: &str = r#"
done = function(summary, latency, requests)
  local counts = {}
  for _, t in ipairs(threads) do
    local c = t:get("codes")
    for k, v in pairs(c) do counts[k] = (counts[k] or 0) + v end
  end
  local codes = {}
  for k, v in pairs(counts) do table.insert(codes, string.format('"%d":%d', k, v)) end
  io.write(string.format('STRESS {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"codes":{%s}}\n',
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout, latency:percentile(50), latency:percentile(99), latency.max,
    table.concat(codes, ",")))
end
"#;

/// Counting every response's status, per thread (wrk's threads each run their own Lua).
const COUNT: &str = r#"
threads = {}
setup = function(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end
codes = {}
response = function(status, headers, body)
  codes[status] = (codes[status] or 0) + 1
  if limit then
    local n = 0
    for _, v in pairs(codes) do n = n + v end
    if n >= limit then wrk.thread:stop() end
  end
end
"#;

fn lua_list(items: &[String]) -> String {
    items.iter().map(|u| format!("{u:?}")).collect::<Vec<_>>().join(", ")
}

/// L1: every path in turn. No per-response Lua (it costs the client the cores the server needs):
/// wrk counts answers of 400 and more itself.
fn reads_script(paths: &[String]) -> String {
    format!(
        "threads = {{}}\nsetup = function(thread) table.insert(threads, thread) end\ncodes = {{}}\nlocal paths = {{ {} }}\nlocal n = 0\nrequest = function()\n  n = n + 1\n  return wrk.format(\"GET\", paths[(n % #paths) + 1])\nend\n{DONE}",
        lua_list(paths)
    )
}

/// L4: L1's mix, each connection waiting `delay_ms` before each request (wrk's `delay` hook).
fn paced_reads_script(paths: &[String], delay_ms: u32) -> String {
    format!("{}\ndelay = function() return {delay_ms} end\n", reads_script(paths))
}

/// The write requests of L2 and of the faults' rounds: a 询底价 on one of `cars`, or (one in
/// four) a sell request, each from a phone and an address of its own — `prefix` (two digits of
/// the run) + the thread + a counter make the phone, kept in `last` for the answer's callback.
pub(crate) fn write_requests(cars: &[String], prefix: u32) -> String {
    format!(
        r#"
local cars = {{ {} }}
local n = 0
last = nil
request = function()
  n = n + 1
  last = string.format("13%02d%d%06d", {prefix}, id % 10, n)
  local headers = {{ ["Content-Type"] = "application/x-www-form-urlencoded", ["X-Forwarded-For"] = string.format("10.%d.%d.%d", id, math.floor(n / 256) % 256, n % 256) }}
  if n % 4 == 0 then
    return wrk.format("POST", "/personalsell/lead", headers, "city=changsha&car=2019%E6%AC%BE%E5%A4%A7%E4%BC%97%E6%9C%97%E9%80%B8&mobile=" .. last)
  end
  return wrk.format("POST", cars[(n % #cars) + 1] .. "/lead", headers, "intent=ask_price&mobile=" .. last)
end
"#,
        lua_list(cars)
    )
}

/// L2: the write requests, every answer's status counted.
fn writes_script(cars: &[String], prefix: u32) -> String {
    format!("{COUNT}{}{DONE}", write_requests(cars, prefix))
}

/// L5: `limit` code requests for one phone, from one address.
fn codes_script(mobile: &str, limit: u32) -> String {
    format!(
        "limit = {limit}\n{COUNT}\nrequest = function()\n  return wrk.format(\"POST\", \"/sys/login/code\", {{ [\"Content-Type\"] = \"application/x-www-form-urlencoded\", [\"Accept\"] = \"application/json\" }}, \"mobile={mobile}\")\nend\n{DONE}"
    )
}

/// L3's sellers, each on a connection (and a wrk thread) of their own.
const UPLOADERS: u32 = 8;

/// A 3 MB photo for L3: a 3000×2250 JPEG of ImageMagick's plasma with grain (what a phone's
/// camera gives, more or less), made once under `dir`.
fn big_photo(dir: &Path) -> Result<PathBuf, String> {
    let photo = dir.join("stress-photo.jpg");
    if std::fs::metadata(&photo).is_ok_and(|m| m.len() >= 2_500_000) {
        return Ok(photo);
    }
    // Debian's, by its path: /usr/local/bin may hold a stand-in of the same name.
    crate::bench::ensure_program("/usr/bin/convert", "imagemagick")?;
    run(Command::new("/usr/bin/convert")
        .args(["-seed", "7", "-size", "3000x2250", "plasma:fractal", "-attenuate", "0.4", "+noise", "Gaussian", "-quality", "90"])
        .arg(&photo))?;
    Ok(photo)
}

/// L3: each thread's seller posts `photo` to the photo uploader as the island does.
fn uploads_script(photo: &Path, cookies: &[String]) -> String {
    format!(
        r#"{COUNT}
local f = io.open({photo:?}, "rb")
local bytes = f:read("*a")
f:close()
local boundary = "stressL3boundary7MA4YWxkTrZu0gW"
local body = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"car.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n" .. bytes .. "\r\n--" .. boundary .. "--\r\n"
local cookies = {{ {cookies} }}
request = function()
  local headers = {{ ["Cookie"] = cookies[id], ["Accept"] = "application/json", ["Content-Type"] = "multipart/form-data; boundary=" .. boundary, ["X-Forwarded-For"] = "10.77." .. id .. ".1" }}
  return wrk.format("POST", "/upload/photo", headers, body)
end
{DONE}"#,
        photo = photo.display().to_string(),
        cookies = lua_list(cookies),
    )
}

/// The `Cookie` header of a curl cookie jar (Netscape format; `#HttpOnly_` lines are cookies).
pub(crate) fn cookie_header(jar: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(jar).map_err(|e| e.to_string())?;
    let pairs: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && (!l.starts_with('#') || l.starts_with("#HttpOnly_")))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 7).then(|| format!("{}={}", f[5], f[6]))
        })
        .collect();
    if pairs.is_empty() { Err("signing in left no cookie".to_owned()) } else { Ok(pairs.join("; ")) }
}

/// One wrk run: its `STRESS` line as JSON.
fn wrk(base: &str, script: &Path, body: &str, threads: u32, connections: u32, secs: u32) -> Result<Value, String> {
    wrk_watching(base, script, body, (threads, connections, secs), &[]).map(|(run, _)| run)
}

/// One wrk run of `(threads, connections, seconds)`, and the resident memory of the processes
/// `watch` together every 15 s as `[seconds since the start, MB]`.
fn wrk_watching(base: &str, script: &Path, body: &str, shape: (u32, u32, u32), watch: &[u32]) -> Result<(Value, Vec<(u64, f64)>), String> {
    let (threads, connections, secs) = shape;
    std::fs::write(script, body).map_err(|e| e.to_string())?;
    let args = [format!("-t{threads}"), format!("-c{connections}"), format!("-d{secs}s"), "--timeout".to_owned(), "10s".to_owned()];
    eprintln!("$ wrk {} -s {} {base}", args.join(" "), script.display());
    let mut child = Command::new("wrk")
        .args(&args)
        .arg("-s")
        .arg(script)
        .arg(base)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("wrk: {e}"))?;
    let began = Instant::now();
    let mut samples = Vec::new();
    if !watch.is_empty() {
        let mut next = Duration::ZERO;
        while child.try_wait().map_err(|e| e.to_string())?.is_none() {
            if began.elapsed() >= next {
                if let Some(mb) = rss_total(watch) {
                    samples.push((began.elapsed().as_secs(), mb));
                }
                next += Duration::from_secs(15);
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        if let Some(mb) = rss_total(watch) {
            samples.push((began.elapsed().as_secs(), mb));
        }
    }
    let out = child.wait_with_output().map_err(|e| format!("wrk: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find_map(|l| l.strip_prefix("STRESS ")).ok_or_else(|| format!("wrk printed no summary:\n{text}"))?;
    Ok((serde_json::from_str(line).map_err(|e| format!("wrk's summary {line}: {e}"))?, samples))
}

/// What serves a run; dropping it stops it.
enum Serving {
    One(#[expect(dead_code, reason = "held to be dropped")] Server),
    Cluster(#[expect(dead_code, reason = "held to be dropped")] Box<crate::cluster::Up>),
}

/// Resident memory of the processes together, in MB.
fn rss_total(pids: &[u32]) -> Option<f64> {
    pids.iter().map(|p| rss_mb(*p)).sum()
}

/// Resident memory of a process, in MB.
fn rss_mb(pid: u32) -> Option<f64> {
    crate::bench::proc_mb(pid, "status", "VmRSS:")
}

/// The database a run writes to, and how the harness reads it while the server runs (SQLite:
/// Debian's sqlite3, which WAL lets read beside the server; PostgreSQL: psql).
pub(crate) enum Db {
    /// An SQLite file.
    Sqlite(String),
    /// A PostgreSQL database made for the run.
    Postgres(String),
}

impl Db {
    /// The `--database-url` the server takes.
    pub(crate) fn url(&self) -> &str {
        match self {
            Db::Sqlite(path) | Db::Postgres(path) => path,
        }
    }

    fn backend(&self) -> &'static str {
        match self {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres(_) => "postgres",
        }
    }

    /// What `sql` returns, rows on lines, columns split by `|`.
    pub(crate) fn query(&self, sql: &str) -> Result<String, String> {
        let (tool, out) = match self {
            Db::Sqlite(path) => ("sqlite3", Command::new("sqlite3").arg(path).arg(sql).output()),
            Db::Postgres(url) => ("psql", Command::new("psql").args([url.as_str(), "-tAc", sql]).output()),
        };
        let out = out.map_err(|e| format!("{tool}: {e}"))?;
        if !out.status.success() {
            return Err(format!("{tool} {sql}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// A count from the database.
    fn count(&self, sql: &str) -> Result<u64, String> {
        self.query(sql)?.parse().map_err(|_| format!("{sql}: not a count"))
    }

    /// SQLite's `integrity_check` (`ok` when sound); PostgreSQL checks its pages itself and has
    /// no such statement, so this says which checks ran there: none beyond the counts.
    pub(crate) fn integrity(&self) -> Result<String, String> {
        match self {
            Db::Sqlite(_) => self.query("pragma integrity_check"),
            Db::Postgres(_) => Ok("not applicable".to_owned()),
        }
    }
}

/// The tools, the server built (release unless `--debug`), and a fresh database of `listings`
/// cars named `name`: an SQLite file under `target/stress/`, or with `--pg` a PostgreSQL
/// database of that name (dropped first) on `USEDCAR_TEST_PG_URL`'s server (127.0.0.1:5432).
pub(crate) fn prepare(args: &[String], name: &str, listings: u32) -> Result<(PathBuf, PathBuf, Db), String> {
    crate::bench::ensure_program("/usr/bin/wrk", "wrk")?;
    let pg = args.iter().any(|a| a == "--pg");
    if !pg {
        crate::bench::ensure_program("/usr/bin/sqlite3", "sqlite3")?;
    }
    // `--built`: the debug server the test command has just built, as it is (building the bin
    // alone would unify features anew and rebuild half the tree).
    let bin =
        if args.iter().any(|a| a == "--built") { root().join("target/debug/usedcar") } else { crate::build_server(!args.iter().any(|a| a == "--debug"))? };
    let dir = root().join("target/stress");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let db = if pg {
        if !crate::postgres_answers() {
            return Err("--pg: PostgreSQL does not answer on 127.0.0.1:5432 (or USEDCAR_TEST_PG_URL)".to_owned());
        }
        let (admin, base) = crate::bench::pg_server();
        let name = name.replace('.', "_");
        for sql in [format!("drop database if exists {name} with (force)"), format!("create database {name}")] {
            Db::Postgres(admin.clone()).query(&sql)?;
        }
        Db::Postgres(format!("{base}/{name}"))
    } else {
        let path = dir.join(name);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        Db::Sqlite(path.to_string_lossy().into_owned())
    };
    run(Command::new(&bin).args(["seed", "--listings", &listings.to_string(), "--database-url", db.url()]).env("USEDCAR_LOG", "warn"))?;
    Ok((bin, dir, db))
}

/// The server on `addr` as the runs want it: production's memo of list totals (development
/// recounts each time), the response cache off, loopback trusted as its proxy (so each write
/// request's `X-Forwarded-For` is its own visitor); and how long it took to answer.
pub(crate) fn start(bin: &Path, addr: &str, db: &Db) -> Result<(Server, Duration), String> {
    start_with(bin, addr, db, &[])
}

/// [`start`] with more environment variables (`USEDCAR_*` settings).
pub(crate) fn start_with(bin: &Path, addr: &str, db: &Db, env: &[(&str, &str)]) -> Result<(Server, Duration), String> {
    let began = Instant::now();
    let mut server = Server(
        Command::new(bin)
            .args(["serve", "--addr", addr, "--database-url", db.url()])
            .envs(env.iter().copied())
            .env("USEDCAR_LOG", "warn")
            .env("USEDCAR_SITE_URL", format!("http://{addr}"))
            .env("USEDCAR_CACHE_RESPONSE_SECS", "0")
            .env("USEDCAR_CACHE_COUNT_SECS", "30")
            .env("USEDCAR_PROXY_TRUSTED", "127.0.0.1")
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the server: {e}"))?,
    );
    wait_for(addr, &mut server.0)?;
    Ok((server, began.elapsed()))
}

/// Responses of a run with status `pred`.
fn answered(run: &Value, pred: impl Fn(u16) -> bool) -> u64 {
    run["codes"].as_object().map_or(0, |codes| codes.iter().filter(|(k, _)| k.parse().is_ok_and(&pred)).map(|(_, v)| v.as_u64().unwrap_or(0)).sum())
}

/// A run as the table and the JSON show it.
fn summary(name: &str, run: &Value, before: Option<f64>, after: Option<f64>, ok: impl Fn(u16) -> bool) -> Value {
    let requests = run["requests"].as_u64().unwrap_or(0);
    let secs = run["duration_us"].as_f64().unwrap_or(1.0) / 1e6;
    let socket = ["connect", "read", "write", "timeout"].iter().map(|k| run[*k].as_u64().unwrap_or(0)).sum::<u64>();
    let ms = |k: &str| (run[k].as_f64().unwrap_or(0.0) / 100.0).round() / 10.0;
    json!({
        "run": name,
        "requests": requests,
        "per_sec": (requests as f64 / secs).round(),
        "socket_errors": socket,
        "not_ok": requests - answered(run, &ok),
        "p50_ms": ms("p50_us"),
        "p99_ms": ms("p99_us"),
        "rss_mb_before": before,
        "rss_mb_after": after,
        "codes": run["codes"],
    })
}

/// Online cars' detail paths, from the list.
fn cars(base: &str) -> Result<Vec<String>, String> {
    let out = Command::new("curl").args(["-s", &format!("{base}/carlist?sort=new")]).output().map_err(|e| format!("curl: {e}"))?;
    let html = String::from_utf8_lossy(&out.stdout);
    let mut found: Vec<String> = html
        .split("href=\"/details/")
        .skip(1)
        .filter_map(|s| s.split('"').next().filter(|id| id.bytes().all(|b| b.is_ascii_digit())).map(|id| format!("/details/{id}")))
        .collect();
    found.dedup();
    if found.is_empty() { Err("no cars on /carlist".to_owned()) } else { Ok(found) }
}

/// The number after `flag` in `args`, or `default`.
pub(crate) fn flag_value(args: &[String], flag: &str, default: u32) -> u32 {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Writes a run's report as pretty JSON.
pub(crate) fn write_json(file: &Path, report: &Value) -> Res {
    std::fs::write(file, serde_json::to_string_pretty(report).map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

/// L1's mix: home, list pages with filters, the API's regions and 40 cars' pages.
fn read_paths(cars: &[String]) -> Vec<String> {
    let mut reads = vec!["/".to_owned(), "/carlist".to_owned(), "/api/regions".to_owned()];
    for q in ["brand=dazhong", "price=8-12", "body=suv", "age=0-3&sort=price_asc", "city=changsha", "page=3"] {
        reads.push(format!("/carlist?{q}"));
    }
    reads.extend(cars.iter().take(40).cloned());
    reads
}

/// L1's connections, and L4's.
const READERS: u32 = 64;

/// How far the soak's resident memory may end above where it was after its warm-up.
const SOAK_DRIFT: f64 = 0.10;

/// The soak's warm-up, before its memory is the baseline.
const WARM_UP_SECS: u64 = 60;

/// L4: the rate of L1's mix, then half of it for `minutes`, memory watched.
fn soak(args: &[String], minutes: u32) -> Res {
    let (secs, listings) = (flag_value(args, "--secs", 30), flag_value(args, "--listings", 20_000));
    let (server, db, base, pids) = serving(args, "soak.db", listings)?;
    let dir = root().join("target/stress");
    let reads = read_paths(&cars(&base)?);
    let script = dir.join("soak.lua");
    let full = wrk(&base, &script, &reads_script(&reads), 2, READERS, secs)?;
    let rate = full["requests"].as_f64().unwrap_or(0.0) / (full["duration_us"].as_f64().unwrap_or(1.0) / 1e6);
    let target = rate / 2.0;
    // Each connection waits, then waits for its answer: a short paced run measures the answer's
    // share of the cycle, and the wait is what is left of the cycle half the rate allows.
    let cycle_ms = f64::from(READERS) * 1000.0 / target;
    let first = wrk(&base, &script, &paced_reads_script(&reads, cycle_ms as u32), 2, READERS, 10)?;
    let got = first["requests"].as_f64().unwrap_or(0.0) / (first["duration_us"].as_f64().unwrap_or(1.0) / 1e6);
    let answer_ms = (f64::from(READERS) * 1000.0 / got.max(1.0) - cycle_ms).max(0.0);
    let delay = (cycle_ms - answer_ms).max(0.0) as u32;
    let (run, samples) = wrk_watching(&base, &script, &paced_reads_script(&reads, delay), (2, READERS, minutes * 60), &pids)?;
    let ended = rss_total(&pids);
    // The drift is counted from the end of the first minute at the soak's rate: the minute in
    // which caches, pools and the allocator's heaps grow to what that rate needs.
    let began = samples.iter().find(|(t, _)| *t >= WARM_UP_SECS).map(|(_, mb)| *mb);
    let mut s = summary("L4 soak", &run, began, ended, |_| true);
    s["not_ok"] = run["status"].clone();
    let drift = match (began, ended) {
        (Some(b), Some(e)) if b > 0.0 => (e - b) / b,
        _ => f64::NAN,
    };
    let peak = samples.iter().map(|(_, mb)| *mb).fold(0.0, f64::max);
    let out = json!({
        "backend": if matches!(server, Serving::Cluster(_)) { "cluster: nginx, two nodes, postgres, s3" } else { db.backend() }, "listings": listings, "minutes": minutes,
        "full_rate": rate.round(), "target_rate": target.round(), "delay_ms": delay,
        "run": s, "rss_drift": (drift * 1000.0).round() / 1000.0, "rss_peak_mb": peak, "rss_mb_at_start": samples.first().map(|(_, mb)| *mb),
        "rss_mb": samples.iter().map(|(t, mb)| json!([t, mb])).collect::<Vec<_>>(),
    });
    let file = dir.join(match (&server, &db) {
        (Serving::Cluster(_), _) => "soak-cluster.json",
        (_, Db::Sqlite(_)) => "soak.json",
        (_, Db::Postgres(_)) => "soak-pg.json",
    });
    drop(server);
    write_json(&file, &out)?;
    print_rows(std::slice::from_ref(&out["run"]));
    report_soak(&out, &file);
    let errors = out["run"]["socket_errors"].as_u64() != Some(0) || out["run"]["not_ok"].as_u64() != Some(0);
    if errors || drift.is_nan() || drift > SOAK_DRIFT {
        return Err(format!("soak: resident memory drifted {:.1} % (at most {:.0} %), or a request failed", drift * 100.0, SOAK_DRIFT * 100.0));
    }
    Ok(())
}

#[expect(clippy::print_stdout, reason = "the line is what the command prints")]
fn report_soak(out: &Value, file: &Path) {
    println!(
        "L4: {} min at {} r/s (half of L1's {} r/s), RSS {} MB at the start, {} → {} MB from the end of the first minute, peak {} MB, drift {:.1} %",
        out["minutes"],
        out["run"]["per_sec"],
        out["full_rate"],
        out["rss_mb_at_start"],
        out["run"]["rss_mb_before"],
        out["run"]["rss_mb_after"],
        out["rss_peak_mb"],
        out["rss_drift"].as_f64().unwrap_or(f64::NAN) * 100.0
    );
    println!("written to {}", file.display());
}

/// What serves a run, with its database, base URL and the processes whose memory is watched:
/// one server on the SQLite file `name` under `target/stress/` (or with `--pg` the PostgreSQL
/// database of that name), or with `--cluster` the cluster (nginx, two nodes, PostgreSQL, the S3
/// store), each node's response cache off as the one server's is.
fn serving(args: &[String], name: &str, listings: u32) -> Result<(Serving, Db, String, Vec<u32>), String> {
    if args.iter().any(|a| a == "--cluster") {
        let up = crate::cluster::up(!args.iter().any(|a| a == "--debug"), listings, 0)?;
        let pids = up.nodes.iter().map(|n| n.0.id()).collect::<Vec<_>>();
        let db = Db::Postgres(up.url.clone());
        return Ok((Serving::Cluster(Box::new(up)), db, crate::cluster::base(), pids));
    }
    let (bin, dir, db) = prepare(args, name, listings)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    // Photos go under target/stress, never into the checkout's data/.
    let upload = dir.join("stress-upload");
    let _ = std::fs::remove_dir_all(&upload);
    let (server, _) = start_with(&bin, &addr, &db, &[("USEDCAR_UPLOAD_DIR", upload.to_string_lossy().as_ref())])?;
    let pid = server.0.id();
    Ok((Serving::One(server), db, format!("http://{addr}"), vec![pid]))
}

pub fn stress(args: &[String]) -> Res {
    if args.iter().any(|a| a == "--soak") {
        return soak(args, flag_value(args, "--soak", 30));
    }
    let (secs, listings) = (flag_value(args, "--secs", 30), flag_value(args, "--listings", 20_000));
    let on_cluster = args.iter().any(|a| a == "--cluster");
    let dir = root().join("target/stress");
    let (server, db, base, pids) = serving(args, "stress.db", listings)?;
    let rss = || rss_total(&pids);
    let cars = cars(&base)?;
    let script = dir.join("run.lua");
    let mut runs = Vec::new();

    // L1: pages and the API.
    let reads = read_paths(&cars);
    let before = rss();
    let r = wrk(&base, &script, &reads_script(&reads), 2, READERS, secs)?;
    let mut l1 = summary("L1 reads", &r, before, rss(), |_| true);
    l1["not_ok"] = r["status"].clone();
    runs.push(l1);

    // L2: leads and sell requests, each acknowledged one looked for afterwards.
    let prefix = u32::try_from(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 90 + 10).unwrap_or(10);
    let stored = |db: &Db| db.count(&format!("select count(*) from lead where mobile like '13{prefix:02}%'"));
    let was = stored(&db)?;
    let before = rss();
    let r = wrk(&base, &script, &writes_script(&cars, prefix), 2, 16, secs)?;
    let mut w = summary("L2 writes", &r, before, rss(), |s| s == 303);
    let acknowledged = answered(&r, |s| s == 303);
    let now = stored(&db)?;
    w["acknowledged"] = json!(acknowledged);
    w["stored"] = json!(now - was);
    w["lost"] = json!(acknowledged.saturating_sub(now - was));
    // A write retried or raced never makes a second lead: one per phone, intent and car.
    w["duplicated"] = json!(db.count(&format!(
        "select count(*) from (select mobile from lead where mobile like '13{prefix:02}%' group by mobile, intent, coalesce(listing_id, 0) having count(*) > 1) d"
    ))?);
    runs.push(w);

    // L3: eight signed-in sellers upload a 3 MB photo each, over and over.
    let photo = big_photo(&dir)?;
    let mut cookies = Vec::new();
    for n in 0..UPLOADERS {
        let jar = dir.join(format!("stress-uploader-{n}.txt"));
        crate::faults::sign_in(&base, &jar, &format!("1370{prefix:02}000{n:02}"))?;
        cookies.push(cookie_header(&jar)?);
    }
    let before = rss();
    let r = wrk(&base, &script, &uploads_script(&photo, &cookies), UPLOADERS, UPLOADERS, secs)?;
    let mut u = summary("L3 uploads", &r, before, rss(), |s| s == 200);
    u["photo_bytes"] = json!(std::fs::metadata(&photo).map(|m| m.len()).unwrap_or(0));
    runs.push(u);

    // L5: one phone asks for 1,000 codes.
    let mobile = format!("1390{prefix:02}00000");
    let before = rss();
    let r = wrk(&base, &script, &codes_script(&mobile, 1_000), 1, 8, 10)?;
    let mut c = summary("L5 codes", &r, before, rss(), |s| s == 200 || s == 429);
    c["sent"] = json!(answered(&r, |s| s == 200));
    c["refused_429"] = json!(answered(&r, |s| s == 429));
    c["codes_stored"] = json!(db.count(&format!("select count(*) from sms_code where mobile = '{mobile}'"))?);
    runs.push(c);

    let integrity = db.integrity()?;
    drop(server);

    let backend = if on_cluster { "cluster: nginx, two nodes, postgres, s3" } else { db.backend() };
    let out = json!({ "backend": backend, "listings": listings, "secs": secs, "runs": runs, "integrity_check": integrity });
    let file = dir.join(match (&db, on_cluster) {
        (_, true) => "stress-cluster.json",
        (Db::Sqlite(_), _) => "stress.json",
        (Db::Postgres(_), _) => "stress-pg.json",
    });
    write_json(&file, &out)?;
    print_table(&runs, &integrity, &file);
    let (w, u, c) = (&runs[1], &runs[2], &runs[3]);
    let failed = w["lost"].as_u64() != Some(0)
        || u["not_ok"].as_u64() != Some(0)
        || u["socket_errors"].as_u64() != Some(0)
        || w["duplicated"].as_u64() != Some(0)
        || c["sent"].as_u64() != Some(1)
        || !matches!(integrity.as_str(), "ok" | "not applicable");
    if failed {
        Err("stress: a write was lost or stored twice, an upload failed, more than one code was sent, or the database is damaged".to_owned())
    } else {
        Ok(())
    }
}

#[expect(clippy::print_stdout, reason = "the table is what the command prints")]
fn print_rows(runs: &[Value]) {
    println!("\n{:<10} {:>9} {:>7} {:>7} {:>7} {:>8} {:>8} {:>12}", "run", "requests", "r/s", "socket", "not-ok", "p50 ms", "p99 ms", "RSS MB");
    for r in runs {
        let f = |k: &str| r[k].to_string();
        println!(
            "{:<10} {:>9} {:>7} {:>7} {:>7} {:>8} {:>8} {:>5}→{:<6}",
            r["run"].as_str().unwrap_or(""),
            f("requests"),
            f("per_sec"),
            f("socket_errors"),
            f("not_ok"),
            f("p50_ms"),
            f("p99_ms"),
            f("rss_mb_before"),
            f("rss_mb_after")
        );
    }
}

#[expect(clippy::print_stdout, reason = "the table is what the command prints")]
fn print_table(runs: &[Value], integrity: &str, file: &Path) {
    print_rows(runs);
    let w = &runs[1];
    println!("L2: {} writes acknowledged, {} stored, lost {}, duplicated {}", w["acknowledged"], w["stored"], w["lost"], w["duplicated"]);
    let u = &runs[2];
    println!(
        "L3: {} photos of {} bytes stored, p99 {} ms, RSS {} → {} MB",
        u["requests"], u["photo_bytes"], u["p99_ms"], u["rss_mb_before"], u["rss_mb_after"]
    );
    let c = &runs[3];
    println!("L5: {} codes sent, {} refused with 429, {} stored; integrity_check: {integrity}", c["sent"], c["refused_429"], c["codes_stored"]);
    println!("written to {}", file.display());
}
