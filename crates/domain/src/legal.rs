//! The site's agreements and policies (`/actives/help/{slug}`): each with a version and an
//! effective date, so a form that relies on one can store the version its sender accepted. The
//! texts are `data/legal.txt`, compiled in.
//!
//! ```
//! let d = domain::legal::doc("privacy").unwrap();
//! assert_eq!(d.title, "二手车网隐私政策");
//! assert!(!d.version.is_empty() && d.sections.len() >= 8);
//! ```

use std::sync::LazyLock;

/// One agreement or policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    /// Its path segment under `/actives/help/`.
    pub slug: &'static str,
    /// Title.
    pub title: &'static str,
    /// Version, stored with the acceptance.
    pub version: &'static str,
    /// When this version took effect, `YYYY-MM-DD`.
    pub effective: &'static str,
    /// One paragraph on what it covers.
    pub summary: &'static str,
    /// Headed sections of paragraphs.
    pub sections: Vec<(&'static str, Vec<&'static str>)>,
}

/// The documents a login accepts.
pub const LOGIN_DOCS: [&str; 2] = ["useragree", "privacy"];

/// The document the self-post form accepts.
pub const SELL_DOC: &str = "vippersonalsellcar";

/// The document a battery report's order accepts.
pub const BATTERY_DOC: &str = "batteryagree";

/// The authorisation every campaign flow's lead form accepts (`/actives/{flow}/agreement`).
pub const FLOW_DOC: &str = "flowagree";

/// The service agreement the `flow` and `douyinflow` forms accept besides
/// (`/actives/{flow}/agreementhx`).
pub const FLOW_SERVICE_DOC: &str = "flowservice";

/// What a form that accepts `slugs` stores: `slug@version` of each, joined by commas.
pub fn versions(slugs: &[&str]) -> String {
    slugs.iter().filter_map(|s| doc(s)).map(|d| format!("{}@{}", d.slug, d.version)).collect::<Vec<_>>().join(",")
}

static DOCS: LazyLock<Vec<Doc>> = LazyLock::new(|| parse(include_str!("data/legal.txt")));

fn parse(text: &'static str) -> Vec<Doc> {
    let mut docs: Vec<Doc> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("# ")) {
        if let Some(head) = line.strip_prefix("@@ ") {
            let f: Vec<&'static str> = head.split(" | ").collect();
            if let [slug, title, version, effective] = f[..] {
                docs.push(Doc { slug, title, version, effective, summary: "", sections: Vec::new() });
            }
            continue;
        }
        let Some(doc) = docs.last_mut() else { continue };
        if let Some(heading) = line.strip_prefix("## ") {
            doc.sections.push((heading, Vec::new()));
        } else if let Some((_, paragraphs)) = doc.sections.last_mut() {
            paragraphs.push(line);
        } else {
            doc.summary = line;
        }
    }
    docs
}

/// Every document, in the order written.
pub fn docs() -> &'static [Doc] {
    &DOCS
}

/// A document by its slug.
pub fn doc(slug: &str) -> Option<&'static Doc> {
    DOCS.iter().find(|d| d.slug == slug)
}

/// The versions a login accepts, as stored (`useragree@2026.11,privacy@2026.11`).
pub fn login_versions() -> String {
    versions(&LOGIN_DOCS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_is_whole_with_a_version_and_date() {
        let slugs: Vec<&str> = docs().iter().map(|d| d.slug).collect();
        assert_eq!(slugs, ["useragree", "privacy", "protect", "personalDetail", "depend", "vippersonalsellcar", "batteryagree", "flowagree", "flowservice"]);
        for d in docs() {
            assert!(!d.summary.is_empty() && d.sections.len() >= 4, "{}", d.slug);
            assert!(d.sections.iter().all(|(h, p)| !h.is_empty() && !p.is_empty()), "{}: an empty section", d.slug);
            assert!(d.effective.len() == 10 && d.effective.starts_with("20"), "{}", d.slug);
        }
        // The privacy policy covers what the Personal Information Protection Law asks a policy to say.
        let privacy = doc("privacy").unwrap();
        for topic in ["我们是谁", "处理的个人信息及目的", "法律依据", "共享", "保存期限", "您的权利", "未成年人", "联系我们"]
        {
            assert!(privacy.sections.iter().any(|(h, _)| h.contains(topic)), "privacy lacks {topic}");
        }
        assert_eq!(login_versions(), "useragree@2026.11,privacy@2026.11");
        assert!(doc(SELL_DOC).is_some() && doc(BATTERY_DOC).is_some());
        assert_eq!(versions(&[FLOW_DOC, FLOW_SERVICE_DOC]), "flowagree@2026.11,flowservice@2026.11");
    }
}
