//! Text escaped for HTML once, where it is made, so that a template writes it as it is.
//!
//! askama escapes every value it writes one byte at a time; a list page writes about 250 option
//! links and twenty cards, each card's title four times, and that escaping was about a tenth of
//! the page's instructions (callgrind). Values written more than once, or made of parts known to
//! need nothing, are escaped (or checked) once here instead.

use std::borrow::Cow;

use domain::search::CarQuery;

/// Whether `text` holds a byte HTML escapes (`& < > " '`).
pub fn needs_escaping(text: &str) -> bool {
    text.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\''))
}

/// Text escaped for HTML text and attribute values (`& < > " '`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlText(Cow<'static, str>);

impl HtmlText {
    /// The link to `target` on the list at `path` (`&amp;` between the parameters).
    pub fn href(target: &CarQuery, path: &str) -> HtmlText {
        let mut out = String::with_capacity(path.len() + 64);
        if needs_escaping(path) {
            domain::text::push_html_escaped(&mut out, path);
        } else {
            out.push_str(path);
        }
        target.push_html_query(&mut out);
        HtmlText(Cow::Owned(out))
    }

    /// `text` escaped (borrowed as it is when it needs nothing).
    pub fn text(text: impl Into<Cow<'static, str>>) -> HtmlText {
        let text = text.into();
        if !needs_escaping(&text) {
            return HtmlText(text);
        }
        let mut out = String::with_capacity(text.len() + 16);
        domain::text::push_html_escaped(&mut out, &text);
        HtmlText(Cow::Owned(out))
    }

    /// HTML its maker escaped already (a row's links from [`domain::search::RowLinks`]).
    pub fn escaped(html: String) -> HtmlText {
        HtmlText(Cow::Owned(html))
    }

    /// `text` made only of parts that were checked with [`needs_escaping`] and of literals
    /// without those bytes (a photo's sized URLs, made of its checked address): written as it is.
    pub fn checked(text: String) -> HtmlText {
        debug_assert!(!needs_escaping(&text), "checked text needs escaping: {text}");
        HtmlText(Cow::Owned(text))
    }

    /// Whether there is no text (a card's compare link back is empty off the list).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The text as written in the page.
    pub fn as_html(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for HtmlText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

// Escaped when made: the template must not escape it again, and writes it in one piece.
impl askama::filters::HtmlSafe for HtmlText {}

impl askama::FastWritable for HtmlText {
    fn write_into(&self, dest: &mut dyn std::fmt::Write, _: &dyn askama::Values) -> askama::Result<()> {
        Ok(dest.write_str(&self.0)?)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use askama::Template;
    use domain::search::CarQuery;

    use super::HtmlText;

    #[derive(Template)]
    #[template(source = r#"<a href="{{ href }}">{{ label }}</a>"#, ext = "html")]
    struct Link {
        href: HtmlText,
        label: HtmlText,
    }

    #[test]
    fn list_links_and_labels_are_escaped_once() {
        let q = CarQuery::parse([("brand", "dazhong"), ("keyword", "白色 <b>\"x\"")].map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))));
        let href = HtmlText::href(&q, "/shop/a&b\"/buyCar");
        assert_eq!(href.as_html(), "/shop/a&amp;b&quot;/buyCar?brand=dazhong&amp;keyword=%E7%99%BD%E8%89%B2%20%3Cb%3E%22x%22");
        assert_eq!(HtmlText::text("大众").as_html(), "大众");
        let label = HtmlText::text(String::from("<i>'A&B'</i>"));
        assert_eq!(label.as_html(), "&lt;i&gt;&#39;A&amp;B&#39;&lt;/i&gt;");
        assert_eq!(
            Link { href, label }.render().unwrap(),
            r#"<a href="/shop/a&amp;b&quot;/buyCar?brand=dazhong&amp;keyword=%E7%99%BD%E8%89%B2%20%3Cb%3E%22x%22">&lt;i&gt;&#39;A&amp;B&#39;&lt;/i&gt;</a>"#
        );
    }
}
