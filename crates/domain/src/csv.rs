//! CSV files people open in a spreadsheet: UTF-8 with a byte-order mark (so Excel reads the
//! Chinese), RFC 4180 quoting, and cells a spreadsheet would run as a formula made plain text.

/// The byte-order mark a file starts with.
pub const BOM: &str = "\u{feff}";

/// One cell: a text a spreadsheet would take for a formula (it begins with `=`, `+`, `-`, `@`,
/// a tab or a carriage return) gets a leading `'`; a cell with a comma, a quote or a line break
/// is quoted, its quotes doubled.
pub fn cell(text: &str) -> String {
    let guarded = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}") } else { text.to_owned() };
    if guarded.contains([',', '"', '\n', '\r']) { format!("\"{}\"", guarded.replace('"', "\"\"")) } else { guarded }
}

/// One row of cells, ended by CRLF.
pub fn row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut out = cells.iter().map(|c| cell(c.as_ref())).collect::<Vec<_>>().join(",");
    out.push_str("\r\n");
    out
}

/// A whole file: the byte-order mark, the header row, then each row.
pub fn document<H: AsRef<str>, C: AsRef<str>>(header: &[H], rows: &[Vec<C>]) -> String {
    let mut out = String::from(BOM);
    out.push_str(&row(header));
    for r in rows {
        out.push_str(&row(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_text_and_separators_are_quoted() {
        assert_eq!(cell("宝马X3"), "宝马X3");
        assert_eq!(cell("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(cell("+86 138"), "'+86 138");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("\tx"), "'\tx");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("第一行\n第二行"), "\"第一行\n第二行\"");
        assert_eq!(cell(""), "");
        assert_eq!(row(&["1", "a,b", "=1+1"]), "1,\"a,b\",'=1+1\r\n");
        assert_eq!(document(&["号", "名"], &[vec!["1", "a"], vec!["2", "=b"]]), "\u{feff}号,名\r\n1,a\r\n2,'=b\r\n");
    }
}
