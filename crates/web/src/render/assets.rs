//! Static assets under `/dist/`: embedded at build time (see `build.rs`), content-hashed names,
//! gzip and brotli bodies prepared once at start-up, and the islands manifest.
//!
//! A hashed URL never changes content, so it is served `immutable` for a year. The logical name
//! (`/dist/css/site.css`) is also served, with a short cache, for URLs stored in data.

use std::collections::HashMap;
use std::io::Write as _;

use axum::body::Bytes;

mod generated {
    include!(concat!(env!("OUT_DIR"), "/assets.rs"));
}

/// One file ready to serve.
#[derive(Debug)]
pub struct Asset {
    /// Uncompressed bytes.
    pub raw: &'static [u8],
    /// gzip body, when the type compresses and it saves bytes.
    pub gzip: Option<Bytes>,
    /// brotli body, likewise.
    pub br: Option<Bytes>,
    /// `Content-Type`.
    pub mime: &'static str,
    /// Served under its hashed name (immutable) rather than its logical one.
    pub immutable: bool,
}

/// Every embedded asset, by served path and by logical path.
#[derive(Debug, Default)]
pub struct Assets {
    by_path: HashMap<&'static str, Asset>,
    hashed: HashMap<&'static str, &'static str>,
    islands: HashMap<String, String>,
    /// URL prefix for asset links (`/dist`, or a CDN path such as `/mstatic` in production).
    prefix: String,
}

fn mime(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn compresses(mime: &str) -> bool {
    mime.starts_with("text/") || mime == "application/json" || mime == "image/svg+xml"
}

fn gzip(raw: &[u8]) -> Option<Bytes> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(raw).ok()?;
    enc.finish().ok().filter(|z| z.len() < raw.len()).map(Bytes::from)
}

fn brotli(raw: &[u8]) -> Option<Bytes> {
    let mut out = Vec::new();
    {
        // A window just over the file (2^16 to 2^22 bytes): a larger one compresses no better,
        // and quality 11 sizes its match tables by it (a 4 MB window for each of these small
        // files made start-up peak near 120 MB of memory).
        let lgwin = raw.len().max(1).next_power_of_two().trailing_zeros().clamp(16, 22);
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 11, lgwin);
        w.write_all(raw).ok()?;
    }
    Some(out).filter(|z| z.len() < raw.len()).map(Bytes::from)
}

/// The gzip and brotli bodies of the embedded files, in their order, made once per process (a
/// test process builds hundreds of app states, and quality 11 is slow).
fn compressed() -> &'static [(Option<Bytes>, Option<Bytes>)] {
    static BODIES: std::sync::LazyLock<Vec<(Option<Bytes>, Option<Bytes>)>> = std::sync::LazyLock::new(|| {
        generated::FILES.iter().map(|(logical, _, raw)| if compresses(mime(logical)) { (gzip(raw), brotli(raw)) } else { (None, None) }).collect()
    });
    &BODIES
}

impl Assets {
    /// Loads the embedded files, compressing text types once per process.
    pub fn load(prefix: &str) -> Assets {
        let mut assets = Assets { prefix: prefix.trim_end_matches('/').to_owned(), ..Default::default() };
        for ((logical, served, raw), (gz, br)) in generated::FILES.iter().zip(compressed()) {
            let (mime, gz, br) = (mime(logical), gz.clone(), br.clone());
            assets.hashed.insert(logical, served);
            if logical == served {
                assets.by_path.insert(served, Asset { raw, gzip: gz, br, mime, immutable: logical.starts_with("islands/") });
            } else {
                assets.by_path.insert(served, Asset { raw, gzip: gz.clone(), br: br.clone(), mime, immutable: true });
                assets.by_path.insert(logical, Asset { raw, gzip: gz, br, mime, immutable: false });
            }
        }
        if let Some(manifest) = assets.by_path.get("islands/manifest.json") {
            assets.islands = serde_json::from_slice(manifest.raw).unwrap_or_default();
        }
        assets
    }

    /// The public URL of a logical asset path: `css/site.css` → `/dist/css/site.0a1b2c3d4e5f.css`.
    pub fn url(&self, logical: &str) -> String {
        let served = self.hashed.get(logical).copied().unwrap_or(logical);
        format!("{}/{served}", self.prefix)
    }

    /// The URL of an island's module, or `None` when islands were not built or the name is unknown.
    pub fn island_url(&self, name: &str) -> Option<String> {
        self.islands.get(name).map(|file| format!("{}/{file}", self.prefix))
    }

    /// Names of the built islands.
    pub fn island_names(&self) -> impl Iterator<Item = &str> {
        self.islands.keys().filter(|k| !k.starts_with('_')).map(String::as_str)
    }

    /// The asset served at `path` (hashed or logical).
    pub fn get(&self, path: &str) -> Option<&Asset> {
        self.by_path.get(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_names_map_to_hashed_urls() {
        let assets = Assets::load("/dist");
        let url = assets.url("css/site.css");
        assert!(url.starts_with("/dist/css/site.") && url.ends_with(".css") && url.len() > "/dist/css/site.css".len(), "{url}");
        assert_eq!(Assets::load("/mstatic/").url("nope.txt"), "/mstatic/nope.txt");
    }

    #[test]
    fn text_assets_are_precompressed() {
        let assets = Assets::load("/dist");
        let css = assets.get("css/site.css").unwrap();
        assert!(css.gzip.is_some() && css.br.is_some());
        assert!(css.br.as_ref().unwrap().len() < css.raw.len());
    }
}
