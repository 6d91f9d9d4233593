//! Small things pages draw with: a QR code as inline SVG, a chart axis's round step.

/// `text` as a QR code: an inline SVG of at least 200×200 (the XML declaration, not allowed
/// inside HTML, left off); empty when the text is too long for a QR code.
pub fn qr_svg(text: &str) -> String {
    qrcode::QrCode::new(text.as_bytes())
        .map(|c| c.render::<qrcode::render::svg::Color<'_>>().min_dimensions(200, 200).quiet_zone(true).build())
        .map(|svg| svg.find("<svg").map_or(svg.clone(), |i| svg[i..].to_owned()))
        .unwrap_or_default()
}

/// A chart axis's round step near `raw`: 1, 2 or 5 times a power of ten.
pub fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.max(1.0).log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_steps_are_round() {
        assert_eq!(nice_step(41_250.0), 50_000.0);
        assert_eq!(nice_step(9_000.0), 10_000.0);
    }
}
