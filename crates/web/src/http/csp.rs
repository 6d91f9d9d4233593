//! The Content-Security-Policy, made once from the configuration, and the one inline handler it
//! allows by hash.

use crate::config::Config;

/// The `onerror` handler of every listing image (the specification's 加载失败 label). Templates write it
/// verbatim; the CSP allows exactly this text by its hash.
pub const IMG_FALLBACK_JS: &str = "this.onerror=null;this.removeAttribute('srcset');this.classList.add('broken');this.alt='加载失败'";

/// `'sha256-…'` of an inline script or handler, for the CSP.
pub fn script_hash(js: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(js.as_bytes())))
}

/// The Content-Security-Policy: no inline script except the image-failure handler, allowed by
/// its hash (`'unsafe-hashes'` covers event-handler attributes only, never `'unsafe-inline'`),
/// and the WeChat JS-SDK's origin for the share island. Images come only from this site and the
/// hosts the configuration names (`Config::image_origins`), never from any `https:` host. Forms
/// post to this site, and the 303 after buying something may lead on to the configured payment
/// cashiers only (`Config::form_action_origins`).
pub fn content_security_policy(config: &Config) -> String {
    page_policy(config, None, "")
}

/// One page's policy: the site's, with `connect` added to `connect-src` and the `extra`
/// directives after it (`frame-src` of the partner-frame page, `media-src` of a live stream).
/// No other page gets them.
pub fn page_policy(config: &Config, connect: Option<&str>, extra: &str) -> String {
    let mut img = String::from("'self' data: blob:");
    for origin in config.image_origins() {
        img.push(' ');
        img.push_str(&origin);
    }
    let mut form = String::from("'self'");
    for origin in config.form_action_origins() {
        form.push(' ');
        form.push_str(&origin);
    }
    let connect = connect.map_or(String::new(), |c| format!(" {c}"));
    let extra = if extra.is_empty() { String::new() } else { format!("; {extra}") };
    format!(
        "default-src 'self'; script-src 'self' {} 'unsafe-hashes' '{}'; style-src 'self'; img-src {img}; \
         connect-src 'self'{connect}; font-src 'self'; object-src 'none'; base-uri 'none'; form-action {form}; frame-ancestors 'none'{extra}",
        config.jssdk_origin(),
        script_hash(IMG_FALLBACK_JS)
    )
}

/// Replaces a response's policy with `policy` (a page's own, from [`page_policy`]).
pub fn set(res: &mut axum::response::Response, policy: &str) {
    if let Ok(v) = axum::http::HeaderValue::from_str(policy) {
        res.headers_mut().insert(axum::http::header::CONTENT_SECURITY_POLICY, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_use_exactly_the_hashed_image_handler() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates");
        let expected = format!("onerror=\"{IMG_FALLBACK_JS}\"");
        let mut seen = 0;
        // The templates' folders: the layout's at the root, each page module's in its own.
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(root)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() { dirs.push(path) } else { files.push(path) }
            }
        }
        assert!(files.len() > 50, "templates not found");
        for file in files {
            let text = std::fs::read_to_string(file).unwrap();
            for (i, _) in text.match_indices("onerror=\"") {
                assert!(text[i..].starts_with(&expected), "an inline handler the CSP does not allow: {}", &text[i..i + 60]);
                seen += 1;
            }
        }
        assert!(seen >= 2, "the card and the gallery use the handler");
        assert!(script_hash("x").starts_with("sha256-"));
    }
}
