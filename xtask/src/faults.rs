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

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::stress::{prepare, start};
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

pub fn faults(args: &[String]) -> Res {
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
        std::fs::write(&script_file, script(&cars, prefix, &acked_file)).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_file(&acked_file);
        let mut load = Command::new("wrk")
            .args(["-t4", "-c4", "-d3s", "--timeout", "2s", "-s"])
            .arg(&script_file)
            .arg(&base)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("wrk: {e}"))?;
        std::thread::sleep(delay(round));
        // kill -9: the process gets no chance to finish anything.
        server.0.kill().map_err(|e| format!("kill: {e}"))?;
        let _ = server.0.wait();
        let _ = load.wait();
        let (restarted, took) = start(&bin, &addr, &db)?;
        server = restarted;
        let acked: Vec<String> = std::fs::read_to_string(&acked_file).unwrap_or_default().lines().map(str::to_owned).collect();
        let mut stored: BTreeMap<String, u64> = BTreeMap::new();
        for line in db.query(&format!("select mobile, count(*) from lead where mobile like '13{prefix:02}%' group by mobile"))?.lines() {
            if let Some((m, n)) = line.split_once('|') {
                stored.insert(m.to_owned(), n.parse().unwrap_or(0));
            }
        }
        let acked_set: BTreeSet<&String> = acked.iter().collect();
        let lost = acked_set.iter().filter(|m| !stored.contains_key(m.as_str())).count();
        let duplicated = stored.values().filter(|n| **n > 1).count();
        let integrity = db.integrity()?;
        failed |= lost > 0 || duplicated > 0 || !matches!(integrity.as_str(), "ok" | "not applicable") || acked.is_empty();
        eprintln!(
            "round {round:>2}: killed after {:>4} ms, {:>4} writes acknowledged, {:>4} stored, lost {lost}, duplicated {duplicated}, integrity {integrity}, answering again in {} ms",
            delay(round).as_millis(),
            acked_set.len(),
            stored.len(),
            took.as_millis()
        );
        results.push(json!({
            "round": round,
            "killed_after_ms": delay(round).as_millis() as u64,
            "acknowledged": acked_set.len(),
            "stored": stored.len(),
            "lost": lost,
            "duplicated": duplicated,
            "integrity_check": integrity,
            "restart_ms": took.as_millis() as u64,
        }));
    }
    drop(server);
    let lost: u64 = results.iter().map(|r| r["lost"].as_u64().unwrap_or(0)).sum();
    let acknowledged: u64 = results.iter().map(|r| r["acknowledged"].as_u64().unwrap_or(0)).sum();
    let out = json!({ "fault": "F1 kill -9 during lead and sell-request writes", "backend": if matches!(db, crate::stress::Db::Sqlite(_)) { "sqlite" } else { "postgres" }, "rounds": results, "acknowledged": acknowledged, "lost": lost });
    let file = dir.join(if matches!(db, crate::stress::Db::Sqlite(_)) { "faults.json" } else { "faults-pg.json" });
    std::fs::write(&file, serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    eprintln!("F1: {rounds} rounds, {acknowledged} writes acknowledged, {lost} lost; written to {}", file.display());
    if failed { Err("faults: an acknowledged write was lost or doubled, the database is damaged, or a round wrote nothing".to_owned()) } else { Ok(()) }
}
