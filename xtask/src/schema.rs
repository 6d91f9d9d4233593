//! `cargo xtask schema [--examples N] [--secs N] [--seed N] [--debug | --built]`: B1 of the plan —
//! schemathesis over the OpenAPI document the server serves at `/api/openapi.json`, every check
//! on (`--checks all`: server errors, statuses, content types, headers and bodies against the
//! document, wrong input refused, right input accepted, methods, authentication, one user
//! reading another's objects) and every phase (examples, coverage, fuzzing, stateful), with three
//! users' tokens: a buyer and the dealers of the demo's first two shops, each dealer also with a
//! key of their shop for the dealer API. The server (release unless
//! `--debug`; `--built` takes the debug build as it is, as the test command does) runs on a
//! fresh SQLite database of 2,000 cars. The providers' callbacks are described but left out of
//! the run: their bodies are signed, so made-up ones are only ever refused, and their readers
//! are fuzzed by `cargo xtask fuzz`. schemathesis is installed from PyPI into
//! `target/schemathesis` (a virtual environment) the first time. Writes schemathesis's JUnit
//! report to `target/stress/schema/`.

use std::path::PathBuf;
use std::process::Command;

use crate::stress::{flag_value, prepare, start_with};
use crate::{Res, free_port, root};

/// The schemathesis release the run is pinned to.
const SCHEMATHESIS: &str = "schemathesis==4.32.5";

/// The virtual environment's `schemathesis`, installed when missing.
fn ensure_schemathesis() -> Result<PathBuf, String> {
    let venv = root().join("target/schemathesis");
    let bin = venv.join("bin/schemathesis");
    let pinned = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(SCHEMATHESIS.trim_start_matches("schemathesis==")));
    if !pinned {
        crate::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        crate::run(Command::new(venv.join("bin/pip")).args(["install", "-q", SCHEMATHESIS]))?;
    }
    Ok(bin)
}

/// The curl arguments of a session of `mobile`, signed in through the forms (once: a second code
/// for the phone within the minute is refused).
fn session(base: &str, dir: &std::path::Path, mobile: &str) -> Result<Vec<String>, String> {
    crate::faults::sign_in(base, &dir.join(format!("schema-{mobile}.txt")), mobile)
}

/// A token for a session, from `cookietotoken`.
fn token(base: &str, session: &[String]) -> Result<String, String> {
    let mut args = session.to_vec();
    args.extend(["-s".to_owned(), "-X".to_owned(), "POST".to_owned(), format!("{base}/api/buycar-api/user/cookietotoken")]);
    let out = Command::new("curl").args(&args).output().map_err(|e| e.to_string())?;
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("cookietotoken answered no JSON: {e}"))?;
    answer["data"].as_str().filter(|t| !t.is_empty()).map(str::to_owned).ok_or_else(|| format!("cookietotoken gave no token: {answer}"))
}

/// A dealer API key with every scope for the shop a session's user owns: made on the dealer
/// centre's page and read off the answer that shows it once.
fn api_key(base: &str, session: &[String]) -> Result<String, String> {
    let mut args = session.to_vec();
    args.extend(
        [
            "-s",
            "--data",
            "name=schemathesis&scope=stock:read&scope=stock:write&scope=leads:read&scope=messages:read&scope=messages:write&scope=reservations&scope=webhooks",
        ]
        .map(str::to_owned),
    );
    args.push(format!("{base}/space/api-keys"));
    let out = Command::new("curl").args(&args).output().map_err(|e| e.to_string())?;
    let page = String::from_utf8_lossy(&out.stdout);
    page.split("uck_")
        .skip(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect::<String>())
        .find(|hex| hex.len() == 40)
        .map(|hex| format!("uck_{hex}"))
        .ok_or_else(|| "the dealer centre showed no new API key".to_owned())
}

pub fn schema(args: &[String]) -> Res {
    let (examples, secs) = (flag_value(args, "--examples", 100), flag_value(args, "--secs", 600));
    // `--seed N`: the same cases as another run with that seed (the test command's is fixed, so a
    // red run there is a defect to fix, not a draw); without it a new draw each time.
    let seed = args.iter().position(|a| a == "--seed").and_then(|i| args.get(i + 1)).map(|s| vec!["--seed".to_owned(), s.clone()]).unwrap_or_default();
    let bin = ensure_schemathesis()?;
    let (server_bin, dir, db) = prepare(args, "schema.db", 2_000)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let base = format!("http://{addr}");
    // The API keys' limit (120 calls a minute) would answer most of a run 429: raised here, and
    // tested by the HTTP tests.
    let (server, _) = start_with(&server_bin, &addr, &db, &[("USEDCAR_DEALER_API_CALLS_PER_MINUTE", "1000000")])?;
    let owner = |n: u32| db.query(&format!("select mobile from app_user where user_id = (select owner_user_id from shop order by shop_id limit 1 offset {n})"));
    let (dealer, rival) = (owner(0)?, owner(1)?);
    // The buyer and the first shop's dealer with session tokens; both shops' dealers with a key
    // of their shop for the dealer API, so each reaches its own stock and meets the other's.
    let (dealer, rival) = (session(&base, &dir, dealer.trim())?, session(&base, &dir, rival.trim())?);
    let users = [
        ("buyer", token(&base, &session(&base, &dir, "13700000066")?)?, None),
        ("dealer", token(&base, &dealer)?, Some(api_key(&base, &dealer)?)),
        ("rival", token(&base, &rival)?, Some(api_key(&base, &rival)?)),
    ];
    let auth = serde_json::json!({ "auth": users.iter().map(|(name, t, key)| {
        let mut headers = vec![serde_json::json!({ "name": "token", "value": t })];
        headers.extend(key.iter().map(|k| serde_json::json!({ "name": "Authorization", "value": format!("Bearer {k}") })));
        serde_json::json!({ "name": name, "fixedHeaders": headers })
    }).collect::<Vec<_>>() });
    let auth_file = dir.join("schema-auth.json");
    std::fs::write(&auth_file, auth.to_string()).map_err(|e| e.to_string())?;
    let reports = dir.join("schema");
    // One worker: with two threads, Debian's Python 3.11 `ast` can fail inside hypothesis
    // ("AST constructor recursion depth mismatch", a CPython thread-safety bug), which
    // schemathesis reports as an error of the run, not of the API.
    let run = crate::run(
        Command::new(bin)
            .arg("--config-file")
            .arg(root().join("xtask/data/schemathesis.toml"))
            .args(["run", &format!("{base}/api/openapi.json"), "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful"])
            .args(["--max-examples", &examples.to_string(), "--max-time", &secs.to_string(), "--workers", "1", "--request-timeout", "10"])
            .args(&seed)
            .args(["--exclude-path-regex", "^/api/(pay|insurance|report|calltrack)/", "--auth-wfc"])
            .arg(&auth_file)
            .args(["--report", "junit", "--report-dir"])
            .arg(&reports)
            // Its cache of examples (`.schemathesis/`) under target/, not in the checkout.
            .current_dir(&dir)
            .env("NO_COLOR", "1"),
    );
    drop(server);
    run.map_err(|e| format!("schema: schemathesis found failures ({e}); its report is in {}", reports.display()))
}
