//! `cargo xtask cluster [--check [--rounds N]] [--release] [--secs N]`: the site as it is deployed on several
//! machines, on this one: Debian's nginx on 127.0.0.1:8080 in front of two `usedcar` nodes
//! (127.0.0.1:8081 and :8082) on one PostgreSQL database (`usedcar_cluster`, migrated once with
//! `usedcar migrate` before the nodes start), with photos in an S3-compatible object store run
//! locally: moto's server (127.0.0.1:9010, bucket `photos`, path style), installed with pip into
//! `target/cluster/venv`. moto rather than the `s3s-fs` crate: it installs in seconds from PyPI
//! instead of compiling a server on two cores, and it is the S3 stand-in most projects test
//! against. nginx serves the photos (`/upload/p/…`) from the bucket, as a CDN would.
//!
//! Without `--check` it serves until Ctrl-C, which stops every process. With `--check` it runs
//! what must hold across the two nodes, through nginx and node by node, prints what it saw and
//! stops: a session made on one node works on the other and a sign-out on one is honoured on the
//! other; the SMS limit counts both nodes together; a photo uploaded through one node is served
//! through nginx; `kill -9` of one node under load (wrk through nginx, which retries idempotent
//! requests on the other node) and the error count, each lead acknowledged meanwhile stored once,
//! the node started again (`--rounds N`: N times, the two nodes in turn, 3 s of load each, with
//! `target/stress/cluster-faults.json`); `/carlist` r/s through the cluster and from one node alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Res, Server, root, run, wait_for};

const NGINX: &str = "127.0.0.1:8080";
const NODES: [&str; 2] = ["127.0.0.1:8081", "127.0.0.1:8082"];
const S3: &str = "127.0.0.1:9010";
const BUCKET: &str = "photos";
const DATABASE: &str = "usedcar_cluster";

/// How long nginx leaves a node that failed a request before trying it again. Short: a node
/// restarted in half a second was otherwise given nothing for ten, and when the other node died
/// meanwhile nginx answered 502 with a node up (the first run of `--rounds 20` found it); a dead
/// node costs a refused connection, after which the request goes to the other node at once.
const FAIL_TIMEOUT_SECS: u64 = 2;

fn nginx_conf(dir: &Path) -> String {
    let d = dir.display();
    let [a, b] = NODES;
    format!(
        "worker_processes 2;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/nginx-error.log warn;\n\
         events {{ worker_connections 2048; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  client_max_body_size 64m;\n\
         \x20 upstream nodes {{ server {a} max_fails=1 fail_timeout={FAIL_TIMEOUT_SECS}s; server {b} max_fails=1 fail_timeout={FAIL_TIMEOUT_SECS}s; keepalive 64; }}\n\
         \x20 server {{\n    listen {NGINX};\n\
         \x20   location /upload/p/ {{ proxy_pass http://{S3}/{BUCKET}/p/; }}\n\
         \x20   location / {{\n      proxy_pass http://nodes;\n      proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n      proxy_set_header Host $host;\n\
         \x20     proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n      proxy_set_header X-Real-IP $remote_addr;\n\
         \x20     proxy_connect_timeout 1s;\n      proxy_next_upstream error timeout http_502 http_503;\n    }}\n  }}\n}}\n"
    )
}

/// moto's server in a virtual environment of its own, installed once.
fn moto(dir: &Path) -> Result<PathBuf, String> {
    let venv = dir.join("venv");
    let server = venv.join("bin/moto_server");
    if !server.exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        run(Command::new(venv.join("bin/pip")).args(["install", "-q", "moto[server]>=5,<6"]))?;
    }
    Ok(venv)
}

/// nginx, stopped as nginx wants (SIGTERM to the master, which stops its workers; a SIGKILL would
/// leave them holding the port).
struct Nginx(std::process::Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status();
        let _ = self.0.wait();
    }
}

/// The status code of a request and what `-w` asked for after it.
fn status(args: &[&str], write_out: &str) -> Result<(u16, String), String> {
    let text = curl(&[&["-o", "/dev/null", "-w", &format!("%{{http_code}} {write_out}")], args].concat())?;
    let (code, rest) = text.split_once(' ').unwrap_or((&text, ""));
    Ok((code.parse().unwrap_or(0), rest.to_owned()))
}

fn curl(args: &[&str]) -> Result<String, String> {
    let out = Command::new("curl").args(["-s", "--max-time", "20"]).args(args).stderr(Stdio::inherit()).output().map_err(|e| format!("curl: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The status line's code and the headers and body of a request (`curl -i`).
fn request(args: &[&str]) -> Result<(u16, String), String> {
    let text = curl(&[&["-i"], args].concat())?;
    let code = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    Ok((code, text))
}

/// Signs in on `node` by the development SMS code; the session's `Cookie` header.
fn sign_in(node: &str, mobile: &str) -> Result<String, String> {
    let (code, sent) = request(&["-d", &format!("mobile={mobile}&return=%2Fspace"), &format!("http://{node}/sys/login/code")])?;
    let open = r#"<b class="sandbox-code">"#;
    let at = sent.find(open).ok_or(format!("no code shown on {node} ({code})"))? + open.len();
    let sms = &sent[at..at + 6];
    let (code, signed) = request(&["-d", &format!("mobile={mobile}&code={sms}&return=%2Fspace"), &format!("http://{node}/sys/login")])?;
    if code != 303 {
        return Err(format!("sign-in on {node} answered {code}"));
    }
    let cookies: Vec<&str> = signed
        .lines()
        .filter_map(|l| l.strip_prefix("set-cookie: ").or_else(|| l.strip_prefix("Set-Cookie: ")))
        .filter_map(|c| c.split(';').next())
        .filter(|c| !c.ends_with('='))
        .collect();
    Ok(cookies.join("; "))
}

/// `wrk` through `base` for `secs` seconds: requests, r/s and the non-2xx and socket errors.
fn wrk(base: &str, secs: u32) -> Result<(String, String), String> {
    let out = Command::new("wrk").args(["-t2", "-c32", &format!("-d{secs}s"), &format!("{base}/carlist")]).output().map_err(|e| format!("wrk: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |p: &str| text.lines().find_map(|l| l.trim().strip_prefix(p).map(|v| v.trim().to_owned())).unwrap_or_default();
    let requests = text.lines().find(|l| l.contains("requests in")).unwrap_or("").trim().to_owned();
    let errors = format!("non-2xx {}, socket errors {}", field("Non-2xx or 3xx responses:").parse::<u64>().unwrap_or(0), {
        let s = field("Socket errors:");
        if s.is_empty() { "none".to_owned() } else { s }
    });
    Ok((format!("{} r/s ({requests})", field("Requests/sec:")), errors))
}

/// Leads posted through nginx from `n` visitors (each its own phone and forwarded address) while
/// a node dies: the phones whose lead was acknowledged (2xx or 3xx).
fn post_leads(listing: &str, round: u32, n: u32) -> Vec<String> {
    let mut acknowledged = Vec::new();
    for i in 0..n {
        let mobile = format!("1391{round:02}{i:05}");
        let ip = format!("198.{}.{}.{}", 18 + round % 2, (round * 2 + i / 250) % 250, i % 250 + 1);
        let form = format!("intent=ask_price&mobile={mobile}");
        let Ok((code, _)) = status(&["-H", &format!("x-forwarded-for: {ip}"), "-d", &form, &format!("http://{NGINX}/details/{listing}/lead")], "") else {
            continue;
        };
        if (200..400).contains(&code) {
            acknowledged.push(mobile);
        }
    }
    acknowledged
}

fn check(up: &mut Up, secs: u32, rounds: u32) -> Res {
    let database = up.url.clone();
    eprintln!("checks across the two nodes:");
    let [a, b] = NODES;
    let mut failed = Vec::new();
    let mut say = |ok: bool, what: String| {
        eprintln!("{} {what}", if ok { "ok  " } else { "FAIL" });
        if !ok {
            failed.push(what);
        }
    };
    // A session made on one node is the other's too, and so is its end.
    let cookie = sign_in(a, "13900000701")?;
    let (on_b, _) = request(&["-H", &format!("cookie: {cookie}"), &format!("http://{b}/space/favourites")])?;
    say(on_b == 200, format!("a session signed in on node 1 opens /space/favourites on node 2 ({on_b})"));
    let (out, _) = request(&["-X", "POST", "-H", &format!("cookie: {cookie}"), &format!("http://{b}/sys/logout")])?;
    let (after, _) = request(&["-H", &format!("cookie: {cookie}"), &format!("http://{a}/space/favourites")])?;
    say(after == 401, format!("signed out on node 2 ({out}), node 1 asks to sign in again ({after})"));
    // One phone's 60-second SMS limit counts both nodes.
    let (first, _) = request(&["-d", "mobile=13900000702", &format!("http://{a}/sys/login/code")])?;
    let (second, _) = request(&["-d", "mobile=13900000702", &format!("http://{b}/sys/login/code")])?;
    say(first == 200 && second == 429, format!("an SMS code from node 1 ({first}), the same phone on node 2 within 60 s refused ({second})"));
    // A photo uploaded through one node is in the bucket, served by nginx.
    let seller = sign_in(a, "13900000703")?;
    // A demo car's photo, as a seller's phone would send it.
    let home = curl(&[&format!("http://{a}/")])?;
    let demo = home.split("/upload/demo/").nth(1).and_then(|r| r.split(['"', ' ', '?']).next()).ok_or("no demo photo on the home page")?;
    let photo = root().join("target/cluster/photo.webp");
    curl(&["-o", &photo.to_string_lossy(), &format!("http://{a}/upload/demo/{demo}")])?;
    let upload = curl(&[
        "-H",
        &format!("cookie: {seller}"),
        "-H",
        "accept: application/json",
        "-F",
        &format!("photo=@{}", photo.display()),
        &format!("http://{a}/upload/photo"),
    ])?;
    let url = upload.split("\"url\":\"").nth(1).and_then(|r| r.split('"').next()).unwrap_or("").to_owned();
    let (served, content_type) = status(&[&format!("http://{NGINX}{url}")], "%{content_type}")?;
    say(
        served == 200 && content_type.contains("image/webp"),
        format!("a photo uploaded through node 1 is served through nginx from the bucket ({served} {url})"),
    );
    // A lead for a shop with notices set up: its notice goes out once, whichever node sends it.
    let psql = |sql: &str| -> String {
        Command::new("psql")
            .args(["-tA", database.as_str(), "-c", sql])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    };
    let car = psql(
        "select l.listing_id from listing l join lead_push_setting p on p.shop_id = l.shop_id where l.status = 'online' and p.sms_mobile <> '' order by l.listing_id limit 1",
    );
    let (posted, _) =
        status(&["-H", "x-forwarded-for: 198.51.100.250", "-d", "intent=ask_price&mobile=13920000001", &format!("http://{NGINX}/details/{car}/lead")], "")?;
    std::thread::sleep(Duration::from_secs(3));
    let notices = psql(
        "select count(*) || ' ' || sum(case when pl.status = 'sent' and pl.attempts = 1 then 1 else 0 end) from lead_push_log pl join lead ld on ld.lead_id = pl.lead_id where ld.mobile = '13920000001'",
    );
    let (all, once) = notices.split_once(' ').unwrap_or(("0", "0"));
    say(
        (200..400).contains(&posted) && all != "0" && all == once,
        format!("a lead for shop car {car} ({posted}): {once} of {all} dealer notices sent, each at the first attempt"),
    );
    // Throughput: one node alone, then the cluster.
    let (alone, alone_errors) = wrk(&format!("http://{a}"), secs)?;
    eprintln!("     /carlist from node 1 alone: {alone}, {alone_errors}");
    let (both, both_errors) = wrk(&format!("http://{NGINX}"), secs)?;
    eprintln!("     /carlist through nginx, two nodes: {both}, {both_errors}");
    // kill -9 of a node a third of the way through a run through nginx, while visitors leave
    // leads (which nginx does not retry: a lead is acknowledged by the node that stored it), then
    // the node started again; node 2 and node 1 in turn, `rounds` times.
    let list = curl(&[&format!("http://{NGINX}/carlist?sort=new")])?;
    let listing = list.split("/details/").nth(1).and_then(|r| r.split(['"', '?', '#']).next()).unwrap_or("1").to_owned();
    let round_secs = if rounds > 1 { 3 } else { secs };
    let mut report = Vec::new();
    for round in 0..rounds {
        let victim = usize::from(round % 2 == 1) ^ 1;
        let writer = {
            let listing = listing.clone();
            std::thread::spawn(move || post_leads(&listing, round, 300))
        };
        let killer = {
            let pid = up.nodes[victim].0.id();
            let after = Duration::from_millis(u64::from(round_secs) * 1000 / 3 + u64::from(round * 37 % 500));
            std::thread::spawn(move || {
                std::thread::sleep(after);
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            })
        };
        let (during, errors) = wrk(&format!("http://{NGINX}"), round_secs)?;
        let _ = killer.join();
        let _ = up.nodes[victim].0.wait();
        let (alive, _) = status(&[&format!("http://{NGINX}/carlist")], "")?;
        let acknowledged = writer.join().unwrap_or_default();
        let phones = acknowledged.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(",");
        let (stored, doubled) = if phones.is_empty() {
            (0, 0)
        } else {
            let counted = psql(&format!(
                "select count(distinct mobile) || ' ' || (count(*) - count(distinct mobile)) from lead where mobile in ({phones}) and intent = 'ask_price'"
            ));
            let (s, d) = counted.split_once(' ').unwrap_or(("0", "0"));
            (s.parse::<usize>().unwrap_or(0), d.parse::<usize>().unwrap_or(0))
        };
        let began = Instant::now();
        up.nodes[victim] = up.node(NODES[victim])?;
        let restarted = began.elapsed();
        // nginx takes the node back once its fail_timeout has passed since the kill.
        std::thread::sleep(Duration::from_secs(FAIL_TIMEOUT_SECS));
        let lost = acknowledged.len() - stored.min(acknowledged.len());
        say(
            errors == "non-2xx 0, socket errors none" && alive == 200 && lost == 0 && doubled == 0 && !acknowledged.is_empty(),
            format!(
                "round {}: node {} killed with -9 under load through nginx: {during}, {errors}; the other carried the site ({alive}); leads {} acknowledged, {lost} lost, {doubled} doubled; restarted in {:.1} s",
                round + 1,
                victim + 1,
                acknowledged.len(),
                restarted.as_secs_f64()
            ),
        );
        report.push(format!(
            r#"{{"round":{},"node":{},"reads":"{during}","read_errors":"{errors}","acknowledged":{},"lost":{lost},"duplicated":{doubled},"restart_ms":{}}}"#,
            round + 1,
            victim + 1,
            acknowledged.len(),
            restarted.as_millis()
        ));
    }
    let file = root().join("target/stress/cluster-faults.json");
    let _ = std::fs::create_dir_all(root().join("target/stress"));
    std::fs::write(&file, format!("{{\"rounds\":[{}]}}\n", report.join(","))).map_err(|e| e.to_string())?;
    eprintln!("     written to {}", file.display());
    if failed.is_empty() { Ok(()) } else { Err(format!("{} check(s) failed", failed.len())) }
}

/// The cluster running: the object store, the two nodes, nginx in front, and the database's URL.
/// Dropping it stops them all.
pub(crate) struct Up {
    /// The nodes, as [`NODES`] lists them.
    pub(crate) nodes: [Server; 2],
    /// The database the nodes share.
    pub(crate) url: String,
    bin: PathBuf,
    cache_secs: u32,
    // Declared last: dropped after the nodes.
    nginx: Nginx,
    _s3: Server,
}

impl Up {
    /// Starts a node on `addr` as the others run.
    pub(crate) fn node(&self, addr: &str) -> Result<Server, String> {
        start_node(&self.bin, addr, &self.url, self.cache_secs)
    }
}

fn start_node(bin: &Path, addr: &str, url: &str, cache_secs: u32) -> Result<Server, String> {
    let child = Command::new(bin)
        .args(["serve", "--addr", addr, "--database-url", url])
        .env("USEDCAR_LOG", "warn")
        .env("USEDCAR_SITE_URL", format!("http://{NGINX}"))
        .env("USEDCAR_PROXY_TRUSTED", "127.0.0.1")
        .env("USEDCAR_CACHE_RESPONSE_SECS", cache_secs.to_string())
        .env("USEDCAR_CACHE_COUNT_SECS", "30")
        .env("USEDCAR_UPLOAD_STORAGE", "s3")
        .env("USEDCAR_UPLOAD_BASE", "/upload/")
        .env("USEDCAR_S3_ENDPOINT", format!("http://{S3}"))
        .env("USEDCAR_S3_BUCKET", BUCKET)
        .env("USEDCAR_S3_STYLE", "path")
        .env("USEDCAR_S3_ACCESS_KEY_ID", "cluster")
        .env("USEDCAR_S3_SECRET_ACCESS_KEY", "cluster-secret")
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start a node: {e}"))?;
    let mut server = Server(child);
    wait_for(addr, &mut server.0)?;
    Ok(server)
}

/// The address visitors reach the cluster at.
pub(crate) fn base() -> String {
    format!("http://{NGINX}")
}

/// Builds the server (release or debug) and starts the cluster with `listings` cars, each node's
/// response cache kept `cache_secs` (0: off).
pub(crate) fn up(release: bool, listings: u32, cache_secs: u32) -> Result<Up, String> {
    crate::bench::ensure_program("/usr/sbin/nginx", "nginx")?;
    crate::bench::ensure_program("/usr/bin/wrk", "wrk")?;
    // Fixed addresses: what already answers there would be tested instead of the cluster.
    crate::ensure_free(NGINX, "the cluster's nginx")?;
    for node in NODES {
        crate::ensure_free(node, "a cluster node")?;
    }
    crate::ensure_free(S3, "the cluster's object store (moto)")?;
    let bin = crate::build_server(release)?;
    let dir = root().join("target/cluster");
    for sub in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
    }

    // The object store, with its bucket.
    let venv = moto(&dir)?;
    let mut s3 = Server(
        Command::new(venv.join("bin/moto_server"))
            .args(["-H", "127.0.0.1", "-p", "9010"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("moto: {e}"))?,
    );
    wait_for(S3, &mut s3.0)?;
    run(Command::new("curl").args(["-s", "-o", "/dev/null", "-X", "PUT", &format!("http://{S3}/{BUCKET}")]))?;
    // Photos are public, as a bucket behind a CDN is; the nodes write with their keys.
    let policy = format!(
        r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::{BUCKET}/*"}}]}}"#
    );
    run(Command::new("curl").args([
        "-s",
        "-o",
        "/dev/null",
        "-X",
        "PUT",
        "-H",
        "content-type: application/json",
        "--data",
        &policy,
        &format!("http://{S3}/{BUCKET}?policy"),
    ]))?;

    // One database, migrated once before any node starts (as a rollout does), then seeded.
    let admin = std::env::var("USEDCAR_TEST_PG_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b).to_owned();
    run(Command::new("psql").args([
        "-q",
        &admin,
        "-c",
        &format!("drop database if exists {DATABASE} with (force)"),
        "-c",
        &format!("create database {DATABASE}"),
    ]))?;
    let url = format!("{base}/{DATABASE}");
    run(Command::new(&bin).args(["migrate", "--database-url", &url]).env("USEDCAR_LOG", "warn"))?;
    run(Command::new(&bin).args(["seed", "--listings", &listings.to_string(), "--database-url", &url]).env("USEDCAR_LOG", "warn"))?;

    let nodes = [start_node(&bin, NODES[0], &url, cache_secs)?, start_node(&bin, NODES[1], &url, cache_secs)?];
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, nginx_conf(&dir)).map_err(|e| e.to_string())?;
    let mut nginx = Nginx(Command::new("/usr/sbin/nginx").arg("-c").arg(&conf).arg("-p").arg(&dir).spawn().map_err(|e| format!("nginx: {e}"))?);
    wait_for(NGINX, &mut nginx.0)?;
    Ok(Up { nodes, url, bin, cache_secs, nginx, _s3: s3 })
}

pub fn cluster(args: &[String]) -> Res {
    let check_only = args.iter().any(|a| a == "--check");
    let release = args.iter().any(|a| a == "--release");
    let secs = crate::stress::flag_value(args, "--secs", 9);
    let rounds = crate::stress::flag_value(args, "--rounds", 1).max(1);
    let mut up = up(release, 3_000, 2)?;
    if check_only {
        return check(&mut up, secs, rounds);
    }
    eprintln!("serving http://{NGINX}/ through nginx: nodes {} and {}, photos in moto at {S3} (Ctrl-C stops them all)", NODES[0], NODES[1]);
    let _ = up.nginx.0.wait();
    Ok(())
}
