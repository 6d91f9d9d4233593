//! Embeds `assets/` and the built islands (`islands/dist/`) into the binary.
//!
//! Each file gets a content hash: `css/site.css` is served as `/dist/css/site.{hash}.css`.
//! Islands are already hashed by esbuild and keep their names. The generated table is included
//! by `src/assets.rs`. Missing `islands/dist` (islands not built) just means no islands.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.join("../..");
    let mut entries = Vec::new();
    collect(&root.join("assets"), &root.join("assets"), "", &mut entries, true);
    collect(&root.join("islands/dist"), &root.join("islands/dist"), "islands/", &mut entries, false);
    println!("cargo:rerun-if-changed={}", root.join("assets").display());
    println!("cargo:rerun-if-changed={}", root.join("islands/dist").display());
    entries.sort();
    let mut out = String::from("/// (logical path, served path, absolute file path)\npub static FILES: &[(&str, &str, &[u8])] = &[\n");
    for (logical, served, abs) in &entries {
        let _ = writeln!(out, "    ({logical:?}, {served:?}, include_bytes!({abs:?})),");
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    if let Err(e) = std::fs::write(out_dir.join("assets.rs"), out) {
        println!("cargo:warning=cannot write assets.rs: {e}");
    }
}

fn collect(dir: &Path, base: &Path, prefix: &str, out: &mut Vec<(String, String, String)>, hash: bool) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    for entry in read.flatten() {
        let path = entry.path();
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_dir() {
            collect(&path, base, prefix, out, hash);
            continue;
        }
        let Ok(rel) = path.strip_prefix(base) else { continue };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let logical = format!("{prefix}{rel}");
        let served = if hash {
            let bytes = std::fs::read(&path).unwrap_or_default();
            hashed_name(&logical, fnv1a(&bytes))
        } else {
            logical.clone()
        };
        let abs = std::fs::canonicalize(&path).unwrap_or(path).to_string_lossy().into_owned();
        out.push((logical, served, abs));
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn hashed_name(logical: &str, hash: u64) -> String {
    let short = format!("{hash:016x}");
    let short = &short[..12];
    match logical.rsplit_once('.') {
        Some((stem, ext)) if !stem.ends_with('/') => format!("{stem}.{short}.{ext}"),
        _ => format!("{logical}.{short}"),
    }
}
