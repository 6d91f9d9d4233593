//! The Content-Security-Policy, made once from the configuration.

use crate::config::Config;

/// The Content-Security-Policy: no inline script and no inline event handler (a failed photo's
/// 加载失败 is the site runtime's, from `data-fallback`), scripts from this site and the WeChat
/// JS-SDK's origin for the share island. Images come only from this site and the
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
        "default-src 'self'; script-src 'self' {}; style-src 'self'; img-src {img}; \
         connect-src 'self'{connect}; font-src 'self'; object-src 'none'; base-uri 'none'; form-action {form}; frame-ancestors 'none'{extra}",
        config.jssdk_origin(),
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
    #[test]
    fn templates_write_no_inline_handler() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates");
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
        let handler = regex::Regex::new(r#"\son[a-z]+\s*="#).unwrap();
        let mut fallbacks = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(!handler.is_match(&text), "{}: an inline handler the CSP refuses: {:?}", file.display(), handler.find(&text).map(|m| &text[m.start()..]));
            fallbacks += text.matches(" data-fallback").count();
        }
        assert!(fallbacks >= 2, "the card and the gallery mark their photos for 加载失败");
    }
}
