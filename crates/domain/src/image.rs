//! Image fields: a comma-separated list or a JSON array of URLs; a URL without `http` gets
//! the image host's upload path in front; an empty field gives the default car image.

/// The picture shown when a listing has none.
pub const DEFAULT_CAR_IMAGE: &str = "/dist/img/default-car.svg";

/// Splits an image field into URLs, prefixing relative ones with `upload_base`
/// (for example `https://img.example.com/upload/`). Never returns an empty list.
pub fn resolve(field: &str, upload_base: &str) -> Vec<String> {
    let urls: Vec<String> = split(field).into_iter().map(|u| if u.starts_with("http") { u } else { join(upload_base, &u) }).collect();
    if urls.is_empty() { vec![DEFAULT_CAR_IMAGE.to_owned()] } else { urls }
}

/// The first image of a field, resolved, or the default car image.
pub fn cover(field: &str, upload_base: &str) -> String {
    let field = field.trim();
    if field.starts_with('[') {
        return resolve(field, upload_base).swap_remove(0);
    }
    // A list's first item without splitting the rest: every card of a page has a cover.
    match field.split(',').map(str::trim).find(|s| !s.is_empty() && *s != "null") {
        Some(url) if url.starts_with("http") => url.to_owned(),
        Some(path) => join(upload_base, path),
        None => DEFAULT_CAR_IMAGE.to_owned(),
    }
}

/// Joins the upload base and a relative path with exactly one slash between them.
pub fn join(upload_base: &str, path: &str) -> String {
    crate::text::concat(&[upload_base.trim_end_matches('/'), "/", path.trim_start_matches('/')])
}

/// Widths (px, 4:3) in which every uploaded listing photo is stored: `{stem}_w{width}.webp`.
pub const PHOTO_WIDTHS: [u32; 3] = [320, 640, 960];

/// Whether `url` is a photo on our upload host, which exists in [`PHOTO_WIDTHS`].
fn is_ours(url: &str, upload_base: &str) -> bool {
    let base = upload_base.trim_end_matches('/');
    url.starts_with(base) && [".webp", ".jpg", ".jpeg", ".png"].iter().any(|e| url.ends_with(e))
}

/// The URL of a photo at `width`: `…/a.webp` → `…/a_w320.webp` for our uploads; any other URL
/// (an outside host, the default image) unchanged.
pub fn sized(url: &str, upload_base: &str, width: u32) -> String {
    if !is_ours(url, upload_base) {
        return url.to_owned();
    }
    let mut out = String::with_capacity(url.len() + 10);
    push_sized(&mut out, url, width);
    out
}

/// Appends `{stem}_w{width}.webp` of one of our photos to `out`.
fn push_sized(out: &mut String, url: &str, width: u32) {
    let stem = url.rsplit_once('.').map_or(url, |(s, _)| s);
    out.push_str(stem);
    out.push_str("_w");
    push_width(out, width);
    out.push_str(".webp");
}

/// Appends a width in pixels (the stored widths as they are: every card and photo of a page
/// names three).
fn push_width(out: &mut String, width: u32) {
    match width {
        320 => out.push_str("320"),
        640 => out.push_str("640"),
        960 => out.push_str("960"),
        other => crate::text::push_int(out, i64::from(other)),
    }
}

/// A `srcset` for a photo in every stored width, or `None` when only one size exists.
pub fn srcset(url: &str, upload_base: &str) -> Option<String> {
    if !is_ours(url, upload_base) {
        return None;
    }
    // Built in one buffer: every card and photo of a page has one.
    let mut out = String::with_capacity(PHOTO_WIDTHS.len() * (url.len() + 16));
    for (i, w) in PHOTO_WIDTHS.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_sized(&mut out, url, *w);
        out.push(' ');
        push_width(&mut out, *w);
        out.push('w');
    }
    Some(out)
}

/// The photo formats we accept, told by their first bytes (never by the name or the declared type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// `FF D8 FF`.
    Jpeg,
    /// `89 50 4E 47 0D 0A 1A 0A`.
    Png,
    /// `RIFF····WEBP`.
    Webp,
}

/// Why a file is not a photo we take; each has the message shown to the seller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SniffError {
    /// Zero bytes.
    Empty,
    /// An HEIC/HEIF photo (iPhone default): say how to get a JPEG instead.
    Heic,
    /// Anything else (SVG, HTML, GIF, PDF, AVIF…).
    Unsupported,
}

impl SniffError {
    /// The text shown beside the photo.
    pub fn message(self) -> &'static str {
        match self {
            SniffError::Empty => "照片是空文件，请重新选择",
            SniffError::Heic => "暂不支持HEIC格式的照片，请在相机设置中选择“兼容性最佳”或转为JPG后上传",
            SniffError::Unsupported => "只支持JPG、PNG、WebP格式的照片",
        }
    }
}

/// Bytes a caller must read to sniff a file.
pub const SNIFF_LEN: usize = 16;

/// Tells the format from the first [`SNIFF_LEN`] bytes.
pub fn sniff(head: &[u8]) -> Result<ImageKind, SniffError> {
    if head.is_empty() {
        return Err(SniffError::Empty);
    }
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Ok(ImageKind::Jpeg);
    }
    if head.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        return Ok(ImageKind::Png);
    }
    if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        return Ok(ImageKind::Webp);
    }
    if head.len() >= 12 && &head[4..8] == b"ftyp" {
        let brand = &head[8..12];
        if [b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"].iter().any(|b| brand == *b) {
            return Err(SniffError::Heic);
        }
    }
    Err(SniffError::Unsupported)
}

fn split(field: &str) -> Vec<String> {
    let field = field.trim();
    if field.starts_with('[') {
        return json_strings(field).unwrap_or_default();
    }
    field.split(',').map(str::trim).filter(|s| !s.is_empty() && *s != "null").map(str::to_owned).collect()
}

/// A JSON array's strings, read by `serde_json` (every escape and surrogate pair as JSON has
/// them); anything else in the array is skipped, and text that is not a JSON array yields `None`
/// (no images) rather than an error.
fn json_strings(text: &str) -> Option<Vec<String>> {
    let items: Vec<serde_json::Value> = serde_json::from_str(text).ok()?;
    Some(items.iter().filter_map(serde_json::Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn photos_are_told_by_their_bytes() {
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE1, 0, 0]), Ok(ImageKind::Jpeg));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Ok(ImageKind::Png));
        assert_eq!(sniff(b"RIFF\x10\0\0\0WEBPVP8 "), Ok(ImageKind::Webp));
        assert_eq!(sniff(b"\0\0\0\x18ftypheic\0\0\0\0"), Err(SniffError::Heic));
        assert_eq!(sniff(b"\0\0\0\x18ftypmif1\0\0\0\0"), Err(SniffError::Heic));
        assert_eq!(sniff(b"\0\0\0\x18ftypavif\0\0\0\0"), Err(SniffError::Unsupported));
        assert_eq!(sniff(b"<svg xmlns=\"http://www.w3.org/2000/svg\">"), Err(SniffError::Unsupported));
        assert_eq!(sniff(b"<!DOCTYPE html><html>"), Err(SniffError::Unsupported));
        assert_eq!(sniff(b"GIF89a"), Err(SniffError::Unsupported));
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVE"), Err(SniffError::Unsupported));
        assert_eq!(sniff(b""), Err(SniffError::Empty));
        assert!(SniffError::Heic.message().contains("HEIC"));
    }

    #[test]
    fn photos_on_our_host_come_in_three_widths() {
        let base = "https://img.example.com/upload/";
        let url = "https://img.example.com/upload/demo/suv-red-1.webp";
        assert_eq!(sized(url, base, 320), "https://img.example.com/upload/demo/suv-red-1_w320.webp");
        assert_eq!(sized(url, base, 1080), "https://img.example.com/upload/demo/suv-red-1_w1080.webp");
        assert_eq!(sized(url, base, 0), "https://img.example.com/upload/demo/suv-red-1_w0.webp");
        assert_eq!(
            srcset(url, base).unwrap(),
            "https://img.example.com/upload/demo/suv-red-1_w320.webp 320w, https://img.example.com/upload/demo/suv-red-1_w640.webp 640w, \
             https://img.example.com/upload/demo/suv-red-1_w960.webp 960w"
        );
        assert_eq!(sized("https://other.example.com/a.jpg", base, 320), "https://other.example.com/a.jpg");
        assert_eq!(srcset(DEFAULT_CAR_IMAGE, base), None);
        assert_eq!(sized(DEFAULT_CAR_IMAGE, base, 640), DEFAULT_CAR_IMAGE);
    }

    const BASE: &str = "https://img.ershouche.example/upload/";

    #[test]
    fn fields_resolve_to_urls() {
        let cases: &[(&str, &[&str])] = &[
            ("a.jpg,b.jpg", &["https://img.ershouche.example/upload/a.jpg", "https://img.ershouche.example/upload/b.jpg"]),
            (" a.jpg , ,b.jpg,", &["https://img.ershouche.example/upload/a.jpg", "https://img.ershouche.example/upload/b.jpg"]),
            ("/car/1.jpg", &["https://img.ershouche.example/upload/car/1.jpg"]),
            ("http://x.cn/1.jpg", &["http://x.cn/1.jpg"]),
            ("https://x.cn/1.jpg,2.jpg", &["https://x.cn/1.jpg", "https://img.ershouche.example/upload/2.jpg"]),
            (r#"["a.jpg","https://x.cn/b.jpg"]"#, &["https://img.ershouche.example/upload/a.jpg", "https://x.cn/b.jpg"]),
            (r#"[ "a\/b.jpg" , 3, null, "" ]"#, &["https://img.ershouche.example/upload/a/b.jpg"]),
            ("", &[DEFAULT_CAR_IMAGE]),
            ("null", &[DEFAULT_CAR_IMAGE]),
            ("[]", &[DEFAULT_CAR_IMAGE]),
            (r#"["broken"#, &[DEFAULT_CAR_IMAGE]),
            // JSON's escapes: \r and \b kept as the characters they are, a surrogate pair as one
            // character (an emoji in a file name), never a lone half.
            (r#"["a\u00e9\ud83d\ude97.jpg"]"#, &["https://img.ershouche.example/upload/aé🚗.jpg"]),
            (r#"["a\rb.jpg", "c\bd.jpg"]"#, &["https://img.ershouche.example/upload/a\rb.jpg", "https://img.ershouche.example/upload/c\u{8}d.jpg"]),
            (r#"["\ud83d.jpg"]"#, &[DEFAULT_CAR_IMAGE]),
        ];
        for (field, want) in cases {
            assert_eq!(resolve(field, BASE), *want, "field {field:?}");
            assert_eq!(cover(field, BASE), want[0], "cover of {field:?}");
        }
    }

    #[test]
    fn cover_is_the_first_image() {
        assert_eq!(cover("x.jpg,y.jpg", "/upload"), "/upload/x.jpg");
        assert_eq!(cover("", "/upload"), DEFAULT_CAR_IMAGE);
        assert_eq!(cover(" , null, http://x.cn/a.jpg ,b.jpg", "/upload"), "http://x.cn/a.jpg");
    }
}
