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
//!
//! `cargo xtask faults --full-disk [--rounds N] [--debug]` is F3, on SQLite: the database and the
//! upload directory on a tmpfs of their own (mounted under `target/stress/disk`, so it needs
//! root), filled up to its last byte by a filler file, then freed, `N` times. While it is full a
//! car's page must still be answered 200; a lead form and a photo upload must either succeed (and
//! then be stored) or fail with a Chinese answer (503), never a 500; no photo file may be left
//! without its row; once the filler is gone both must succeed again. Output:
//! `target/stress/faults-full-disk.json`.
//!
//! `cargo xtask faults --notify [--rounds N] [--pg] [--debug]` is F4: each round a signed-in
//! buyer orders a month of 买车VIP (by Alipay in odd rounds, WeChat Pay in even ones), the
//! sandbox cashier's signed notify for it (`usedcar sandbox-notify`) is posted 20 times at once
//! to the notify endpoint, and the server is killed with `kill -9` 0–60 ms into them; after the
//! restart the same notify is posted 20 times at once again, as a provider retries. Every answer
//! that came must be the protocol's success; the order must be paid once, with one VIP term, no
//! refund; and over the run the buyer's paid orders must add up to the notified amounts and the
//! VIP terms to one month per round. Output: `target/stress/faults-notify.json`
//! (`faults-notify-pg.json`).
//!
//! `cargo xtask faults --refund [--rounds N] [--pg] [--debug]` is F1 for a refund: each round a
//! buyer's paid month of 买车VIP is refunded by the demo orders desk (`POST /staff/orders`) and
//! the server is killed with `kill -9` 4–24 ms into it, then started again. A refund answered
//! (303) must be stored refunded at once; one cut off is asked again by the desk, which must
//! either refund it or hear it is under way (its claim survived the kill). After the last round
//! the minute job must finish every claim left within four minutes: each order refunded once at
//! the sandbox cashier (whose ledger is a table, as a provider's survives our crash), recorded
//! with the desk and its reason, its VIP term ended. Output: `target/stress/faults-refund.json`
//! (`faults-refund-pg.json`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::stress::{Db, flag_value, prepare, start, write_json};
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

/// What a write run begins with: its rounds, the server (built, on a fresh database of 2,000
/// cars, started as the harness's child), its address, and the online cars' pages.
struct Rig {
    rounds: u32,
    bin: std::path::PathBuf,
    dir: std::path::PathBuf,
    db: Db,
    addr: String,
    base: String,
    server: crate::Server,
    cars: Vec<String>,
}

fn rig(args: &[String]) -> Result<Rig, String> {
    let rounds = flag_value(args, "--rounds", 20);
    let (bin, dir, db) = prepare(args, "faults.db", 2_000)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let base = format!("http://{addr}");
    let (server, _) = start(&bin, &addr, &db)?;
    let cars: Vec<String> = db
        .query("select listing_id from listing where status = 'online' order by listing_id limit 50")?
        .lines()
        .map(|id| format!("/details/{}", id.trim()))
        .collect();
    Ok(Rig { rounds, bin, dir, db, addr, base, server, cars })
}

pub fn faults(args: &[String]) -> Res {
    if args.iter().any(|a| a == "--stop-db") {
        return stop_db(args);
    }
    if args.iter().any(|a| a == "--full-disk") {
        return full_disk(args);
    }
    if args.iter().any(|a| a == "--notify") {
        return notify(args);
    }
    if args.iter().any(|a| a == "--refund") {
        return refund(args);
    }
    let Rig { rounds, bin, dir, db, addr, base, mut server, cars } = rig(args)?;
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
    write_json(&file, &out)?;
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
    probe_with(url, form.map(|f| vec!["-H".to_owned(), "X-Forwarded-For: 10.9.9.9".to_owned(), "--data".to_owned(), f.to_owned()]).unwrap_or_default())
}

/// [`probe`] with curl's own arguments (a cookie jar, a file to upload).
fn probe_with(url: &str, extra: Vec<String>) -> Result<(u16, Duration, String), String> {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "--max-time", "20", "-w", "\n%{http_code} %{time_total}"]).args(extra);
    let out = cmd.arg(url).output().map_err(|e| format!("curl: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, tail) = text.rsplit_once('\n').unwrap_or(("", &text));
    let (code, secs) = tail.split_once(' ').unwrap_or((tail, "0"));
    Ok((code.parse().unwrap_or(0), Duration::from_secs_f64(secs.parse().unwrap_or(0.0)), body.to_owned()))
}

/// F2: PostgreSQL stopped under writes and started again, the server left running.
fn stop_db(args: &[String]) -> Res {
    let cluster = Cluster::local()?;
    let mut args = args.to_vec();
    args.push("--pg".to_owned());
    let Rig { rounds, dir, db, base, mut server, cars, .. } = rig(&args)?;
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
    write_json(&file, &out)?;
    eprintln!("F2: {rounds} rounds, {acknowledged} writes acknowledged, slowest recovery {slowest:?} ms; written to {}", file.display());
    drop(cluster);
    if failed.is_empty() { Ok(()) } else { Err(format!("faults --stop-db:\n{}", failed.join("\n"))) }
}

/// A tmpfs mounted for the run, unmounted when dropped.
struct Tmpfs {
    dir: std::path::PathBuf,
}

impl Tmpfs {
    fn mount(dir: &Path, bytes: u64) -> Result<Tmpfs, String> {
        let _ = Command::new("umount").arg(dir).stderr(Stdio::null()).status();
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        crate::run(Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={bytes}")]).arg("tmpfs").arg(dir))
            .map_err(|e| format!("--full-disk mounts a tmpfs (as root): {e}"))?;
        Ok(Tmpfs { dir: dir.to_owned() })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

/// Writes zeros to `file` until the disk is full; how many bytes it took.
fn fill(file: &Path) -> Result<u64, String> {
    use std::io::Write as _;
    let mut f = std::fs::File::create(file).map_err(|e| e.to_string())?;
    let chunk = vec![0u8; 4096];
    let mut written = 0u64;
    loop {
        match f.write(&chunk) {
            Ok(0) => break,
            Ok(n) => written += n as u64,
            Err(e) if e.raw_os_error() == Some(28) => break, // ENOSPC
            Err(e) => return Err(format!("filling the disk: {e}")),
        }
    }
    let _ = f.sync_all();
    Ok(written)
}

/// Photo files on the disk with no upload row.
fn orphan_files(db: &Db, upload: &Path) -> Result<Vec<String>, String> {
    let rows = db.query("select path from upload")?;
    let stems: BTreeSet<String> = rows.lines().map(|p| p.trim().trim_end_matches(".webp").to_owned()).collect();
    let mut orphans = Vec::new();
    let mut dirs = vec![upload.join("p")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let key = path.strip_prefix(upload).map_err(|e| e.to_string())?.to_string_lossy().into_owned();
            let stem = key.split("_w").next().unwrap_or(&key).trim_end_matches(".webp").to_owned();
            if !stems.contains(&stem) {
                orphans.push(key);
            }
        }
    }
    Ok(orphans)
}

/// F3: the disk of the database and the uploads filled, then freed, the server left running.
/// Signs `mobile` in with the sandbox's code (shown on the page), keeping the session in the
/// cookie jar `jar` (made anew); curl's arguments for using that jar.
pub(crate) fn sign_in(base: &str, jar: &Path, mobile: &str) -> Result<Vec<String>, String> {
    let _ = std::fs::remove_file(jar);
    let jar_args = vec!["-b".to_owned(), jar.to_string_lossy().into_owned(), "-c".to_owned(), jar.to_string_lossy().into_owned()];
    let mut sent = jar_args.clone();
    sent.extend(["--data".to_owned(), format!("mobile={mobile}&return=%2Fspace")]);
    let (_, _, page) = probe_with(&format!("{base}/sys/login/code"), sent)?;
    let code: String = page.split(r#"<b class="sandbox-code">"#).nth(1).map(|s| s.chars().take(6).collect()).ok_or("no sandbox code on the login page")?;
    let mut login = jar_args.clone();
    login.extend(["--data".to_owned(), format!("mobile={mobile}&code={code}&return=%2Fspace")]);
    let (status, _, _) = probe_with(&format!("{base}/sys/login"), login)?;
    if status != 303 {
        return Err(format!("signing in answered {status}"));
    }
    Ok(jar_args)
}

fn full_disk(args: &[String]) -> Res {
    let rounds = flag_value(args, "--rounds", 20);
    let (bin, dir, seeded) = prepare(args, "faults-disk.db", 2_000)?;
    let Db::Sqlite(seeded) = seeded else { return Err("--full-disk runs on SQLite".to_owned()) };
    let size = std::fs::metadata(&seeded).map_err(|e| e.to_string())?.len();
    // Room for the database, its WAL and a few photos; the filler takes the rest each round.
    let disk = Tmpfs::mount(&dir.join("disk"), size + 24 * 1024 * 1024)?;
    let path = disk.dir.join("usedcar.db");
    std::fs::copy(&seeded, &path).map_err(|e| e.to_string())?;
    let db = Db::Sqlite(path.to_string_lossy().into_owned());
    let upload = disk.dir.join("upload");
    std::fs::create_dir_all(&upload).map_err(|e| e.to_string())?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let base = format!("http://{addr}");
    let (server, _) = crate::stress::start_with(&bin, &addr, &db, &[("USEDCAR_UPLOAD_DIR", upload.to_string_lossy().as_ref())])?;
    let car = format!("/details/{}", db.query("select listing_id from listing where status = 'online' order by listing_id limit 1")?.trim());
    // A photo to upload: one of the demo photos, as the server serves it.
    let photo = dir.join("faults-photo.webp");
    let demo = db.query("select path from listing_photo order by listing_photo_id limit 1")?;
    crate::run(Command::new("curl").args(["-sf", "-o"]).arg(&photo).arg(format!("{base}/upload/{}", demo.trim())))?;
    // A signed-in seller (the sandbox shows the code on the page).
    let jar = dir.join("faults-cookies.txt");
    let jar_args = sign_in(&base, &jar, "13700000077")?;
    let upload_photo = || {
        let mut a = jar_args.clone();
        a.extend(["-H".to_owned(), "X-Forwarded-For: 10.8.8.8".to_owned(), "-F".to_owned(), format!("photo=@{};type=image/webp", photo.display())]);
        probe_with(&format!("{base}/upload/photo"), a)
    };
    let filler = disk.dir.join("filler");
    let mut results = Vec::new();
    let mut failed = Vec::new();
    let mut n = 0u32;
    for round in 1..=rounds {
        let filled = fill(&filler)?;
        let mut seen = Vec::new();
        let (status, _, _) = probe(&format!("{base}{car}"), None)?;
        if status != 200 {
            failed.push(format!("round {round}: a car's page answered {status} on a full disk"));
        }
        seen.push(json!({ "what": "page", "status": status }));
        // Writes while full: stored when acknowledged, refused in Chinese otherwise.
        for _ in 0..3 {
            n += 1;
            let phone = format!("1360{n:07}");
            let (status, _, body) = probe(&format!("{base}{car}/lead"), Some(&format!("intent=ask_price&mobile={phone}")))?;
            let stored = db.query(&format!("select count(*) from lead where mobile = '{phone}'"))?;
            let ok = match status {
                303 => stored == "1",
                503 => stored == "0" && body.contains("系统繁忙"),
                _ => false,
            };
            if !ok {
                failed.push(format!("round {round}: a lead on a full disk answered {status} and {stored} were stored"));
            }
            seen.push(json!({ "what": "lead", "status": status, "stored": stored }));
            let (status, _, body) = upload_photo()?;
            if !(status == 200 || (status == 503 && body.contains("照片保存失败"))) {
                failed.push(format!("round {round}: a photo on a full disk answered {status}: {}", body.chars().take(200).collect::<String>()));
            }
            seen.push(json!({ "what": "photo", "status": status }));
        }
        std::fs::remove_file(&filler).map_err(|e| e.to_string())?;
        // The background removal of a failed photo's files runs right after its answer.
        std::thread::sleep(Duration::from_millis(300));
        let orphans = orphan_files(&db, &upload)?;
        if !orphans.is_empty() {
            failed.push(format!("round {round}: photo files without a row: {}", orphans.join(", ")));
        }
        let orphans = orphans.len();
        n += 1;
        let phone = format!("1360{n:07}");
        let (lead_after, _, _) = probe(&format!("{base}{car}/lead"), Some(&format!("intent=ask_price&mobile={phone}")))?;
        let (photo_after, _, _) = upload_photo()?;
        if lead_after != 303 || photo_after != 200 {
            failed.push(format!("round {round}: with space again a lead answered {lead_after} and a photo {photo_after}"));
        }
        let integrity = db.integrity()?;
        if integrity != "ok" {
            failed.push(format!("round {round}: integrity_check says {integrity}"));
        }
        let codes = |what: &str| seen.iter().filter(|s| s["what"] == what).map(|s| s["status"].to_string()).collect::<Vec<_>>().join(",");
        eprintln!(
            "round {round:>2}: filled {:>5} KB; page {}, leads {}, photos {}; orphan files {orphans}; freed: lead {lead_after}, photo {photo_after}; integrity {integrity}",
            filled / 1024,
            codes("page"),
            codes("lead"),
            codes("photo")
        );
        results.push(json!({ "round": round, "filled_bytes": filled, "while_full": seen, "orphan_files": orphans, "lead_after": lead_after, "photo_after": photo_after, "integrity_check": integrity }));
    }
    drop(server);
    let out = json!({ "fault": "F3 the disk of the database and uploads full", "rounds": results, "failures": failed });
    let file = dir.join("faults-full-disk.json");
    write_json(&file, &out)?;
    eprintln!("F3: {rounds} rounds; written to {}", file.display());
    drop(disk);
    if failed.is_empty() { Ok(()) } else { Err(format!("faults --full-disk:\n{}", failed.join("\n"))) }
}

/// One notify as `usedcar sandbox-notify` prints it: where it goes, its headers and its body.
struct Notify {
    url: String,
    headers: Vec<String>,
    body: std::path::PathBuf,
}

impl Notify {
    /// The sandbox cashier's signed notify for `order_no`, its body written to `body`.
    fn signed(bin: &Path, db: &Db, order_no: &str, body: &Path) -> Result<Notify, String> {
        let out = Command::new(bin)
            .args(["sandbox-notify", "--order", order_no, "--database-url", db.url()])
            .env("USEDCAR_LOG", "warn")
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("sandbox-notify: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("sandbox-notify printed no JSON: {e}"))?;
        std::fs::write(body, v["body"].as_str().unwrap_or_default()).map_err(|e| e.to_string())?;
        let headers = v["headers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| format!("{}: {}", h[0].as_str().unwrap_or_default(), h[1].as_str().unwrap_or_default()))
            .collect();
        Ok(Notify { url: v["url"].as_str().unwrap_or_default().to_owned(), headers, body: body.to_owned() })
    }

    /// `n` posts of it at once, as curl processes (each prints its body, then its status).
    fn burst(&self, base: &str, n: usize) -> Result<Vec<std::process::Child>, String> {
        (0..n)
            .map(|_| {
                let mut c = Command::new("curl");
                c.args(["-s", "--max-time", "10", "-w", "\n%{http_code}", "--data-binary"]).arg(format!("@{}", self.body.display()));
                for h in &self.headers {
                    c.arg("-H").arg(h);
                }
                c.arg(format!("{base}{}", self.url)).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().map_err(|e| format!("curl: {e}"))
            })
            .collect()
    }
}

/// What a burst's posts were answered: per answer whether it was the protocol's success (Alipay:
/// 200 `success`; WeChat Pay: 204), and how many got no answer (the server was killed).
fn answers(posts: Vec<std::process::Child>) -> (Vec<bool>, usize) {
    let mut got = Vec::new();
    let mut none = 0;
    for post in posts {
        let text = post.wait_with_output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
        let (body, status) = text.rsplit_once('\n').unwrap_or(("", text.as_str()));
        match status.trim() {
            "000" | "" => none += 1,
            "204" => got.push(true),
            code => got.push(code == "200" && body == "success"),
        }
    }
    (got, none)
}

/// The signed-in buyer `user` (curl's cookie arguments `jar`) orders a month of 买车VIP, by Alipay
/// in odd rounds and WeChat Pay in even ones: the method, the order's number and its row id.
fn order_vip(base: &str, db: &Db, jar: &[String], user: &str, round: u32) -> Result<(&'static str, String, String), String> {
    let method = if round % 2 == 1 { "alipay" } else { "wechat" };
    let mut buy = jar.to_vec();
    buy.extend(["--data".to_owned(), format!("plan=buyer-month&method={method}&renew=1")]);
    let (status, _, _) = probe_with(&format!("{base}/vip/buy"), buy)?;
    if status != 303 {
        return Err(format!("round {round}: ordering VIP answered {status}"));
    }
    let order =
        db.query(&format!("select order_no || '|' || payment_order_id from payment_order where user_id = {user} order by payment_order_id desc limit 1"))?;
    let (order_no, order_id) = order.split_once('|').ok_or("no order was made")?;
    Ok((method, order_no.to_owned(), order_id.to_owned()))
}

/// A pseudo-random kill delay in 0–60 ms for round `i`.
fn notify_delay(i: u32) -> Duration {
    Duration::from_millis(u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(23) % 61)
}

fn notify(args: &[String]) -> Res {
    let Rig { rounds, bin, dir, db, addr, base, mut server, cars: _ } = rig(args)?;
    let pg = matches!(db, Db::Postgres(_));
    let mobile = "13700000044";
    let jar_args = sign_in(&base, &dir.join("faults-notify-cookies.txt"), mobile)?;
    let user = db.query(&format!("select user_id from app_user where mobile = '{mobile}'"))?;
    let body = dir.join("faults-notify-body.txt");
    let mut results = Vec::new();
    let mut failed = Vec::new();
    for round in 1..=rounds {
        let (method, order_no, order_id) = order_vip(&base, &db, &jar_args, &user, round)?;
        let (order_no, order_id) = (order_no.as_str(), order_id.as_str());
        let notify = Notify::signed(&bin, &db, order_no, &body)?;
        let posts = notify.burst(&base, 20)?;
        std::thread::sleep(notify_delay(round));
        // kill -9 while the notifies are being handled.
        server.0.kill().map_err(|e| format!("kill: {e}"))?;
        let _ = server.0.wait();
        let (before, unanswered) = answers(posts);
        let (restarted, took) = start(&bin, &addr, &db)?;
        server = restarted;
        // The provider sends it again until it hears success: 20 at once once more.
        let (after, lost_after) = answers(notify.burst(&base, 20)?);
        let state = db.query(&format!(
            "select o.status || '|' || o.refund_reason || '|' || p.state || '|' || (select count(*) from vip_membership m where m.payment_order_id = o.payment_order_id) from payment_order o join purchase p on p.purchase_id = o.purchase_id where o.payment_order_id = {order_id}"
        ))?;
        let integrity = db.integrity()?;
        let refused = before.iter().chain(&after).filter(|ok| !**ok).count();
        if state != "paid||granted|1" {
            failed.push(format!("round {round}: order {order_no} is status|refund|purchase|terms = {state}"));
        }
        if refused > 0 || lost_after > 0 {
            failed.push(format!("round {round}: {refused} notifies were not answered success, {lost_after} unanswered after the restart"));
        }
        if !matches!(integrity.as_str(), "ok" | "not applicable") {
            failed.push(format!("round {round}: integrity_check says {integrity}"));
        }
        eprintln!(
            "round {round:>2}: {method:<6} killed after {:>2} ms: {:>2} answered before ({unanswered} cut off), {:>2} after the restart ({} ms), {refused} not success; order {state}",
            notify_delay(round).as_millis(),
            before.len(),
            after.len(),
            took.as_millis()
        );
        results.push(json!({
            "round": round, "method": method, "order_no": order_no, "killed_after_ms": notify_delay(round).as_millis() as u64,
            "answered_before_kill": before.len(), "cut_off": unanswered, "answered_after_restart": after.len(), "not_success": refused,
            "order_status|refund_reason|purchase|vip_terms": state, "integrity_check": integrity, "restart_ms": took.as_millis() as u64,
        }));
    }
    drop(server);
    // Money: what the buyer paid is what the providers notified, and bought one term a round.
    let paid = db.query(&format!("select count(*) || '|' || coalesce(sum(amount_fen), 0) from payment_order where user_id = {user} and status = 'paid'"))?;
    let notified = db.query(&format!(
        "select count(*) || '|' || coalesce(sum(amount_fen), 0) from (select distinct order_no, amount_fen from payment_notification where applied and order_no in (select order_no from payment_order where user_id = {user})) n"
    ))?;
    let days = db.query(&format!("select cast(coalesce(sum(ends_at - starts_at), 0) / 86400 as bigint) from vip_membership where user_id = {user}"))?;
    if paid != notified {
        failed.push(format!("paid orders (count|fen) {paid} but applied notifies {notified}"));
    }
    if days != (rounds * 30).to_string() {
        failed.push(format!("{rounds} months of VIP paid for, {days} days granted"));
    }
    let out = json!({
        "fault": "F4 a payment notify 20 times at once, kill -9 while they are handled, 20 more after the restart",
        "backend": if pg { "postgres" } else { "sqlite" }, "rounds": results, "paid_orders|fen": paid, "applied_notifies|fen": notified, "vip_days": days, "failures": failed,
    });
    let file = dir.join(if pg { "faults-notify-pg.json" } else { "faults-notify.json" });
    write_json(&file, &out)?;
    eprintln!("F4: {rounds} rounds; paid orders|fen {paid}, applied notifies|fen {notified}, VIP days {days}; written to {}", file.display());
    if failed.is_empty() { Ok(()) } else { Err(format!("faults --notify:\n{}", failed.join("\n"))) }
}

/// A pseudo-random kill delay in 4–24 ms for round `i`: a refund takes 10–20 ms from the
/// request's start here, so the kill falls before its claim, between the claim and the
/// provider's answer, after it, and after the answer was sent.
fn refund_delay(i: u32) -> Duration {
    Duration::from_millis(4 + u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29) % 21)
}

/// F1 for a refund: the desk's refund killed mid-way, 20 times, and the minute job finishing it.
fn refund(args: &[String]) -> Res {
    let Rig { rounds, bin, dir, db, addr, base, mut server, cars: _ } = rig(args)?;
    let pg = matches!(db, Db::Postgres(_));
    let buyer = sign_in(&base, &dir.join("faults-refund-buyer.txt"), "13700000046")?;
    let desk = sign_in(&base, &dir.join("faults-refund-desk.txt"), "19000000002")?;
    let user = db.query("select user_id from app_user where mobile = '13700000046'")?;
    let staff = db.query("select user_id from app_user where mobile = '19000000002'")?;
    let body = dir.join("faults-refund-body.txt");
    // 用户申请退款, as the desk's form sends it.
    let reason = "用户申请退款";
    let form = |order_no: &str| format!("order_no={order_no}&reason=%E7%94%A8%E6%88%B7%E7%94%B3%E8%AF%B7%E9%80%80%E6%AC%BE");
    let status_of = |order_id: &str| {
        db.query(&format!(
            "select status || '|' || case when refunding_at is null then '' else 'claimed' end from payment_order where payment_order_id = {order_id}"
        ))
    };
    let mut results = Vec::new();
    let mut failed = Vec::new();
    let mut orders = Vec::new();
    for round in 1..=rounds {
        let (method, order_no, order_id) = order_vip(&base, &db, &buyer, &user, round)?;
        let (paid, _) = answers(Notify::signed(&bin, &db, &order_no, &body)?.burst(&base, 1)?);
        if paid != [true] || status_of(&order_id)? != "paid|" {
            return Err(format!("round {round}: paying order {order_no} did not go through: {paid:?}, {}", status_of(&order_id)?));
        }
        // The desk refunds it, and the server is killed while it does.
        let mut post = Command::new("curl");
        post.args(["-s", "-o", "/dev/null", "--max-time", "10", "-w", "%{http_code}"]).args(&desk).args(["--data", &form(&order_no)]);
        let post = post.arg(format!("{base}/staff/orders")).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().map_err(|e| format!("curl: {e}"))?;
        std::thread::sleep(refund_delay(round));
        server.0.kill().map_err(|e| format!("kill: {e}"))?;
        let _ = server.0.wait();
        let answered = post.wait_with_output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
        let (restarted, took) = start(&bin, &addr, &db)?;
        server = restarted;
        let after_restart = status_of(&order_id)?;
        // A refund answered done is stored; one cut off is asked again, as the desk would.
        let again = if answered == "303" {
            if !after_restart.starts_with("refunded") {
                failed.push(format!("round {round}: the refund of {order_no} was answered done but the order is {after_restart} after the restart"));
            }
            None
        } else {
            let mut post = desk.clone();
            post.extend(["--data".to_owned(), form(&order_no)]);
            let (code, _, page) = probe_with(&format!("{base}/staff/orders"), post)?;
            let fine = match after_restart.as_str() {
                "paid|" => code == 303,
                "paid|claimed" => code == 409 && page.contains("正在退款中"),
                _ => code == 409 && page.contains("不是已支付状态"),
            };
            if !fine {
                failed.push(format!("round {round}: {order_no} was {after_restart} after the restart and asking again answered {code}"));
            }
            Some(code)
        };
        let integrity = db.integrity()?;
        if !matches!(integrity.as_str(), "ok" | "not applicable") {
            failed.push(format!("round {round}: integrity_check says {integrity}"));
        }
        eprintln!(
            "round {round:>2}: {method:<6} killed after {:>2} ms: the refund answered {:<3} order {after_restart:<13} after the restart ({} ms), asked again: {}",
            refund_delay(round).as_millis(),
            if answered.is_empty() { "-" } else { answered.as_str() },
            took.as_millis(),
            again.map_or("no".to_owned(), |c| c.to_string())
        );
        results.push(json!({
            "round": round, "method": method, "order_no": order_no, "killed_after_ms": refund_delay(round).as_millis() as u64,
            "answered": answered, "after_restart": after_restart, "asked_again": again, "integrity_check": integrity, "restart_ms": took.as_millis() as u64,
        }));
        orders.push((order_no, order_id));
    }
    // The claims the kills left are finished by the minute job once two minutes old.
    let waited = std::time::Instant::now();
    let unfinished = |orders: &[(String, String)]| -> Result<Vec<String>, String> {
        let ids: Vec<&str> = orders.iter().map(|(_, id)| id.as_str()).collect();
        let left = db.query(&format!("select order_no from payment_order where payment_order_id in ({}) and status <> 'refunded'", ids.join(",")))?;
        Ok(left.lines().map(str::to_owned).collect())
    };
    let mut left = unfinished(&orders)?;
    while !left.is_empty() && waited.elapsed() < Duration::from_secs(240) {
        eprintln!("{} refunds left for the minute job ({} s)", left.len(), waited.elapsed().as_secs());
        std::thread::sleep(Duration::from_secs(10));
        left = unfinished(&orders)?;
    }
    let job_secs = waited.elapsed().as_secs();
    drop(server);
    let mut lost = 0;
    for (order_no, order_id) in &orders {
        let row = db.query(&format!(
            "select o.status || '|' || o.refund_reason || '|' || coalesce(o.refunded_by, 0) || '|' || p.state || '|' || coalesce(t.refunded_fen, -1) || '|' || o.amount_fen || '|' || \
             (select count(*) from vip_membership m where m.payment_order_id = o.payment_order_id and m.ends_at > o.refunded_at) \
             from payment_order o join purchase p on p.purchase_id = o.purchase_id left join sandbox_trade t on t.order_no = o.order_no where o.payment_order_id = {order_id}"
        ))?;
        let fields: Vec<&str> = row.split('|').collect();
        let expected = ["refunded", reason, staff.as_str(), "revoked"];
        if fields.len() != 7 || fields[..4] != expected || fields[4] != fields[5] || fields[6] != "0" {
            lost += 1;
            failed.push(format!("{order_no}: status|reason|by|purchase|refunded at the cashier|amount|terms running = {row}"));
        }
    }
    let out = json!({
        "fault": "F1 a staff refund killed with kill -9 mid-way, asked again after the restart, the rest finished by the minute job",
        "backend": if pg { "postgres" } else { "sqlite" }, "rounds": results, "job_finished_in_s": job_secs, "lost": lost, "failures": failed,
    });
    let file = dir.join(if pg { "faults-refund-pg.json" } else { "faults-refund.json" });
    write_json(&file, &out)?;
    eprintln!("F1 refunds: {rounds} rounds, {} orders not refunded as asked; the job finished the rest in {job_secs} s; written to {}", lost, file.display());
    if failed.is_empty() { Ok(()) } else { Err(format!("faults --refund:\n{}", failed.join("\n"))) }
}
