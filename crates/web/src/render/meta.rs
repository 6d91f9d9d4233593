//! What a page's `<head>` and layout need (`PageMeta`), the islands it mounts, its JSON-LD, and
//! rendering a page into a buffer of its usual size.

use domain::device::Device;
use serde::Serialize;

use crate::state::AppState;

/// Layouts, chosen by each page's handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Site header, footer and tab bar.
    Default,
    /// Campaign landing pages: no site navigation.
    Flow,
    /// Dealer shop pages: the shop's header instead of the site's.
    Shop,
    /// The dealer's back office (leads, push, calls, shop profile): the 商家中心 header.
    Dealer,
}

impl Layout {
    /// Whether the site's header, footer and tab bar are shown.
    pub fn site_chrome(self) -> bool {
        self == Layout::Default
    }

    /// Whether the page is the dealer's back office, under the 商家中心 header.
    pub fn is_dealer(self) -> bool {
        self == Layout::Dealer
    }

    /// Whether the page is a campaign landing page without site navigation.
    pub fn is_flow(self) -> bool {
        self == Layout::Flow
    }

    /// The name used in templates (the body's class).
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Default => "default",
            Layout::Flow => "flow",
            Layout::Shop => "shop",
            Layout::Dealer => "dealer",
        }
    }
}

/// A campaign flow's own chrome in the flow layout: the brand bar with links that stay inside the
/// flow (no site navigation to leak a paid visit away), the sticky lead bar and the agreement
/// links of its forms.
#[derive(Debug, Clone)]
pub struct FlowChrome {
    /// The flow's landing, which the brand links to.
    pub home: &'static str,
    /// The bar's links inside the flow: text and path.
    pub links: &'static [(&'static str, &'static str)],
    /// The agreements its forms accept: title and path.
    pub agreements: &'static [(&'static str, &'static str)],
    /// Where the sticky lead bar goes: `#lead` on a page with the form, the landing's otherwise.
    pub lead_href: String,
    /// The sticky bar's text.
    pub lead_text: &'static str,
    /// The visit came from the short-video app (the specification's root state `isDouyin`).
    pub douyin: bool,
}

/// An island on a page: its name, module URL and JSON props (escaped for their attribute).
#[derive(Debug, Clone)]
pub struct IslandMount {
    /// Component name, e.g. `CityChooser`.
    pub name: &'static str,
    /// Module URL from the manifest.
    pub src: String,
    /// Serialized props, escaped for a double-quoted attribute ([`attribute_json`]).
    pub props: String,
    /// `idle` or `visible`.
    pub load: &'static str,
}

/// What `_layout.html` needs: head tags, device, layout and asset URLs.
#[derive(Debug, Clone)]
pub struct PageMeta {
    /// `<title>` without the site suffix.
    pub title: String,
    /// Meta description.
    pub description: String,
    /// Canonical URL (absolute).
    pub canonical: String,
    /// `mobile` or `pc`.
    pub device: &'static str,
    /// `default`, `flow` or `shop`.
    pub layout: Layout,
    /// The stylesheet every page loads: layout, lists, the car page and the islands they mount.
    pub css: String,
    /// The stylesheet of every other page (accounts, selling, shops, dealer centre, service hall,
    /// payments, staff); home, list and car pages leave it out (their `more_css` block).
    pub more_css: String,
    /// The runtime's URL (island loader and navigation niceties), when the islands were built.
    pub loader: Option<String>,
    /// Favicon / logo URL.
    pub logo: String,
    /// Share-card image.
    pub og_image: String,
    /// Environment name.
    pub env: String,
    /// `robots` meta content.
    pub robots: &'static str,
    /// `og:type`.
    pub og_type: &'static str,
    /// JSON-LD documents, already made safe for a `<script>` element by [`json_ld`].
    pub json_ld: Vec<String>,
    /// Where the header's 买车 goes: the list, in the visitor's chosen city when there is one.
    pub buy_href: std::borrow::Cow<'static, str>,
    /// A campaign flow's chrome (flow layout), when the page belongs to one.
    pub flow: Option<FlowChrome>,
    /// Messages the signed-in visitor has not read: a badge on the header's 我的.
    pub unread: i64,
}

/// Serialises a JSON-LD document for an inline `<script type="application/ld+json">`: `<`, `>`
/// and `&` are written as `\u003c` etc. so no text can close the script element. Pages pass
/// typed documents (no map built per key); `serde_json::Value` works too.
pub fn json_ld(value: &impl Serialize) -> String {
    // Writing into memory does not fail, and these documents have only string keys.
    serde_json::to_string(value).map_or_else(|_| String::from("{}"), escape_ld)
}

/// A JSON document with `<`, `>` and `&` escaped; they occur only inside strings, where
/// `\u003c` reads back as the same character. One scan when there are none (serialising
/// straight into an escaping writer cost a check per fragment, about 700 on a list page).
fn escape_ld(json: String) -> String {
    let mut hits = memchr::memchr3_iter(b'<', b'>', b'&', json.as_bytes()).peekable();
    if hits.peek().is_none() {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 64);
    let mut last = 0;
    for i in hits {
        out.push_str(&json[last..i]);
        out.push_str(match json.as_bytes()[i] {
            b'<' => "\\u003c",
            b'>' => "\\u003e",
            _ => "\\u0026",
        });
        last = i + 1;
    }
    out.push_str(&json[last..]);
    out
}

/// Renders a page into a buffer of `capacity` bytes reserved up front. Askama reserves only its
/// estimate of the template's own text, and a list page (about 40 KB) then grew its string nine
/// times, copying it each time (about 6% of the page's instructions, callgrind).
pub fn render_sized(tpl: &impl askama::Template, capacity: usize) -> Result<String, askama::Error> {
    let mut out = String::with_capacity(capacity);
    tpl.render_into(&mut out)?;
    Ok(out)
}

impl PageMeta {
    /// Head data for a page.
    pub fn new(state: &AppState, device: Device, layout: Layout, title: impl Into<String>) -> PageMeta {
        let logo = state.assets.url("img/logo.svg");
        PageMeta {
            title: title.into(),
            description: "二手车网：海量真实二手车源，价格评级、车况检测、估价、查记录、分期一站搞定。".to_owned(),
            canonical: state.config.site.url.clone(),
            device: device.class.as_str(),
            layout,
            css: state.assets.url("css/site.css"),
            more_css: state.assets.url("css/more.css"),
            loader: state.assets.island_url("_loader"),
            og_image: format!("{}{}", state.config.site.url, logo),
            logo,
            env: state.config.env.to_string(),
            robots: "index,follow",
            og_type: "website",
            json_ld: Vec::new(),
            buy_href: std::borrow::Cow::Borrowed("/carlist"),
            flow: None,
            unread: 0,
        }
    }

    /// [`PageMeta::new`] for a visitor: the header's 买车 opens the list in the city they chose
    /// (全国 is one tap away on the list).
    pub fn for_visitor(state: &AppState, visitor: &crate::http::visitor::Visitor, layout: Layout, title: impl Into<String>) -> PageMeta {
        let mut page = PageMeta::new(state, visitor.device, layout, title);
        page.buy_in(visitor.city_slug.as_deref().and_then(domain::region::city_by_slug));
        page.unread = visitor.unread;
        page
    }

    /// Puts the page in a campaign flow: the flow layout with the flow's chrome.
    pub fn in_flow(mut self, chrome: FlowChrome) -> PageMeta {
        self.layout = Layout::Flow;
        self.flow = Some(chrome);
        self
    }

    /// Points the header's 买车 at the list in `city` (the whole country without one).
    pub fn buy_in(&mut self, city: Option<&domain::region::City>) {
        self.buy_href = city.map_or(std::borrow::Cow::Borrowed("/carlist"), |c| std::borrow::Cow::Owned(format!("/carlist?city={}", c.slug)));
    }

    /// A page crawlers should not list but whose links they may follow (deep searches, sign-in,
    /// empty results): `noindex,follow`.
    pub fn noindex(&mut self) {
        self.robots = "noindex,follow";
    }

    /// A page for one person (the personal space, dealer and staff tools, forms): `noindex,nofollow`.
    pub fn private(&mut self) {
        self.robots = "noindex,nofollow";
    }

    /// Sets the description.
    pub fn describe(mut self, description: impl Into<String>) -> PageMeta {
        self.description = description.into();
        self
    }

    /// Sets the canonical URL from a site-relative path (with its canonical query).
    pub fn canonical_path(mut self, state: &AppState, path: &str) -> PageMeta {
        self.canonical = format!("{}{}", state.config.site.url.trim_end_matches('/'), path);
        self
    }

    /// Sets the share image from a URL that may be site-relative.
    pub fn share_image(mut self, state: &AppState, url: &str) -> PageMeta {
        self.og_image = absolute(state, url);
        self
    }
}

/// Makes a site-relative URL absolute with the configured site URL.
pub fn absolute(state: &AppState, url: &str) -> String {
    if url.starts_with("http://") || url.starts_with("https://") { url.to_owned() } else { domain::image::join(&state.config.site.url, url) }
}

impl PageMeta {
    /// Declares an island on the page (props from [`crate::render::islands`]): its mount data, or `None`
    /// without built islands, when the page keeps its server-rendered fallback.
    pub fn island<P: Serialize>(&mut self, state: &AppState, name: &'static str, props: &P) -> Option<IslandMount> {
        let src = state.assets.island_url(name)?;
        self.loader.as_ref()?;
        let props = attribute_json(props)?;
        Some(IslandMount { name, src, props, load: "idle" })
    }
}

/// `value` as JSON ready for a single-quoted HTML attribute (`data-props='…'`): its own quotes
/// written as they are (an entity for each was five bytes, most of a list's city picker), the
/// characters that could end the attribute or start markup as entities, in the serialiser's one
/// pass (escaping afterwards tested every byte again: about a twentieth of the instructions of a
/// car page, whose gallery's props are a kilobyte of JSON, callgrind).
fn attribute_json(value: &impl Serialize) -> Option<String> {
    let mut out = Vec::with_capacity(1024);
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, AttributeJson)).ok()?;
    String::from_utf8(out).ok()
}

/// The serialiser's formatter for [`attribute_json`].
struct AttributeJson;

impl serde_json::ser::Formatter for AttributeJson {
    /// The text of a string, with the characters HTML gives a meaning to as entities.
    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, fragment: &str) -> std::io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut done = 0;
        for (i, byte) in bytes.iter().enumerate() {
            let entity: &[u8] = match byte {
                b'&' => b"&#38;",
                b'\'' => b"&#39;",
                b'<' => b"&#60;",
                b'>' => b"&#62;",
                _ => continue,
            };
            w.write_all(&bytes[done..i])?;
            w.write_all(entity)?;
            done = i + 1;
        }
        w.write_all(&bytes[done..])
    }
}

impl IslandMount {
    /// Loads the island's module only when its element scrolls into view (a form far down the
    /// page), so a visitor who never gets there never downloads it.
    pub fn when_visible(mut self) -> IslandMount {
        self.load = "visible";
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn island_props_are_json_that_cannot_leave_their_single_quoted_attribute() {
        let props = serde_json::json!({
            "name": "</script>\"引号\" & 'single' <b>",
            "it's": ["宝马3系", "a\\b", "tab\there", "\u{1}"],
            "n": 12.5, "ok": true, "none": null,
        });
        let out = attribute_json(&props).unwrap();
        assert!(!out.contains(['\'', '<', '>']), "{out}");
        assert!(out.contains(r#""n":12.5"#), "JSON's own quotes as they are: {out}");
        // What a browser gives the island (`dataset.props`): the entities read back, the same JSON.
        let read = out.replace("&#39;", "'").replace("&#60;", "<").replace("&#62;", ">").replace("&#38;", "&");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&read).unwrap(), props);
    }

    #[test]
    fn json_ld_text_cannot_close_its_script_element() {
        let doc = serde_json::json!({"name": "</script><script>alert(1)</script>", "url": "/carlist?a=1&b=2"});
        let out = json_ld(&doc);
        assert!(!out.contains('<') && !out.contains('>') && !out.contains('&'), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, doc, "the escapes are JSON escapes: the document reads back the same");
        let plain = serde_json::json!({"name": "宝马3系 2020款"});
        assert_eq!(json_ld(&plain), plain.to_string());
    }
}
