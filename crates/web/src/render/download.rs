//! Files to save rather than pages to read: a table as an Excel workbook (`.xlsx`, every cell
//! text, so a phone number or a VIN is not turned into a number and nothing runs as a formula)
//! and the answer that hands a file to the browser under its Chinese name.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// The media type of an `.xlsx` workbook.
pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// A workbook of one sheet named `sheet`: the header in bold, frozen, then the rows; each column
/// `widths[i]` characters wide (14 past the list's end).
pub fn xlsx<S: AsRef<str>>(sheet: &str, header: &[&str], rows: &[Vec<S>], widths: &[u16]) -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
    use rust_xlsxwriter::{Format, Workbook};
    let mut book = Workbook::new();
    let text = Format::new().set_num_format("@");
    let head = Format::new().set_bold().set_background_color(0x00FF_F1E6).set_num_format("@");
    let ws = book.add_worksheet();
    ws.set_name(sheet)?;
    for (i, h) in header.iter().enumerate() {
        let col = u16::try_from(i).unwrap_or(u16::MAX);
        ws.set_column_format(col, &text)?;
        ws.set_column_width(col, widths.get(i).copied().unwrap_or(14))?;
        ws.write_string_with_format(0, col, *h, &head)?;
    }
    for (r, cells) in rows.iter().enumerate() {
        let row = u32::try_from(r + 1).unwrap_or(u32::MAX);
        for (c, cell) in cells.iter().enumerate() {
            let value = cell.as_ref();
            if !value.is_empty() {
                ws.write_string_with_format(row, u16::try_from(c).unwrap_or(u16::MAX), value, &text)?;
            }
        }
    }
    ws.set_freeze_panes(1, 0)?;
    book.save_to_buffer()
}

/// A file for the browser to save: `name` (its Chinese name, with `ascii` for browsers that read
/// only the plain `filename`), never cached.
pub fn attachment(bytes: Vec<u8>, kind: &'static str, ascii: &str, name: &str) -> Response {
    let encoded = form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>().replace('+', "%20");
    let mut res = bytes.into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    res
}
