//! `cargo xtask faults [--rounds N] [--pg] [--debug]`: F1 of the test plan on one machine — the
//! server killed with `kill -9` while it takes writes, then started again, `N` times (default 20),
//! on SQLite or (`--pg`) on a PostgreSQL database of its own. The
//! harness is the server's parent. In each round wrk posts 询底价 leads and sell requests, each
//! from a phone of its own, over one connection per thread (so a thread's answer is its last
//! request's), and writes down every phone whose write was acknowledged (303). The server is
//! killed 0.3–1.5 s in; after the restart every acknowledged phone must have its lead, no phone
//! two, and on SQLite `PRAGMA integrity_check` must say ok. It prints per round the writes
//! acknowledged, lost and duplicated and how long the restart took to answer, and writes
//! `target/stress/faults.json` (`faults-pg.json`) with `"lost"` per round.
//!
//! `cargo xtask faults --stop-db [--rounds N] [--debug]` is F2, on PostgreSQL: the same writes,
//! and 0.3–1.5 s in the local PostgreSQL cluster is stopped (`pg_ctlcluster … stop -m
//! immediate`), left down for two seconds and started again, while the server keeps running.
//! Meanwhile a page and a lead form must be answered 503 with the Chinese page (no driver text,
//! within 7 s: the pool waits 5 s for a connection); after PostgreSQL is back the site must
//! answer again within 5 s with no restart, and every acknowledged write must be stored once.
//! A guard starts PostgreSQL again whatever happens. Output: `target/stress/faults-db-stop.json`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::stress::{Db, prepare, start};
use crate::{Res, free_port};

/// wrk's script: the stress run's write requests over one connection per thread (so an answer is
/// its thread's `last` request's); each 303 writes its phone down, and at the end every thread's
/// phones go to `acked`.
fn script(cars: &[String], prefix: u32, acked: &Path) -> String {
    format!(
        r#"
threads = {{}}
setup = function(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end
acked = {{}}
{requests}
response = function(status, headers, body)
  if status == 303 and last then table.insert(acked, last) end
end
done = function(summary, latency, requests)
  local f = io.open({acked:?}, "w")
  for _, t in ipairs(threads) do
    for _, m in ipairs(t:get("acked")) do f:write(m, "\n") end
  end
  f:close()
end
"#,
        requests = crate::stress::write_requests(cars, prefix),
        acked = acked.display().to_string(),
    )
}

/// A pseudo-random delay in 0.3–1.5 s for round `i` (the harness needs no crate for it).
fn delay(i: u32) -> Duration {
    let x = u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) % 1_200;
    Duration::from_millis(300 + x)
}

/// What a round's acknowledged writes came to in the database.
struct Tally {
    acked: usize,
    stored: usize,
    lost: usize,
    duplicated: usize,
}

/// Reads the phones wrk acknowledged (`acked_file`) and the leads stored for the round's phones
/// (`13{prefix}…`).
fn tally(db: &Db, prefix: u32, acked_file: &Path) -> Result<Tally, String> {
    let acked: Vec<String> = std::fs::read_to_string(acked_file).unwrap_or_default().lines().map(str::to_owned).collect();
    let mut stored: BTreeMap<String, u64> = BTreeMap::new();
    for line in db.query(&format!("select mobile, count(*) from lead where mobile like '13{prefix:02}%' group by mobile"))?.lines() {
        if let Some((m, n)) = line.split_once('|') {
            stored.insert(m.to_owned(), n.parse().unwrap_or(0));
        }
    }
    let acked: BTreeSet<&String> = acked.iter().collect();
    let lost = acked.iter().filter(|m| !stored.contains_key(m.as_str())).count();
    let duplicated = stored.values().filter(|n| **n > 1).count();
    Ok(Tally { acked: acked.len(), stored: stored.len(), lost, duplicated })
}

/// wrk posting the round's writes for `secs` seconds (acknowledged phones to `acked`).
fn write_load(base: &str, cars: &[String], prefix: u32, script_file: &Path, acked: &Path, secs: u32) -> Result<std::process::Child, String> {
    std::fs::write(script_file, script(cars, prefix, acked)).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(acked);
    Command::new("wrk")
        .args(["-t4", "-c4", &format!("-d{secs}s"), "--timeout", "10s", "-s"])
        .arg(script_file)
        .arg(base)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("wrk: {e}"))
}

pub fn faults(args: &[String]) -> Res {
    if args.iter().any(|a| a == "--stop-db") {
        return stop_db(args);
    }
    let rounds: u32 = args.iter().position(|a| a == "--rounds").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(20);
    let (bin, dir, db) = prepare(args, "faults.db", 2_000)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let base = format!("http://{addr}");
    let (mut server, _) = start(&bin, &addr, &db)?;
    let cars: Vec<String> = db
        .query("select listing_id from listing where status = 'online' order by listing_id limit 50")?
        .lines()
        .map(|id| format!("/details/{}", id.trim()))
        .collect();
    let (script_file, acked_file) = (dir.join("faults.lua"), dir.join("faults-acked.txt"));
    let mut results = Vec::new();
    let mut failed = false;
    for round in 1..=rounds {
        let prefix = 10 + round;
        let mut load = write_load(&base, &cars, prefix, &script_file, &acked_file, 3)?;
        std::thread::sleep(delay(round));
        // kill -9: the process gets no chance to finish anything.
        server.0.kill().map_err(|e| format!("kill: {e}"))?;
        let _ = server.0.wait();
        let _ = load.wait();
        let (restarted, took) = start(&bin, &addr, &db)?;
        server = restarted;
        let Tally { acked, stored, lost, duplicated } = tally(&db, prefix, &acked_file)?;
        let integrity = db.integrity()?;
        failed |= lost > 0 || duplicated > 0 || !matches!(integrity.as_str(), "ok" | "not applicable") || acked == 0;
        eprintln!(
            "round {round:>2}: killed after {:>4} ms, {:>4} writes acknowledged, {:>4} stored, lost {lost}, duplicated {duplicated}, integrity {integrity}, answering again in {} ms",
            delay(round).as_millis(),
            acked,
            stored,
            took.as_millis()
        );
        results.push(json!({
            "round": round,
            "killed_after_ms": delay(round).as_millis() as u64,
            "acknowledged": acked,
            "stored": stored,
            "lost": lost,
            "duplicated": duplicated,
            "integrity_check": integrity,
            "restart_ms": took.as_millis() as u64,
        }));
    }
    drop(server);
    let lost: u64 = results.iter().map(|r| r["lost"].as_u64().unwrap_or(0)).sum();
    let acknowledged: u64 = results.iter().map(|r| r["acknowledged"].as_u64().unwrap_or(0)).sum();
    let out = json!({ "fault": "F1 kill -9 during lead and sell-request writes", "backend": if matches!(db, Db::Sqlite(_)) { "sqlite" } else { "postgres" }, "rounds": results, "acknowledged": acknowledged, "lost": lost });
    let file = dir.join(if matches!(db, Db::Sqlite(_)) { "faults.json" } else { "faults-pg.json" });
    std::fs::write(&file, serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    eprintln!("F1: {rounds} rounds, {acknowledged} writes acknowledged, {lost} lost; written to {}", file.display());
    if failed { Err("faults: an acknowledged write was lost or doubled, the database is damaged, or a round wrote nothing".to_owned()) } else { Ok(()) }
}

/// The local PostgreSQL cluster the harnesses use, stopped and started by `pg_ctlcluster`; it is
/// started again when this is dropped, whatever happened meanwhile.
struct Cluster {
    version: String,
}

impl Cluster {
    /// The one cluster under `/etc/postgresql` (its `main`), when it serves 127.0.0.1:5432.
    fn local() -> Result<Cluster, String> {
        let (admin, _) = crate::bench::pg_server();
        if !admin.contains("@127.0.0.1:5432/") && !admin.contains("@localhost:5432/") {
            return Err(format!("--stop-db stops the local PostgreSQL cluster; {admin} is not it"));
        }
        let versions: Vec<String> =
            std::fs::read_dir("/etc/postgresql").map_err(|e| format!("/etc/postgresql: {e}"))?.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
        match versions.as_slice() {
            [version] => Ok(Cluster { version: version.clone() }),
            _ => Err(format!("--stop-db needs exactly one cluster under /etc/postgresql, found {versions:?}")),
        }
    }

    fn ctl(&self, action: &[&str]) -> Res {
        crate::run(Command::new("pg_ctlcluster").arg("--skip-systemctl-redirect").arg(&self.version).arg("main").args(action).stdout(Stdio::null()))
    }

    /// Stops at once, as a crash would: no checkpoint, clients cut off.
    fn stop(&self) -> Res {
        self.ctl(&["stop", "-m", "immediate"])
    }

    /// Starts and waits until it accepts connections.
    fn start(&self) -> Res {
        self.ctl(&["start"])
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if !crate::postgres_answers() {
            let _ = self.start();
        }
    }
}

/// One request with curl: its status, how long it took, and its body.
fn probe(url: &str, form: Option<&str>) -> Result<(u16, Duration, String), String> {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "--max-time", "20", "-w", "\n%{http_code} %{time_total}"]);
    if let Some(form) = form {
        cmd.args(["-H", "X-Forwarded-For: 10.9.9.9", "--data", form]);
    }
    let out = cmd.arg(url).output().map_err(|e| format!("curl: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, tail) = text.rsplit_once('\n').unwrap_or(("", &text));
    let (code, secs) = tail.split_once(' ').unwrap_or((tail, "0"));
    Ok((code.parse().unwrap_or(0), Duration::from_secs_f64(secs.parse().unwrap_or(0.0)), body.to_owned()))
}

/// F2: PostgreSQL stopped under writes and started again, the server left running.
fn stop_db(args: &[String]) -> Res {
    let rounds: u32 = args.iter().position(|a| a == "--rounds").and_then(|i| args.get(i + 1)).and_then(|s| s.parse().ok()).unwrap_or(20);
    let cluster = Cluster::local()?;
    let mut args = args.to_vec();
    args.push("--pg".to_owned());
    let (bin, dir, db) = prepare(&args, "faults.db", 2_000)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let base = format!("http://{addr}");
    let (mut server, _) = start(&bin, &addr, &db)?;
    let cars: Vec<String> = db
        .query("select listing_id from listing where status = 'online' order by listing_id limit 50")?
        .lines()
        .map(|id| format!("/details/{}", id.trim()))
        .collect();
    let car = cars.first().ok_or("no online car")?.clone();
    let lead = format!("{}/lead", car);
    let (script_file, acked_file) = (dir.join("faults.lua"), dir.join("faults-acked.txt"));
    let mut results = Vec::new();
    let mut failed = Vec::new();
    for round in 1..=rounds {
        let prefix = 40 + round;
        let mut load = write_load(&base, &cars, prefix, &script_file, &acked_file, 6)?;
        std::thread::sleep(delay(round));
        cluster.stop()?;
        let down = std::time::Instant::now();
        // What visitors get meanwhile: a page read and a form sent.
        let mut answers = Vec::new();
        for (url, form) in [(format!("{base}{car}"), None), (format!("{base}{lead}"), Some(format!("mobile=1399{round:07}&intent=ask_price&agree=1")))] {
            let (status, took, body) = probe(&url, form.as_deref())?;
            let clean = body.contains("系统繁忙") && !["sqlx", "panicked", "error returned", "Connection refused", "pool"].iter().any(|t| body.contains(t));
            if status != 503 || !clean || took > Duration::from_secs(7) {
                failed.push(format!("round {round}: {url} answered {status} in {} ms while PostgreSQL was down (Chinese page: {clean})", took.as_millis()));
            }
            answers.push(json!({ "url": url, "status": status, "ms": took.as_millis() as u64, "chinese_page": clean }));
        }
        std::thread::sleep(Duration::from_secs(2).saturating_sub(down.elapsed()));
        cluster.start()?;
        let back = std::time::Instant::now();
        let recovered = loop {
            let (status, _, _) = probe(&format!("{base}{car}"), None)?;
            if status == 200 {
                break Some(back.elapsed());
            }
            if back.elapsed() > Duration::from_secs(30) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        if recovered.is_none_or(|t| t > Duration::from_secs(5)) {
            failed.push(format!("round {round}: the site answered again {recovered:?} after PostgreSQL was back (at most 5 s)"));
        }
        if server.0.try_wait().map_err(|e| e.to_string())?.is_some() {
            return Err(format!("round {round}: the server exited while PostgreSQL was down"));
        }
        let _ = load.wait();
        let Tally { acked, stored, lost, duplicated } = tally(&db, prefix, &acked_file)?;
        if lost > 0 || duplicated > 0 {
            failed.push(format!("round {round}: {lost} acknowledged writes lost, {duplicated} stored twice"));
        }
        let recovered_ms = recovered.map(|t| t.as_millis() as u64);
        eprintln!(
            "round {round:>2}: stopped after {:>4} ms; while down {}; answering again {} ms after the start; {acked:>4} writes acknowledged, {stored:>4} stored, lost {lost}, duplicated {duplicated}",
            delay(round).as_millis(),
            answers.iter().map(|a| format!("{} in {} ms", a["status"], a["ms"])).collect::<Vec<_>>().join(", "),
            recovered_ms.map_or("never".to_owned(), |ms| ms.to_string()),
        );
        results.push(json!({
            "round": round,
            "stopped_after_ms": delay(round).as_millis() as u64,
            "while_down": answers,
            "recovered_ms": recovered_ms,
            "acknowledged": acked,
            "stored": stored,
            "lost": lost,
            "duplicated": duplicated,
        }));
    }
    server.0.kill().map_err(|e| e.to_string())?;
    let acknowledged: u64 = results.iter().map(|r| r["acknowledged"].as_u64().unwrap_or(0)).sum();
    let slowest = results.iter().filter_map(|r| r["recovered_ms"].as_u64()).max();
    let out = json!({ "fault": "F2 PostgreSQL stopped (immediate) during writes", "rounds": results, "acknowledged": acknowledged, "failures": failed });
    let file = dir.join("faults-db-stop.json");
    std::fs::write(&file, serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    eprintln!("F2: {rounds} rounds, {acknowledged} writes acknowledged, slowest recovery {slowest:?} ms; written to {}", file.display());
    drop(cluster);
    if failed.is_empty() { Ok(()) } else { Err(format!("faults --stop-db:\n{}", failed.join("\n"))) }
}
