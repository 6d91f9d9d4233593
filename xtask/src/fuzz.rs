//! `cargo xtask fuzz [--secs N] [--only T]`: every cargo-fuzz target in `fuzz/` for N seconds
//! (default 60), with libFuzzer built without a sanitizer so the stable toolchain builds it. Each
//! starts from its committed seeds (`fuzz/corpus/T`) and grows a working corpus under
//! `target/fuzz/corpus/T` (the seeds stay as committed); a failing input is kept under
//! `target/fuzz/artifacts/T/` and fails the run. Prints and writes per target the executions and
//! the corpus size to `target/fuzz/fuzz.json`.

use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use crate::{Res, cargo, root};

/// The targets, as `fuzz/Cargo.toml` names them.
pub(crate) const TARGETS: [&str; 12] = [
    "carlist_query",
    "understand",
    "vin",
    "mobile",
    "numbers",
    "plate",
    "media",
    "attribution",
    "signed_token",
    "alipay_notify",
    "wechatpay_notify",
    "insurer_envelope",
];

/// Installs cargo-fuzz from crates.io when this machine lacks it.
fn ensure_cargo_fuzz() -> Res {
    let has = cargo().args(["fuzz", "--version"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if has { Ok(()) } else { crate::run(cargo().args(["install", "cargo-fuzz", "--locked"])) }
}

/// The executions libFuzzer reports in its last `#N` status line.
fn executions(log: &str) -> Option<u64> {
    log.lines().rev().find_map(|l| {
        let rest = l.strip_prefix("Done ")?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

#[expect(clippy::print_stdout, reason = "each target's line is what the command prints")]
pub(crate) fn fuzz(args: &[String]) -> Res {
    let mut secs = 60u32;
    let mut only: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--secs" => secs = it.next().and_then(|v| v.parse().ok()).filter(|s| *s > 0).ok_or("fuzz: --secs takes a number of seconds")?,
            "--only" => {
                only = Some(it.next().filter(|t| TARGETS.contains(&t.as_str())).ok_or_else(|| format!("fuzz: --only takes one of {TARGETS:?}"))?.clone())
            }
            other => return Err(format!("fuzz: unknown argument {other:?} (usage: cargo xtask fuzz [--secs N] [--only TARGET])")),
        }
    }
    ensure_cargo_fuzz()?;
    let root = root();
    let out = root.join("target/fuzz");
    let target_dir = out.to_string_lossy().into_owned();
    let fuzz = || {
        let mut c = cargo();
        // cargo-fuzz reads `fuzz/` from the project's root; one target directory for everything.
        c.args(["fuzz"]).current_dir(&root);
        c
    };
    crate::run(fuzz().args(["build", "--sanitizer", "none", "--target-dir", &target_dir]))?;
    let mut results = Vec::new();
    let mut failed = Vec::new();
    for target in TARGETS.iter().filter(|t| only.as_deref().is_none_or(|o| o == **t)) {
        let corpus = out.join("corpus").join(target);
        let artifacts = out.join("artifacts").join(target);
        for dir in [&corpus, &artifacts] {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let seeds = root.join("fuzz/corpus").join(target);
        let started = Instant::now();
        eprintln!("$ cargo fuzz run {target} ({secs} s)");
        let run = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
            .current_dir(&root)
            .args(["fuzz", "run", target, "--sanitizer", "none", "--target-dir", &target_dir])
            .arg(&corpus)
            .arg(&seeds)
            .arg("--")
            .arg(format!("-max_total_time={secs}"))
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg("-print_final_stats=1")
            .stdout(Stdio::null())
            .output()
            .map_err(|e| format!("cargo fuzz run {target}: {e}"))?;
        let log = String::from_utf8_lossy(&run.stderr);
        let runs = executions(&log);
        let inputs = std::fs::read_dir(&corpus).map(|d| d.count()).unwrap_or(0);
        let ok = run.status.success();
        println!(
            "{target:<14} {:>12} executions in {:>4.0} s, corpus {inputs:>5} inputs, {}",
            runs.map_or_else(|| "?".to_owned(), |r| r.to_string()),
            started.elapsed().as_secs_f64(),
            if ok { "no finding" } else { "FOUND A FAILING INPUT" }
        );
        if !ok {
            // What libFuzzer printed about the failure: the panic and the input's path.
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
            failed.push(*target);
        }
        results.push(json!({ "target": target, "secs": secs, "executions": runs, "corpus": inputs, "finding": !ok }));
    }
    let report: Value = json!({ "sanitizer": "none", "targets": results });
    std::fs::write(out.join("fuzz.json"), serde_json::to_string_pretty(&report).unwrap_or_default()).map_err(|e| e.to_string())?;
    if failed.is_empty() { Ok(()) } else { Err(format!("fuzz: failing inputs for {failed:?}, kept under {}/artifacts/", out.display())) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_executions_are_read_from_libfuzzers_last_line() {
        let log = "#4096\tpulse  cov: 120 ft: 300\nDone 182734 runs in 3 second(s)\nstat::number_of_executed_units: 182734\n";
        assert_eq!(super::executions(log), Some(182_734));
        assert_eq!(super::executions("INFO: Seed: 1\n==1== ERROR: libFuzzer: deadly signal\n"), None);
    }

    #[test]
    fn every_target_the_crate_declares_is_run() {
        let manifest = std::fs::read_to_string(crate::root().join("fuzz/Cargo.toml")).unwrap();
        let declared: Vec<&str> = manifest.lines().filter_map(|l| l.strip_prefix("name = \"")?.strip_suffix('"')).filter(|n| *n != "fuzz").collect();
        assert_eq!(declared, super::TARGETS);
    }
}
