//! Lists the migrations from `migrations/sqlite/` and `migrations/postgres/`: every `NNNN_name.sql`
//! becomes `(NNNN, "NNNN_name", sqlite sql, postgres sql)` in `migrations.rs`, in version order.
//! A file present in one folder only, or a name without a version, stops the build.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn names(dir: &Path) -> Vec<String> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|read| read.flatten().filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".sql")).map(str::to_owned)).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("migrations");
    let (sqlite, postgres) = (names(&dir.join("sqlite")), names(&dir.join("postgres")));
    let mut out =
        String::from("/// `(version, name, sqlite sql, postgres sql)`, from the migration folders.\nconst MIGRATIONS: &[(i64, &str, &str, &str)] = &[\n");
    let mut problems = Vec::new();
    if sqlite.is_empty() {
        problems.push("no migrations in migrations/sqlite".to_owned());
    }
    if sqlite != postgres {
        problems.push(format!("migrations/sqlite has {sqlite:?} but migrations/postgres has {postgres:?}"));
    }
    for name in &sqlite {
        let Some(version) = name.split('_').next().and_then(|v| v.parse::<i64>().ok()) else {
            problems.push(format!("{name}.sql does not start with a version number"));
            continue;
        };
        let (lite, pg) = (dir.join(format!("sqlite/{name}.sql")), dir.join(format!("postgres/{name}.sql")));
        println!("cargo:rerun-if-changed={}", lite.display());
        println!("cargo:rerun-if-changed={}", pg.display());
        let _ = writeln!(out, "    ({version}, {name:?}, include_str!({:?}), include_str!({:?})),", lite.display().to_string(), pg.display().to_string());
    }
    out.push_str("];\n");
    for p in problems {
        let _ = writeln!(out, "compile_error!({p:?});");
    }
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    if let Err(e) = std::fs::write(out_dir.join("migrations.rs"), out) {
        println!("cargo:warning=cannot write migrations.rs: {e}");
    }
}
