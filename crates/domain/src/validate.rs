//! Validation: mainland mobile numbers and vehicle identification numbers.
//!
//! Both are parse-don't-validate newtypes: holding a `Mobile` proves the text passed the rule.

use std::fmt;

/// Why a phone number was refused; `message` is the Chinese text shown beside the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MobileError {
    /// Nothing was typed.
    Empty,
    /// Not 11 digits starting 1[3-9].
    Invalid,
}

impl MobileError {
    /// The text shown next to the field (mobile-kit messages, in Chinese).
    pub fn message(self) -> &'static str {
        match self {
            MobileError::Empty => "请填写手机号",
            MobileError::Invalid => "请输入正确的手机号",
        }
    }
}

/// A mainland mobile number matching `^1[3-9]\d{9}$`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Mobile(String);

impl Mobile {
    /// Parses a number; surrounding spaces are forgiven, nothing else is.
    pub fn parse(text: &str) -> Result<Self, MobileError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(MobileError::Empty);
        }
        let b = text.as_bytes();
        let ok = b.len() == 11 && b[0] == b'1' && (b'3'..=b'9').contains(&b[1]) && b.iter().all(u8::is_ascii_digit);
        if ok { Ok(Mobile(text.to_owned())) } else { Err(MobileError::Invalid) }
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The number masked for everyone but its owner: `138****5678`.
    pub fn masked(&self) -> String {
        mask_mobile(&self.0)
    }
}

impl AsRef<str> for Mobile {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Mobile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A lead's number as a dealer sees it: in full once the lead was opened (the opening is
/// logged), masked before.
///
/// ```
/// assert_eq!(domain::validate::lead_mobile("13955551234", false), "139****1234");
/// assert_eq!(domain::validate::lead_mobile("13955551234", true), "13955551234");
/// ```
pub fn lead_mobile(mobile: &str, opened: bool) -> String {
    if opened { mobile.to_owned() } else { mask_mobile(mobile) }
}

/// Masks the middle four digits of an 11-digit number; other text is masked whole but its ends.
pub fn mask_mobile(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 7 {
        return "*".repeat(chars.len());
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}****{tail}")
}

/// A vehicle identification number: 17 characters of `0-9A-HJ-NPR-Z`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Vin(String);

/// Why a VIN was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VinError {
    /// Nothing was typed.
    Empty,
    /// No run of 17 valid characters.
    Invalid,
    /// The letters I, O or Q, which no VIN has.
    Ioq,
    /// Fewer than 17 characters.
    Short,
    /// More than 17 characters.
    Long,
    /// The ninth character is not the check digit the other sixteen give: a character was
    /// mistyped (or two swapped).
    CheckDigit,
}

impl VinError {
    /// The text shown next to the field.
    pub fn message(self) -> &'static str {
        match self {
            VinError::Empty => "请填写车架号(VIN)",
            VinError::Invalid => "车架号应为17位数字和字母(不含I、O、Q)",
            VinError::Ioq => "车架号不含字母I、O、Q，请核对(可能是数字1、0)",
            VinError::Short => "车架号应为17位，您填写的不足17位",
            VinError::Long => "车架号应为17位，您填写的超过了17位",
            VinError::CheckDigit => "车架号校验不通过(第9位校验码与其他字符不符)，请逐位核对是否输错",
        }
    }
}

/// What people paste, made a VIN's canonical form before the specification's rule reads it: full-width
/// characters (typed with a Chinese input method) made half-width, spaces and hyphens dropped,
/// letters upper-cased.
///
/// ```
/// assert_eq!(domain::validate::tidy_vin(" ｌｓｖａｍ 4180-c2184821　"), "LSVAM4180C2184821");
/// ```
pub fn tidy_vin(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            _ => c,
        })
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The check digit ISO 3779 (and China's GB 16735) puts ninth: each character's value (digits as
/// themselves, letters as the standard assigns) times its position's weight, summed, modulo 11;
/// 10 is written `X`. `None` when the text is not 17 VIN characters.
///
/// ```
/// assert_eq!(domain::validate::vin_check_digit("1M8GDM9AXKP042788"), Some('X'));
/// ```
pub fn vin_check_digit(vin: &str) -> Option<char> {
    const WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'A' | b'J' => 1,
            b'B' | b'K' | b'S' => 2,
            b'C' | b'L' | b'T' => 3,
            b'D' | b'M' | b'U' => 4,
            b'E' | b'N' | b'V' => 5,
            b'F' | b'W' => 6,
            b'G' | b'P' | b'X' => 7,
            b'H' | b'Y' => 8,
            b'R' | b'Z' => 9,
            _ => return None,
        })
    };
    let b = vin.as_bytes();
    if b.len() != 17 {
        return None;
    }
    let mut sum = 0;
    for (c, w) in b.iter().zip(WEIGHTS) {
        sum += value(*c)? * w;
    }
    Some(match sum % 11 {
        10 => 'X',
        n => char::from_digit(n, 10)?,
    })
}

fn is_vin_char(c: u8) -> bool {
    c.is_ascii_digit() || (c.is_ascii_uppercase() && !matches!(c, b'I' | b'O' | b'Q'))
}

impl Vin {
    /// Seed rule: the text passes if it *contains* 17 consecutive valid characters; the VIN is the
    /// first such run. Lowercase is not upper-cased: the specification's rule is case-sensitive.
    pub fn parse(text: &str) -> Result<Self, VinError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(VinError::Empty);
        }
        let b = text.as_bytes();
        let mut run = 0usize;
        for (i, &c) in b.iter().enumerate() {
            if is_vin_char(c) {
                run += 1;
                if run == 17 {
                    let start = i + 1 - 17;
                    return Ok(Vin(text[start..=i].to_owned()));
                }
            } else {
                run = 0;
            }
        }
        Err(VinError::Invalid)
    }

    /// A VIN as a form takes it: what was pasted tidied ([`tidy_vin`]), then the specification's rule, then
    /// the check digit ([`vin_check_digit`]).
    pub fn parse_checked(text: &str) -> Result<Self, VinError> {
        let vin = Vin::parse(&tidy_vin(text))?;
        if vin_check_digit(&vin.0) != Some(vin.0.as_bytes()[8] as char) {
            return Err(VinError::CheckDigit);
        }
        Ok(vin)
    }

    /// A VIN typed alone (a history query): tidied, and nothing but the 17 characters, with the
    /// mistake named (I/O/Q, a character too few or too many, a wrong check digit).
    pub fn parse_exact(text: &str) -> Result<Self, VinError> {
        let text = tidy_vin(text);
        if text.is_empty() {
            return Err(VinError::Empty);
        }
        if text.chars().any(|c| matches!(c, 'I' | 'O' | 'Q')) {
            return Err(VinError::Ioq);
        }
        match text.chars().count() {
            n if n < 17 => Err(VinError::Short),
            n if n > 17 => Err(VinError::Long),
            _ => Vin::parse_checked(&text),
        }
    }

    /// The model year the tenth character encodes (A = 2010 … T = 2026, 1–9 = 2001–2009).
    pub fn model_year(&self) -> Option<i32> {
        const LETTERS: &str = "ABCDEFGHJKLMNPRST";
        let c = self.0.as_bytes()[9] as char;
        match c {
            '1'..='9' => Some(2000 + (c as i32 - '0' as i32)),
            _ => LETTERS.find(c).map(|i| 2010 + i as i32),
        }
    }

    /// Only the last six characters, for showing a car's VIN without exposing it.
    pub fn masked(&self) -> String {
        format!("***********{}", &self.0[11..])
    }
}

impl AsRef<str> for Vin {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mobile_follows_the_seed_rule() {
        let cases: &[(&str, Result<&str, MobileError>)] = &[
            ("13812345678", Ok("13812345678")),
            ("19912345678", Ok("19912345678")),
            (" 15012345678 ", Ok("15012345678")),
            ("12812345678", Err(MobileError::Invalid)),
            ("10812345678", Err(MobileError::Invalid)),
            ("1381234567", Err(MobileError::Invalid)),
            ("138123456789", Err(MobileError::Invalid)),
            ("23812345678", Err(MobileError::Invalid)),
            ("1381234567a", Err(MobileError::Invalid)),
            ("+8613812345678", Err(MobileError::Invalid)),
            ("１３８１２３４５６７８", Err(MobileError::Invalid)),
            ("", Err(MobileError::Empty)),
            ("   ", Err(MobileError::Empty)),
        ];
        for (input, want) in cases {
            let got = Mobile::parse(input);
            assert_eq!(got.as_ref().map(AsRef::as_ref).map_err(|e| *e), *want, "input {input:?}");
        }
    }

    #[test]
    fn mobile_errors_read_in_chinese() {
        assert_eq!(MobileError::Empty.message(), "请填写手机号");
        assert_eq!(MobileError::Invalid.message(), "请输入正确的手机号");
    }

    #[test]
    fn masking_hides_the_middle_four_digits() {
        let m = Mobile::parse("13812345678").unwrap();
        assert_eq!(m.masked(), "138****5678");
        assert_eq!(mask_mobile("12"), "**");
    }

    #[test]
    fn vin_is_found_as_a_17_character_run() {
        let cases: &[(&str, Option<&str>)] = &[
            ("LSVAU2180N2183294", Some("LSVAU2180N2183294")),
            ("车架号:LSVAU2180N2183294,请核对", Some("LSVAU2180N2183294")),
            ("xxLSVAU2180N2183294XYZ", Some("LSVAU2180N2183294")),
            ("lsvau2180n2183294", None),
            ("LSVAU2180N218329", None),
            ("LSVAU2180N218329I", None),
            ("LSVAO2180N2183294", None),
            ("LSVAQ2180N2183294", None),
            ("LSVAU2180 N2183294", None),
            ("12345678901234567", Some("12345678901234567")),
            ("", None),
        ];
        for (input, want) in cases {
            let got = Vin::parse(input).ok();
            assert_eq!(got.as_ref().map(AsRef::as_ref), *want, "input {input:?}");
        }
    }

    #[test]
    fn vin_mask_keeps_the_last_six() {
        assert_eq!(Vin::parse("LSVAU2180N2183294").unwrap().masked(), "***********183294");
    }

    #[test]
    fn a_vin_typed_alone_is_tidied_then_checked() {
        // What people paste is accepted: lower case, spaces, hyphens, full-width characters.
        for text in [" LSVAM4180C2184821 ", "lsvam4180c2184821", "LSVAM 4180 C218 4821", "ＬＳＶＡＭ4180C2184821", "LSVAM4180C218482１", "LSV-AM4180-C2184821"]
        {
            assert_eq!(Vin::parse_exact(text).map(|v| v.0), Ok("LSVAM4180C2184821".to_owned()), "{text:?}");
        }
        let cases = [
            ("", VinError::Empty),
            ("  ", VinError::Empty),
            ("LSVAM4180C218482I", VinError::Ioq),
            ("LSVAM4180C218482O", VinError::Ioq),
            ("lsvaq4180c2184821", VinError::Ioq),
            ("LSVAM4180C218482", VinError::Short),
            ("LSVAM4180C21848211", VinError::Long),
            ("LSVAM4180C2184_21", VinError::Invalid),
            // One character mistyped, or two swapped: the check digit tells.
            ("LSVAM4187C2184821", VinError::CheckDigit),
            ("LSVAM4180C2184812", VinError::CheckDigit),
            ("LSVAM4180C2184831", VinError::CheckDigit),
        ];
        for (text, want) in cases {
            assert_eq!(Vin::parse_exact(text), Err(want), "{text:?}");
            assert!(!want.message().is_empty());
        }
    }

    #[test]
    fn the_check_digit_follows_iso_3779() {
        // The standard's own example, and VINs whose check digit is 0 and X.
        assert_eq!(vin_check_digit("1M8GDM9AXKP042788"), Some('X'));
        assert_eq!(vin_check_digit("11111111111111111"), Some('1'));
        assert_eq!(vin_check_digit("LSVAM4180C2184821"), Some('0'));
        assert_eq!(vin_check_digit("LGBH52E0XLY123456"), Some('X'));
        assert_eq!(vin_check_digit("LSVAM4180C218482"), None, "16 characters");
        assert_eq!(vin_check_digit("LSVAM4180C218482I"), None, "no I in a VIN");
        // A form's VIN inside other text still follows the specification's rule, then the check.
        assert_eq!(Vin::parse_checked("车架号:lsvam4180c2184821,请核对").map(|v| v.0), Ok("LSVAM4180C2184821".to_owned()));
        assert_eq!(Vin::parse_checked("车架号:LSVAM4187C2184821"), Err(VinError::CheckDigit));
    }
}
