//! `cargo xtask schema [--examples N] [--secs N] [--seed N] [--debug | --built]`: B1 of the plan —
//! schemathesis over the OpenAPI document the server serves at `/api/openapi.json`, every check
//! on (`--checks all`: server errors, statuses, content types, headers and bodies against the
//! document, wrong input refused, right input accepted, methods, authentication, one user
//! reading another's objects) and every phase (examples, coverage, fuzzing, stateful), with two
//! users' tokens: a buyer and the dealer of the demo's first shop. The server (release unless
//! `--debug`; `--built` takes the debug build as it is, as the test command does) runs on a
//! fresh SQLite database of 2,000 cars. The providers' callbacks are described but left out of
//! the run: their bodies are signed, so made-up ones are only ever refused, and their readers
//! are fuzzed by `cargo xtask fuzz`. schemathesis is installed from PyPI into
//! `target/schemathesis` (a virtual environment) the first time. Writes schemathesis's JUnit
//! report to `target/stress/schema/`.

use std::path::PathBuf;
use std::process::Command;

use crate::stress::{flag_value, prepare, start};
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

/// A session token for `mobile`: signed in through the forms, then exchanged for a token.
fn token(base: &str, dir: &std::path::Path, mobile: &str) -> Result<String, String> {
    let jar = dir.join(format!("schema-{mobile}.txt"));
    let mut args = crate::faults::sign_in(base, &jar, mobile)?;
    args.extend(["-s".to_owned(), "-X".to_owned(), "POST".to_owned(), format!("{base}/api/buycar-api/user/cookietotoken")]);
    let out = Command::new("curl").args(&args).output().map_err(|e| e.to_string())?;
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("cookietotoken answered no JSON: {e}"))?;
    answer["data"].as_str().filter(|t| !t.is_empty()).map(str::to_owned).ok_or_else(|| format!("cookietotoken gave no token: {answer}"))
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
    let (server, _) = start(&server_bin, &addr, &db)?;
    let dealer = db.query("select mobile from app_user where user_id = (select owner_user_id from shop order by shop_id limit 1)")?;
    let users = [("buyer", token(&base, &dir, "13700000066")?), ("dealer", token(&base, &dir, dealer.trim())?)];
    let auth = serde_json::json!({ "auth": users.iter().map(|(name, t)| serde_json::json!({ "name": name, "fixedHeaders": [{ "name": "token", "value": t }] })).collect::<Vec<_>>() });
    let auth_file = dir.join("schema-auth.json");
    std::fs::write(&auth_file, auth.to_string()).map_err(|e| e.to_string())?;
    let reports = dir.join("schema");
    // One worker: with two threads, Debian's Python 3.11 `ast` can fail inside hypothesis
    // ("AST constructor recursion depth mismatch", a CPython thread-safety bug), which
    // schemathesis reports as an error of the run, not of the API.
    let run = crate::run(
        Command::new(bin)
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
