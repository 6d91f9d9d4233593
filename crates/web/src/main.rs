//! The `usedcar` binary: `serve`, `seed`, `migrate`, and two aids for measuring and fault runs.
//!
//! ```text
//! usedcar serve [--addr 127.0.0.1:8080] [--database-url URL] [--env development|staging|production] [--config FILE]
//! usedcar seed --listings N [--seed S] [--database-url URL]
//! usedcar migrate [--database-url URL]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use domain::time::Clock;
use web::config::{Config, Env};

/// mimalloc instead of glibc's malloc: rendering a page makes many short-lived small strings,
/// and glibc spent about 15% of the server's CPU on them under load (perf on /details).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage:
  usedcar serve [--addr 127.0.0.1:8080] [--database-url URL] [--env development|staging|production] [--config FILE]
  usedcar seed --listings N [--seed S] [--database-url URL] [--env ENV] [--config FILE]
  usedcar migrate [--database-url URL] [--env ENV] [--config FILE]
  usedcar bench-search [--combos N] [--slowest N] [--budget-ms MS] [--database-url URL]   (latency of the /carlist queries per facet, one JSON line; fails when a facet's p99 is over the budget)
  usedcar sandbox-notify --order NO [--database-url URL]   (the sandbox cashier's signed notify for an order, one JSON line)";

struct Args {
    command: String,
    flags: Vec<(String, String)>,
}

fn parse_args(raw: Vec<String>) -> Result<Args, String> {
    let mut it = raw.into_iter();
    let command = it.next().ok_or("missing command")?;
    let mut flags = Vec::new();
    while let Some(flag) = it.next() {
        let Some(name) = flag.strip_prefix("--") else { return Err(format!("unexpected argument {flag:?}")) };
        let (name, value) = match name.split_once('=') {
            Some((n, v)) => (n.to_owned(), v.to_owned()),
            None => (name.to_owned(), it.next().ok_or(format!("--{name} needs a value"))?),
        };
        flags.push((name, value));
    }
    Ok(Args { command, flags })
}

impl Args {
    fn get(&self, name: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn check_known(&self, known: &[&str]) -> Result<(), String> {
        match self.flags.iter().find(|(n, _)| !known.contains(&n.as_str())) {
            Some((n, _)) => Err(format!("unknown option --{n} for {}", self.command)),
            None => Ok(()),
        }
    }

    fn config(&self) -> Result<Config, String> {
        let env: Env = self.get("env").map(str::to_owned).or_else(|| std::env::var("USEDCAR_ENV").ok()).as_deref().unwrap_or("development").parse()?;
        let file_path = self.get("config").map(str::to_owned).or_else(|| std::env::var("USEDCAR_CONFIG").ok());
        let file = match file_path {
            Some(p) => Some(std::fs::read_to_string(&p).map_err(|e| format!("cannot read config {p}: {e}"))?),
            None => None,
        };
        let mut cfg = Config::load(env, file.as_deref(), std::env::vars())?;
        if let Ok(url) = std::env::var("DATABASE_URL") {
            cfg.database_url = url;
        }
        if let Some(url) = self.get("database-url") {
            cfg.database_url = url.to_owned();
        }
        if let Some(addr) = self.get("addr") {
            cfg.addr = addr.to_owned();
        }
        Ok(cfg)
    }
}

fn init_logging() {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let filter: Targets = std::env::var("USEDCAR_LOG")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO).with_target("sqlx", LevelFilter::WARN));
    tracing_subscriber::registry().with(tracing_subscriber::fmt::layer().json().flatten_event(true).with_current_span(false)).with(filter).init();
}

async fn open_store(cfg: &Config) -> Result<store::Store, String> {
    let is_file = !cfg.database_url.starts_with("postgres") && !cfg.database_url.starts_with("sqlite:");
    if let Some(parent) = std::path::Path::new(&cfg.database_url).parent().filter(|p| is_file && !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let store = store::Store::connect(&cfg.database_url).await.map_err(|e| format!("cannot open database: {e}"))?;
    let store = store.with_file_map(i64::from(cfg.cache.reader_map_mb) << 20);
    store.migrate().await.map_err(|e| format!("migration failed: {e}"))?;
    Ok(store)
}

async fn run(args: Args) -> Result<(), String> {
    match args.command.as_str() {
        "serve" => {
            args.check_known(&["addr", "database-url", "env", "config"])?;
            let cfg = args.config()?;
            cfg.check()?;
            web::services::storage::Storage::try_from_config(&cfg)?;
            let store = open_store(&cfg).await?;
            // Payment keys that do not read stop the start, not a buyer's payment later.
            web::adapters::pay::Payments::try_from_config(&cfg, web::adapters::http_client(), &store)?;
            web::serve(web::state::AppState::new(cfg, store)).await.map_err(|e| format!("server failed: {e}"))
        }
        "seed" => {
            args.check_known(&["listings", "seed", "database-url", "env", "config", "if-empty"])?;
            let cfg = args.config()?;
            let listings: usize = args.get("listings").ok_or("seed needs --listings N")?.parse().map_err(|_| "--listings must be a number")?;
            let seed: u64 = args.get("seed").unwrap_or("1").parse().map_err(|_| "--seed must be a number")?;
            let store = open_store(&cfg).await?;
            let existing = store.count_listings().await.map_err(|e| e.to_string())?;
            if existing > 0 {
                if args.get("if-empty") == Some("true") {
                    tracing::info!(existing, "database already has listings; not seeding");
                    return Ok(());
                }
                return Err(format!("the database already has {existing} listings; seed an empty database"));
            }
            let start = Instant::now();
            let now = web::state::SystemClock.now();
            let report = store::seed::seed(&store, store::seed::SeedConfig { listings, seed, now }).await.map_err(|e| format!("seeding failed: {e}"))?;
            let secs = start.elapsed().as_secs_f64();
            tracing::info!(?report, seconds = secs, "seeded demo data");
            store.close().await;
            Ok(())
        }
        "bench-search" => {
            args.check_known(&["database-url", "env", "config", "combos", "slowest", "budget-ms"])?;
            let cfg = args.config()?;
            let combos: usize = args.get("combos").unwrap_or("2000").parse().map_err(|_| "--combos must be a number")?;
            let slowest: usize = args.get("slowest").unwrap_or("12").parse().map_err(|_| "--slowest must be a number")?;
            let budget: Option<f64> = args.get("budget-ms").map(|b| b.parse().map_err(|_| "--budget-ms must be a number of milliseconds")).transpose()?;
            let store = open_store(&cfg).await?;
            let report = web::dev::search_bench::run(&store, web::state::SystemClock.now(), combos, slowest, budget).await.map_err(|e| e.to_string())?;
            #[expect(clippy::print_stdout, reason = "the benchmark's result is the command's output")]
            {
                println!("{}", report.line);
            }
            store.close().await;
            if report.over_budget.is_empty() { Ok(()) } else { Err(format!("facets over the p99 budget: {}", report.over_budget.join("; "))) }
        }
        "sandbox-notify" => {
            args.check_known(&["database-url", "env", "config", "order"])?;
            let cfg = args.config()?;
            let order_no = args.get("order").ok_or("sandbox-notify needs --order NO")?;
            let store = open_store(&cfg).await?;
            let payments = web::adapters::pay::Payments::try_from_config(&cfg, web::adapters::http_client(), &store)?;
            let notify = web::dev::sandbox_notify::notify(&store, &payments, order_no, web::state::SystemClock.now()).await;
            store.close().await;
            #[expect(clippy::print_stdout, reason = "the notify is the command's output")]
            {
                println!("{}", notify?);
            }
            Ok(())
        }
        "migrate" => {
            args.check_known(&["database-url", "env", "config"])?;
            let cfg = args.config()?;
            open_store(&cfg).await?.close().await;
            Ok(())
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if raw.is_empty() || raw.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("{USAGE}");
        return if raw.is_empty() { ExitCode::FAILURE } else { ExitCode::SUCCESS };
    }
    let args = match parse_args(raw) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("usedcar: {e}\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("usedcar: cannot start runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "usedcar failed");
            eprintln!("usedcar: {e}");
            ExitCode::FAILURE
        }
    }
}
