//! Style checks that run as tests (`cargo test -p xtask`): file docs, whitespace, stubs, island
//! names on both sides, migrations that match across backends, every folder with its line
//! of ARCHITECTURE.md's code map, the sandbox's made-up records only behind the adapters, the web
//! crate's layers (the platform never imports a feature, features use each other without a
//! circle), no import circles among the modules of any crate, and no rule
//! of `more.css` that could match the three pages that load only `site.css`.

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
        for d in ["crates", "xtask", "templates", "assets", "islands", "tests", "fuzz/fuzz_targets"] {
            files(&r.join(d), exts, &mut out);
        }
        out
    }

    #[test]
    fn every_rust_file_starts_with_a_module_doc() {
        let missing: Vec<_> = sources(&[".rs"]).into_iter().filter(|p| !std::fs::read_to_string(p).unwrap().trim_start().starts_with("//!")).collect();
        assert!(missing.is_empty(), "files without a //! doc: {missing:?}");
    }

    #[test]
    fn no_trailing_whitespace() {
        let mut bad = Vec::new();
        // Hostile-input lists (`xtask/data/`) keep their payloads byte for byte, spaces included.
        let payloads = root().join("xtask/data");
        for p in sources(&[".rs", ".html", ".css", ".js", ".jsx", ".mjs", ".sql", ".toml", ".md", ".txt"]).into_iter().filter(|p| !p.starts_with(&payloads)) {
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

    /// Comments say the rule they implement; a section sign points at an outside document's
    /// numbering instead (an RFC's section is a standard's own name and is allowed).
    #[test]
    fn comments_name_rules_not_section_numbers() {
        let mut bad = Vec::new();
        for p in sources(&[".rs", ".html", ".css", ".js", ".jsx", ".mjs", ".sql", ".md"]) {
            if p.ends_with("xtask/src/tidy.rs") {
                continue;
            }
            for (i, line) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
                let cites_rfc = |at: usize| {
                    let before = line[..at].trim_end();
                    before.contains("RFC") && before.ends_with(|c: char| c.is_ascii_digit())
                };
                if line.match_indices('\u{a7}').any(|(at, _)| !cites_rfc(at)) {
                    bad.push(format!("{}:{}: {line}", p.display(), i + 1));
                }
            }
        }
        assert!(bad.is_empty(), "cite the rule, not its section: {bad:#?}");
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

    /// A migration's lines as both backends must agree on them: PostgreSQL's column types named
    /// as SQLite's storage classes, SQLite's `without rowid` dropped, and each block between
    /// `-- backend-specific: why` and `-- end backend-specific` reduced to its first line.
    fn portable_lines(sql: &str) -> Vec<String> {
        const TYPE_NAMES: &[(&str, &str)] = &[
            ("bigint generated by default as identity primary key", "integer primary key"),
            ("default false", "default 0"),
            ("default true", "default 1"),
            ("double precision", "real"),
            ("boolean", "integer"),
            ("smallint", "integer"),
            ("bigint", "integer"),
        ];
        let mut out = Vec::new();
        let mut fenced = false;
        for line in sql.lines().map(str::trim_end) {
            if fenced {
                fenced = line != "-- end backend-specific";
                continue;
            }
            fenced = line.starts_with("-- backend-specific:");
            let mut line = line.replace(") without rowid;", ");");
            if !line.trim_start().starts_with("--") {
                for (pg, lite) in TYPE_NAMES {
                    line = line.replace(pg, lite);
                }
            }
            out.push(line);
        }
        assert!(!fenced, "a backend-specific block is not closed");
        out
    }

    #[test]
    fn migrations_differ_between_backends_only_where_a_backend_needs_it() {
        let dir = root().join("crates/store/migrations");
        let names = |b: &str| {
            let mut v: Vec<String> = std::fs::read_dir(dir.join(b)).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
            v.sort();
            v
        };
        let sqlite = names("sqlite");
        assert!(sqlite.len() >= 14, "migrations not found: the check itself is broken");
        assert_eq!(sqlite, names("postgres"), "the two migration folders hold the same files");
        for name in &sqlite {
            let lite = portable_lines(&std::fs::read_to_string(dir.join("sqlite").join(name)).unwrap());
            let pg = portable_lines(&std::fs::read_to_string(dir.join("postgres").join(name)).unwrap());
            for (n, (a, b)) in lite.iter().zip(&pg).enumerate() {
                assert_eq!(a, b, "{name}, line {} of the portable text: the backends differ outside a backend-specific block", n + 1);
            }
            assert_eq!(lite.len(), pg.len(), "{name}: the backends differ in length outside backend-specific blocks");
        }
    }

    #[test]
    fn a_type_or_statement_that_only_one_backend_has_is_caught() {
        let lite = "create table t (\n    id integer primary key,\n    ok integer not null default 0\n);";
        let pg = "create table t (\n    id bigint generated by default as identity primary key,\n    ok boolean not null default false\n);";
        assert_eq!(portable_lines(lite), portable_lines(pg));
        let pg_extra = format!("{pg}\ncreate index t_ok on t (ok);");
        assert_ne!(portable_lines(lite), portable_lines(&pg_extra));
        let fenced = format!("{pg}\n-- backend-specific: only PostgreSQL needs it\ncreate index t_ok on t (ok);\n-- end backend-specific");
        let lite_fenced = format!("{lite}\n-- backend-specific: only PostgreSQL needs it\n-- end backend-specific");
        assert_eq!(portable_lines(&lite_fenced), portable_lines(&fenced));
        assert_ne!(portable_lines("id text"), portable_lines("id varchar"));
    }

    /// The source of a file without comments, so a doc link never counts as an import.
    fn code_of(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap().lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
    }

    type Graph = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

    /// The paths a `use` tree or path starting at `code` names, as segment lists: `a::b::{c, d::e}`
    /// gives `a::b::c` and `a::b::d::e`.
    fn path_tree(code: &str) -> Vec<Vec<String>> {
        fn walk(code: &[u8], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
            let mut segs = prefix.to_vec();
            loop {
                if code.get(i) == Some(&b'{') {
                    i += 1;
                    loop {
                        while code.get(i).is_some_and(|c| c.is_ascii_whitespace() || *c == b',') {
                            i += 1;
                        }
                        if code.get(i).is_none_or(|c| *c == b'}') {
                            return i + 1;
                        }
                        let next = walk(code, i, &segs, out);
                        if next <= i {
                            return code.len();
                        }
                        i = next;
                    }
                }
                let start = i;
                while code.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    i += 1;
                }
                if i == start {
                    out.push(segs);
                    return i.max(start + 1);
                }
                segs.push(String::from_utf8_lossy(&code[start..i]).into_owned());
                if code[i..].starts_with(b"::") {
                    i += 2;
                    continue;
                }
                out.push(segs);
                return i;
            }
        }
        let mut out = Vec::new();
        walk(code.as_bytes(), 0, &[], &mut out);
        out
    }

    /// A crate's files as a graph: each file (a folder's `mod.rs` as the folder) and the files
    /// it imports through `crate::` and `super::` paths, named by their path without `.rs`
    /// (`http/error`); `lib` and `main` left out.
    fn files_of(krate: &str) -> Graph {
        let src = root().join("crates").join(krate).join("src");
        let mut all = Vec::new();
        files(&src, &[".rs"], &mut all);
        let id = |p: &Path| {
            let rel = p.strip_prefix(&src).unwrap().to_string_lossy().trim_end_matches(".rs").to_owned();
            rel.strip_suffix("/mod").map_or(rel.clone(), str::to_owned)
        };
        let ids: std::collections::BTreeSet<String> = all.iter().map(|p| id(p)).collect();
        let mut graph = Graph::new();
        for p in &all {
            let me = id(p);
            if me == "lib" || me == "main" {
                continue;
            }
            graph.entry(me.clone()).or_default().extend(refs_of(&code_of(p), &me, &ids));
        }
        graph
    }

    /// The files `code` (the file `me`, among the crate's files `ids`) imports through `crate::`
    /// and `super::` paths, and through a module it imported by name (`use crate::pages;` then
    /// `pages::home::routes`).
    fn refs_of(code: &str, me: &str, ids: &std::collections::BTreeSet<String>) -> std::collections::BTreeSet<String> {
        let resolve = |base: &[&str], segs: &[String]| -> Option<String> {
            (1..=segs.len())
                .rev()
                .map(|k| base.iter().map(|s| (*s).to_owned()).chain(segs[..k].iter().cloned()).collect::<Vec<_>>().join("/"))
                .find(|c| ids.contains(c))
        };
        let mut refs = std::collections::BTreeSet::new();
        // Folders imported by name, by the name they are used under.
        let mut folders: Vec<(String, String)> = Vec::new();
        for (i, _) in code.match_indices("crate::") {
            for segs in path_tree(&code[i + "crate::".len()..]) {
                if let Some(found) = resolve(&[], &segs) {
                    let folder = format!("{found}/");
                    if found == segs.join("/") && ids.iter().any(|other| other.starts_with(&folder)) {
                        folders.push((segs.last().cloned().unwrap_or_default(), found.clone()));
                    }
                    refs.insert(found);
                }
            }
        }
        for (name, folder) in &folders {
            let base: Vec<&str> = folder.split('/').collect();
            for (i, _) in code.match_indices(&format!("{name}::")) {
                if code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                refs.extend(path_tree(&code[i + name.len() + 2..]).iter().filter_map(|segs| resolve(&base, segs)));
            }
        }
        // `super::x` beside this file; `super::super::` (inside a file's test module) is left out.
        // (A folder's `mod.rs` is the folder, so its `super` is the folder's parent too.)
        let parent: Vec<&str> = me.rsplit_once('/').map_or(Vec::new(), |(dir, _)| dir.split('/').collect());
        for (i, _) in code.match_indices("super::") {
            if code[..i].ends_with("::") || code[i + 7..].starts_with("super::") || code[i + 7..].starts_with('*') {
                continue;
            }
            refs.extend(path_tree(&code[i + "super::".len()..]).iter().filter_map(|segs| resolve(&parent, segs)));
        }
        refs.retain(|r| r != me && r != "lib" && r != "main");
        refs
    }

    /// The feature each file of the web crate's graph belongs to (`features/buying/cards` →
    /// `buying`), and the features each feature's files import.
    fn features_of(graph: &Graph) -> Graph {
        let feature = |f: &str| f.strip_prefix("features/").map(|rest| rest.split('/').next().unwrap_or(rest).to_owned());
        let mut out = Graph::new();
        for (file, refs) in graph {
            let Some(me) = feature(file) else { continue };
            let used = out.entry(me.clone()).or_default();
            used.extend(refs.iter().filter_map(|r| feature(r)).filter(|f| *f != me));
        }
        out
    }

    /// The platform (everything outside `features/` but the crate's root files that assemble the
    /// site: `lib`, `router`, `jobs`) never imports a feature, and the features import each other
    /// without a circle, counted by feature: a feature's public modules are what another may use
    /// (the compiler holds the rest private).
    #[test]
    fn the_platform_never_imports_a_feature_and_features_use_each_other_without_circles() {
        let src = root().join("crates/web/src");
        let mut all = Vec::new();
        files(&src, &[".rs"], &mut all);
        let mut bad = Vec::new();
        for p in &all {
            let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            if !rel.starts_with("features/") && !matches!(rel.as_str(), "lib.rs" | "router.rs" | "jobs.rs") && code_of(p).contains("crate::features") {
                bad.push(format!("{rel} imports a feature (move what it needs below the features)"));
            }
        }
        assert!(bad.is_empty(), "layer violations:\n{}", bad.join("\n"));
        let features = features_of(&files_of("web"));
        assert!(
            features.len() >= 8 && features.get("campaigns").is_some_and(|f| f.contains("buying")),
            "features not found: the check is broken: {features:?}"
        );
        let circles = on_circles(&features);
        assert!(circles.is_empty(), "features on an import circle: {circles:?}\n{features:#?}");
        // A circle through two files of two features is a circle of the features.
        let planted: Graph = [("features/a/x", "features/b/y"), ("features/b/z", "features/a/w"), ("features/a/w", "http/error")]
            .into_iter()
            .map(|(x, y)| (x.to_owned(), std::collections::BTreeSet::from([y.to_owned()])))
            .collect();
        assert_eq!(on_circles(&features_of(&planted)), ["a", "b"], "a circle between features is missed");
    }

    /// The folders (holding Rust files) a crate's section of the code map leaves unnamed: each
    /// has a line that starts with it, `` `http/` — … `` (`.` is the crate's `src` itself, named
    /// by the section's title). What a module does is its own `//!` doc, not the map's.
    fn unnamed(section: &str, folders: &[String]) -> Vec<String> {
        folders.iter().filter(|f| *f != "." && !section.contains(&format!("\n- `{f}/`"))).cloned().collect()
    }

    /// The words of the seed's URLs (pinyin and its spellings) that name routes only: a Rust item
    /// says what it is (`report_query`, `LoanPage`), and so does a template (its file and its
    /// macros); the URL stays in its route string.
    const URL_WORDS: &[&str] = &[
        "fourquery",
        "fousresults",
        "recodetail",
        "fourorder",
        "fourlist",
        "pinggu",
        "fenqi",
        "kaifa",
        "idxbar",
        "sellserve",
        "qualitycarlist",
        "toplaylet",
        "zhibo",
        "zhike",
        "carfindwa",
        "gettycarlist",
        "personcarlist",
        "baseinf",
        "superclue",
        "zherong",
    ];

    /// The identifiers of Rust `code` outside its string and character literals and comments.
    fn identifiers(code: &str) -> std::collections::BTreeSet<String> {
        let b = code.as_bytes();
        let mut out = std::collections::BTreeSet::new();
        let mut i = 0;
        while i < b.len() {
            let rest = &code[i..];
            if rest.starts_with("//") {
                i += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with("/*") {
                i += rest.find("*/").map_or(rest.len(), |e| e + 2);
            } else if let Some(hashes) = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r')).filter(|r| r.trim_start_matches('#').starts_with('"')) {
                let n = hashes.len() - hashes.trim_start_matches('#').len();
                let close = format!("\"{}", "#".repeat(n));
                let open = rest.len() - hashes.len() + n + 1;
                i += open + rest[open..].find(&close).map_or(rest.len() - open, |e| e + close.len());
            } else if b[i] == b'"' {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            } else if b[i] == b'\'' {
                // A character literal ('x', '\n', '\u{…}'), else a lifetime's quote.
                let end = if b.get(i + 1) == Some(&b'\\') {
                    rest[2..].find('\'').map(|e| e + 2)
                } else {
                    rest.char_indices().nth(2).filter(|(_, c)| *c == '\'').map(|(e, _)| e)
                };
                i += end.map_or(1, |e| e + 1);
            } else if b[i].is_ascii_alphabetic() || b[i] == b'_' {
                let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                out.insert(rest[..len].to_owned());
                i += len;
            } else {
                i += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        out
    }

    /// The class names a stylesheet's selectors use (in `@media` blocks too), outside attribute
    /// selectors and declarations.
    fn css_classes(css: &str) -> Vec<String> {
        // A selector (or an at-rule's prelude) is the text since the last brace or semicolon
        // before an opening brace; declarations are never followed by one.
        let mut selectors = String::new();
        let mut since = String::new();
        for c in css.chars() {
            match c {
                '{' => {
                    selectors.push_str(&since);
                    selectors.push('\n');
                    since.clear();
                }
                '}' | ';' => since.clear(),
                _ => since.push(c),
            }
        }
        let mut out = Vec::new();
        let mut bracket = 0;
        let b = selectors.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'[' => bracket += 1,
                b']' => bracket -= 1,
                b'.' if bracket == 0 => {
                    let end = selectors[i + 1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).map_or(selectors.len(), |e| i + 1 + e);
                    if end > i + 1 && !b[i + 1].is_ascii_digit() {
                        out.push(selectors[i + 1..end].to_owned());
                    }
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    #[test]
    fn rust_names_say_what_a_thing_is_not_its_url() {
        let mut bad = Vec::new();
        for krate in ["domain", "store", "web"] {
            let mut all = Vec::new();
            files(&root().join("crates").join(krate), &[".rs"], &mut all);
            for p in all {
                for name in identifiers(&std::fs::read_to_string(&p).unwrap()) {
                    if let Some(word) = URL_WORDS.iter().find(|w| name.to_ascii_lowercase().contains(**w)) {
                        bad.push(format!("{}: {name} (the URL word {word})", p.strip_prefix(root()).unwrap().display()));
                    }
                }
            }
        }
        // Templates' file and macro names too.
        let mut templates = Vec::new();
        files(&root().join("templates"), &[".html"], &mut templates);
        for p in templates {
            let text = std::fs::read_to_string(&p).unwrap();
            let macros =
                text.match_indices("{% macro ").map(|(i, _)| text[i + 9..].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or(""));
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            for name in std::iter::once(stem.as_str()).chain(macros) {
                if let Some(word) = URL_WORDS.iter().find(|w| name.to_ascii_lowercase().contains(**w)) {
                    bad.push(format!("{}: {name} (the URL word {word})", p.strip_prefix(root()).unwrap().display()));
                }
            }
        }
        // And the stylesheets' class names (`.loan-form`, not the URL's word).
        for sheet in ["assets/css/site.css", "assets/css/more.css"] {
            for class in css_classes(&std::fs::read_to_string(root().join(sheet)).unwrap()) {
                if let Some(word) = URL_WORDS.iter().find(|w| class.to_ascii_lowercase().contains(**w)) {
                    bad.push(format!("{sheet}: .{class} (the URL word {word})"));
                }
            }
        }
        assert_eq!(css_classes(".a-b:hover,x[href*=\"/c.d\"] .e{color:#fff;width:1.5em}@media (max-width:40.5em){.f{margin:0}}"), ["a-b", "e", "f"]);
        let planted = identifiers("let fourquery = r#\"/fourquery\"#; let c = '\"'; // pinggu\nfn f<'a>(x: &'a str) -> &'a str { \"kaifa\\\"\" }");
        assert!(planted.contains("fourquery") && planted.contains("f") && planted.contains("str"), "{planted:?}");
        assert!(!planted.iter().any(|n| n == "pinggu" || n == "kaifa"), "a string or comment counted as a name: {planted:?}");
        assert!(bad.is_empty(), "Rust names made of URL words (name what the thing is; the URL stays in its route string):\n{}", bad.join("\n"));
    }

    /// ARCHITECTURE.md's code map has a line for every folder of every crate (and the web crate's
    /// `tests/it/`): a new folder without one fails; a new file needs only its module doc.
    #[test]
    fn the_code_map_names_every_folder() {
        let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
        let section = |title: &str| {
            let start = map.find(&format!("### `{title}`")).unwrap_or_else(|| panic!("no section for {title}"));
            let end = map[start + 4..].find("\n##").map_or(map.len(), |e| start + 4 + e);
            &map[start..end]
        };
        let mut missing = Vec::new();
        for krate in ["domain", "protocols", "store", "web"] {
            let dir = root().join("crates").join(krate);
            let mut rust = Vec::new();
            files(&dir.join("src"), &[".rs"], &mut rust);
            let mut folders: std::collections::BTreeSet<String> = rust
                .iter()
                .map(|p| p.parent().unwrap().strip_prefix(dir.join("src")).unwrap().to_string_lossy().into_owned())
                .map(|f| if f.is_empty() { ".".to_owned() } else { f })
                .collect();
            if krate == "web" {
                folders.insert("tests/it".to_owned());
                assert!(folders.contains("features/service_hall/history_reports") && folders.contains("adapters"), "folders not found: the check is broken");
            }
            let folders: Vec<String> = folders.into_iter().collect();
            missing.extend(unnamed(section(&format!("crates/{krate}")), &folders).into_iter().map(|r| format!("{krate}: {r}/")));
        }
        assert!(missing.is_empty(), "folders without their line in ARCHITECTURE.md's code map: {missing:?}");
        // A folder named only inside another's line is missing.
        let planted = "### `crates/x`\n- `http/` — the plumbing, beside `pages/`.\n";
        assert_eq!(unnamed(planted, &["http".to_owned(), "pages".to_owned(), ".".to_owned()]), ["pages"]);
    }

    /// The files of the web crate, outside `adapters/`, that name one of `names` in their code.
    fn outside_adapters_naming(names: &[&str]) -> (Vec<String>, usize) {
        let src = root().join("crates/web/src");
        let mut all = Vec::new();
        files(&src, &[".rs"], &mut all);
        let naming: Vec<&PathBuf> = all.iter().filter(|p| names.iter().any(|n| code_of(p).contains(n))).collect();
        let (inside, outside): (Vec<&PathBuf>, Vec<&PathBuf>) = naming.into_iter().partition(|p| p.starts_with(src.join("adapters")));
        (outside.iter().map(|p| p.strip_prefix(&src).unwrap().display().to_string()).collect(), inside.len())
    }

    /// Made-up data (the sandbox's vehicle histories, batteries and their source name) reaches
    /// pages only through the history adapter, so a site with a real provider never shows it.
    #[test]
    fn sandbox_records_stay_behind_the_sandbox_adapters() {
        let (outside, inside) = outside_adapters_naming(&["sandbox_record", "sandbox_battery", "SANDBOX_SOURCE"]);
        assert!(inside > 0, "the adapters' use not found: the check is broken");
        assert!(outside.is_empty(), "sandbox records used outside adapters/ (ask the adapter): {outside:?}");
        let (planted, _) = outside_adapters_naming(&["fn refresh_panel"]);
        assert_eq!(planted, ["services/reports.rs"], "the search is broken");
    }

    /// The files of `graph` that reach themselves through their imports.
    fn on_circles(graph: &Graph) -> Vec<String> {
        let mut circles = Vec::new();
        for start in graph.keys() {
            let mut seen = std::collections::BTreeSet::new();
            let mut todo: Vec<&String> = graph[start].iter().collect();
            while let Some(m) = todo.pop() {
                if m == start {
                    circles.push(start.clone());
                    break;
                }
                if seen.insert(m.clone()) {
                    todo.extend(graph.get(m).into_iter().flatten());
                }
            }
        }
        circles
    }

    #[test]
    fn files_of_every_crate_import_each_other_without_circles() {
        for (krate, (a, b)) in [("domain", ("report", "validate")), ("store", ("settle", "programme")), ("web", ("auth/middleware", "auth/session"))] {
            let graph = files_of(krate);
            assert!(graph.len() > 20 && graph.get(a).is_some_and(|m| m.contains(b)), "{krate}'s files not found: the check itself is broken");
            let circles = on_circles(&graph);
            assert!(circles.is_empty(), "{krate}: files on an import circle: {circles:?}\n{graph:#?}");
        }
        // A folder imported by name and used through it counts as the file it reaches.
        let ids = ["pages", "pages/home", "router", "http/routes"].map(str::to_owned).into();
        let router = refs_of("use crate::pages;\nfn all() { for add in [pages::home::routes] {} }", "router", &ids);
        assert!(router.contains("pages/home"), "{router:?}");
        let home = refs_of("use crate::router::{Access, Routes};", "pages/home", &ids);
        let planted: Graph = [("router".to_owned(), router), ("pages/home".to_owned(), home)].into();
        assert_eq!(on_circles(&planted), ["pages/home", "router"], "a circle through a folder imported by name is missed");
        let looped: Graph = [("a", "b"), ("b", "a")].into_iter().map(|(x, y)| (x.to_owned(), std::collections::BTreeSet::from([y.to_owned()]))).collect();
        assert_eq!(on_circles(&looped), ["a", "b"], "the circle search is broken");
        assert_eq!(
            path_tree("http::{error::{AppError, ErrorReport}, visitor}; x"),
            [vec!["http", "error", "AppError"], vec!["http", "error", "ErrorReport"], vec!["http", "visitor"]]
        );
    }

    /// The web crate's folders, lowest first: a file may import from its own folder, an earlier
    /// one, and the crate root (`state`, `config`, `random`), never from a later folder. The root
    /// (the router, the job runner, the state) may import from any.
    const WEB_FOLDERS: &[&str] = &["adapters", "http", "render", "auth", "services", "features", "dev"];

    #[test]
    fn web_folders_import_only_downwards() {
        let graph = files_of("web");
        let rank = |f: &str| f.split_once('/').and_then(|(folder, _)| WEB_FOLDERS.iter().position(|x| *x == folder));
        let folders: std::collections::BTreeSet<&str> = graph.keys().filter_map(|f| f.split_once('/').map(|(d, _)| d)).collect();
        let unlisted: Vec<&&str> = folders.iter().filter(|d| !WEB_FOLDERS.contains(d)).collect();
        assert!(unlisted.is_empty(), "folders not in WEB_FOLDERS: {unlisted:?}");
        let mut bad = Vec::new();
        for (file, refs) in &graph {
            for r in refs {
                if let (Some(a), Some(b)) = (rank(file), rank(r))
                    && b > a
                {
                    bad.push(format!("{file} imports {r} ({} may not use {})", WEB_FOLDERS[a], WEB_FOLDERS[b]));
                }
            }
        }
        assert!(graph.get("render/error_page").is_some_and(|r| r.contains("http/error")), "web's files not found: the check itself is broken");
        assert!(bad.is_empty(), "imports against the folder order {WEB_FOLDERS:?}:\n{}", bad.join("\n"));
    }

    /// A feature module's templates are in the folder of its name or of its feature
    /// (`features/service_hall/valuation.rs` renders `templates/valuation/…`,
    /// `features/live/desk.rs` `templates/live/…`; a module in a feature's subfolder counts as the
    /// subfolder: `history_reports/order.rs` renders `templates/history_reports/…`); the root
    /// keeps the layout, the macros and what modules outside `features/` render (the error page,
    /// the login form), a module's folder its partials (`_…`); no template is left unused.
    #[test]
    fn templates_live_in_the_folder_of_their_feature_module() {
        let r = root();
        let mut used = std::collections::BTreeSet::new();
        let mut bad = Vec::new();
        let mut rust = Vec::new();
        files(&r.join("crates/web/src"), &[".rs"], &mut rust);
        for p in &rust {
            // The folders a feature module may render from: its feature's and its own name's.
            let allowed: Vec<String> = p.strip_prefix(r.join("crates/web/src/features")).ok().map_or(Vec::new(), |m| {
                let parts: Vec<String> = m.to_string_lossy().trim_end_matches(".rs").split('/').map(str::to_owned).collect();
                parts.iter().take(2).cloned().collect()
            });
            for part in std::fs::read_to_string(p).unwrap().split("template(path = \"").skip(1) {
                let path = part.split('"').next().unwrap().to_owned();
                let folder = path.rsplit_once('/').map(|(d, _)| d.to_owned());
                if folder.as_ref().map_or(!allowed.is_empty(), |f| !allowed.contains(f)) {
                    bad.push(format!("{} renders {path}", p.strip_prefix(&r).unwrap().display()));
                }
                used.insert(path);
            }
        }
        let mut templates = Vec::new();
        files(&r.join("templates"), &[".html"], &mut templates);
        assert!(templates.len() > 50 && used.contains("home/home.html"), "templates not found: the check itself is broken");
        let texts: Vec<String> = templates.iter().map(|t| std::fs::read_to_string(t).unwrap()).collect();
        for t in &templates {
            let rel = t.strip_prefix(r.join("templates")).unwrap().to_string_lossy().into_owned();
            // A module folder's partial (`flow/_parts.html`) is used when its folder imports it.
            let partial = rel.rsplit('/').next().is_some_and(|name| name.starts_with('_'));
            let imported = texts.iter().any(|text| text.contains(&format!("\"{rel}\"")));
            if rel.starts_with('_') || used.contains(&rel) || (partial && imported) {
                continue;
            }
            bad.push(format!("templates/{rel} is not {}", if partial { "imported by any template" } else { "rendered by any module" }));
        }
        assert!(bad.is_empty(), "templates out of place:\n{}", bad.join("\n"));
    }

    /// The pages that load only `site.css` (their template empties the layout's `more_css` block),
    /// with the route whose islands `islands/pages.json` lists.
    const SITE_CSS_ONLY: &[(&str, &str)] = &[("home/home.html", "/"), ("carlist/list.html", "/carlist"), ("detail/car.html", "/details/{id}")];

    /// Every word that could be a class name on a page that loads only `site.css`: the words of
    /// its template, the templates it imports, the layout, the runtime and kit scripts and the
    /// islands it mounts; plus the prefixes of classes made in a template (`rating-{{ kind }}`).
    fn site_css_only_words() -> (std::collections::BTreeSet<String>, Vec<String>) {
        let r = root();
        let pages: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(r.join("islands/pages.json")).unwrap()).unwrap();
        let mut files = vec![r.join("templates/_layout.html"), r.join("islands/src/loader.js"), r.join("islands/src/mount.js")];
        files.extend(std::fs::read_dir(r.join("islands/src/kit")).unwrap().flatten().map(|e| e.path()));
        for (template, route) in SITE_CSS_ONLY {
            let text = std::fs::read_to_string(r.join("templates").join(template)).unwrap();
            files.push(r.join("templates").join(template));
            for tag in ["{% import \"", "{% include \""] {
                for part in text.split(tag).skip(1) {
                    files.push(r.join("templates").join(part.split('"').next().unwrap()));
                }
            }
            for island in pages[route].as_array().unwrap_or_else(|| panic!("islands/pages.json lists no {route}")) {
                files.push(r.join("islands/src/islands").join(format!("{}.jsx", island.as_str().unwrap())));
            }
        }
        let (mut words, mut prefixes) = (std::collections::BTreeSet::new(), Vec::new());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let is_word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
            let mut rest = text.as_str();
            while let Some(start) = rest.find(is_word) {
                let end = rest[start..].find(|c: char| !is_word(c)).map_or(rest.len(), |e| start + e);
                let word = &rest[start..end];
                if word.ends_with('-') && (rest[end..].starts_with("{{") || rest[end..].starts_with("${")) {
                    prefixes.push(word.to_owned());
                }
                words.insert(word.to_owned());
                rest = &rest[end..];
            }
        }
        // The layout's `data-device` and body classes come from the server's values.
        words.extend(["mobile", "pc"].map(String::from));
        (words, prefixes)
    }

    /// The selectors of a style sheet's rules (inside `@media` too; not `@keyframes` steps).
    fn selectors(css: &str) -> Vec<String> {
        let mut text = String::new();
        let mut rest = css;
        while let Some(i) = rest.find("/*") {
            text.push_str(&rest[..i]);
            rest = rest[i..].find("*/").map_or("", |e| &rest[i + e + 2..]);
        }
        text.push_str(rest);
        let mut out = Vec::new();
        let (mut head, mut depth, mut skip_depth) = (String::new(), 0usize, None);
        for c in text.chars() {
            match c {
                '{' => {
                    let h = head.trim().to_owned();
                    head.clear();
                    depth += 1;
                    if skip_depth.is_some() {
                        continue;
                    }
                    if h.starts_with("@keyframes") || h.starts_with("@font-face") || h.starts_with("@view-transition") {
                        skip_depth = Some(depth);
                    } else if !h.starts_with('@') {
                        let mut level = 0;
                        let mut sel = String::new();
                        for ch in h.chars() {
                            match ch {
                                '(' | '[' => level += 1,
                                ')' | ']' => level -= 1,
                                ',' if level == 0 => {
                                    out.push(std::mem::take(&mut sel));
                                    continue;
                                }
                                _ => {}
                            }
                            sel.push(ch);
                        }
                        out.push(sel);
                    }
                }
                '}' => {
                    if skip_depth == Some(depth) {
                        skip_depth = None;
                    }
                    depth = depth.saturating_sub(1);
                    head.clear();
                }
                ';' => head.clear(),
                _ => head.push(c),
            }
        }
        out.into_iter().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
    }

    /// The classes an element must have somewhere for a selector to match: what is inside
    /// attribute selectors and `:not(…)` asks for nothing.
    fn required_classes(selector: &str) -> Vec<String> {
        let mut plain = String::new();
        let (mut bracket, mut not) = (0, 0);
        let mut rest = selector;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with(":not(") {
                not += 1;
                rest = &rest[5..];
                continue;
            }
            match c {
                '[' => bracket += 1,
                ']' => bracket -= 1,
                ')' if not > 0 && bracket == 0 => not -= 1,
                _ if bracket == 0 && not == 0 => plain.push(c),
                _ => {}
            }
            rest = &rest[c.len_utf8()..];
        }
        plain
            .split('.')
            .skip(1)
            .map(|p| p.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).next().unwrap_or("").to_owned())
            .filter(|c| !c.is_empty())
            .collect()
    }

    /// Home, list and car pages load only `site.css`; a rule in `more.css` that could match one
    /// of them (every class it needs occurs there) would go missing on it.
    #[test]
    fn more_css_has_no_rule_for_the_pages_that_load_only_site_css() {
        let r = root();
        for (template, _) in SITE_CSS_ONLY {
            let text = std::fs::read_to_string(r.join("templates").join(template)).unwrap();
            assert!(text.contains("{% block more_css %}{% endblock %}"), "{template} should empty the more_css block");
        }
        let emptied: Vec<String> = sources(&[".html"])
            .into_iter()
            .filter(|p| std::fs::read_to_string(p).unwrap().contains("{% block more_css %}{% endblock %}"))
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(emptied.len(), SITE_CSS_ONLY.len(), "templates leaving out more.css: {emptied:?}; list a new one in SITE_CSS_ONLY");
        let (words, prefixes) = site_css_only_words();
        let matches = |sel: &str| required_classes(sel).iter().all(|c| words.contains(c) || prefixes.iter().any(|p| c.starts_with(p.as_str())));
        let more = selectors(&std::fs::read_to_string(r.join("assets/css/more.css")).unwrap());
        assert!(more.len() > 100 && more.iter().any(|s| s == ".staff-programme .decide"), "more.css's rules not found: the check itself is broken");
        assert!(matches(".card .price") && !matches(".staff-programme .decide") && matches("a:not(.staff-programme)"), "the class test is broken");
        let stray: Vec<&String> = more.iter().filter(|s| matches(s)).collect();
        assert!(stray.is_empty(), "rules in more.css that could match home, list or car pages (move them to site.css): {stray:?}");
    }
}
