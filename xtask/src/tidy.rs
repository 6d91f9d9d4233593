//! Style checks that run as tests (`cargo test -p xtask`): file docs, whitespace, stubs, island
//! names on both sides, and migrations that match across backends.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
    }

    fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(read) = std::fs::read_dir(dir) else { return };
        for e in read.flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name == "node_modules" || name == "dist" || name == "target" || name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                files(&p, exts, out);
            } else if exts.iter().any(|x| name.ends_with(x)) {
                out.push(p);
            }
        }
    }

    fn sources(exts: &[&str]) -> Vec<PathBuf> {
        let r = root();
        let mut out = Vec::new();
        for d in ["crates", "xtask", "templates", "assets", "islands", "tests"] {
            files(&r.join(d), exts, &mut out);
        }
        out
    }

    #[test]
    fn every_rust_file_starts_with_a_module_doc() {
        let missing: Vec<_> = sources(&[".rs"])
            .into_iter()
            .filter(|p| !std::fs::read_to_string(p).unwrap().trim_start().starts_with("//!"))
            .collect();
        assert!(missing.is_empty(), "files without a //! doc: {missing:?}");
    }

    #[test]
    fn no_trailing_whitespace() {
        let mut bad = Vec::new();
        for p in sources(&[".rs", ".html", ".css", ".js", ".jsx", ".mjs", ".sql", ".toml", ".md", ".txt"]) {
            for (i, line) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
                if line.ends_with(' ') || line.ends_with('\t') {
                    bad.push(format!("{}:{}", p.display(), i + 1));
                }
            }
        }
        assert!(bad.is_empty(), "trailing whitespace: {bad:?}");
    }

    #[test]
    fn no_stubs_in_shipped_code() {
        let needles = [concat!("todo", "!("), concat!("unimplemented", "!("), concat!("coming ", "soon"), concat!("敬请", "期待")];
        let mut bad = Vec::new();
        for p in sources(&[".rs", ".html", ".js", ".jsx"]) {
            let text = std::fs::read_to_string(&p).unwrap();
            for n in needles {
                if text.contains(n) {
                    bad.push(format!("{} contains {n}", p.display()));
                }
            }
        }
        assert!(bad.is_empty(), "{bad:?}");
    }

    /// Island names used by the server (`.island(&state, "Name", …)` and `data-island="Name"` in
    /// templates) must exist in `islands/src/islands/`, and every island there must be used.
    #[test]
    fn islands_named_by_the_server_exist_and_the_reverse() {
        let r = root();
        let mut used = std::collections::BTreeSet::new();
        let mut texts = Vec::new();
        for p in sources(&[".rs", ".html"]) {
            if p.starts_with(r.join("xtask")) {
                continue;
            }
            texts.push(std::fs::read_to_string(&p).unwrap());
        }
        for text in &texts {
            // `.island(state, "Name", …)`, possibly over several lines: the first string literal.
            for part in text.split(".island(").skip(1) {
                if let Some(name) = part.split('"').nth(1).filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric()) && !n.is_empty()) {
                    used.insert(name.to_owned());
                }
            }
            for part in text.split("data-island=\"").skip(1) {
                let name = part.split('"').next().unwrap();
                if !name.is_empty() && !name.contains('{') {
                    used.insert(name.to_owned());
                }
            }
        }
        let mut defined = std::collections::BTreeSet::new();
        for e in std::fs::read_dir(r.join("islands/src/islands")).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".jsx") {
                defined.insert(stem.to_owned());
            }
        }
        assert!(!used.is_empty(), "no island use found: the check itself is broken");
        assert_eq!(used, defined, "islands used by the server vs islands in islands/src/islands");
    }

    #[test]
    fn migrations_have_the_same_names_on_both_backends() {
        let names = |b: &str| {
            let mut v: Vec<String> = std::fs::read_dir(root().join("crates/store/migrations").join(b))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        let sqlite = names("sqlite");
        assert!(!sqlite.is_empty());
        assert_eq!(sqlite, names("postgres"));
    }
}
