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
    /// Spaces inside (a query takes the VIN alone).
    Spaces,
    /// Full-width characters (typed with a Chinese input method).
    FullWidth,
    /// Lower-case letters.
    Lowercase,
    /// The letters I, O or Q, which no VIN has.
    Ioq,
    /// Fewer than 17 characters.
    Short,
    /// More than 17 characters.
    Long,
}

impl VinError {
    /// The text shown next to the field.
    pub fn message(self) -> &'static str {
        match self {
            VinError::Empty => "请填写车架号(VIN)",
            VinError::Invalid => "车架号应为17位数字和大写字母(不含I、O、Q)",
            VinError::Spaces => "车架号中间不能有空格",
            VinError::FullWidth => "请用半角字符(英文输入法)填写车架号",
            VinError::Lowercase => "车架号的字母须大写",
            VinError::Ioq => "车架号不含字母I、O、Q，请核对(可能是数字1、0)",
            VinError::Short => "车架号应为17位，您填写的不足17位",
            VinError::Long => "车架号应为17位，您填写的超过了17位",
        }
    }
}

fn is_vin_char(c: u8) -> bool {
    c.is_ascii_digit() || (c.is_ascii_uppercase() && !matches!(c, b'I' | b'O' | b'Q'))
}

impl Vin {
    /// Seed rule: the text passes if it *contains* 17 consecutive valid characters; the VIN is the
    /// first such run. Lowercase is not upper-cased: the seed's rule is case-sensitive.
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

    /// A VIN typed alone (a history query): the seed rule, and nothing but the 17 characters,
    /// with the mistake people make named (spaces, full-width or lower-case letters, I/O/Q, a
    /// character too few or too many).
    pub fn parse_exact(text: &str) -> Result<Self, VinError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(VinError::Empty);
        }
        if text.chars().any(|c| !c.is_ascii() && ('\u{FF01}'..='\u{FF5E}').contains(&c) || c == '\u{3000}') {
            return Err(VinError::FullWidth);
        }
        if text.chars().any(char::is_whitespace) {
            return Err(VinError::Spaces);
        }
        if text.chars().any(|c| c.is_ascii_lowercase()) {
            return Err(VinError::Lowercase);
        }
        if text.chars().any(|c| matches!(c, 'I' | 'O' | 'Q')) {
            return Err(VinError::Ioq);
        }
        match text.chars().count() {
            n if n < 17 => Err(VinError::Short),
            n if n > 17 => Err(VinError::Long),
            _ => Vin::parse(text),
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
    fn a_vin_typed_alone_names_the_mistake() {
        assert_eq!(Vin::parse_exact(" LSVAM4187C2184821 ").unwrap().as_ref(), "LSVAM4187C2184821");
        let cases = [
            ("", VinError::Empty),
            ("lsvam4187c2184821", VinError::Lowercase),
            ("LSVAM4187C218482I", VinError::Ioq),
            ("LSVAM4187C218482O", VinError::Ioq),
            ("LSVAQ4187C2184821", VinError::Ioq),
            ("LSVAM4187C218482", VinError::Short),
            ("LSVAM4187C21848211", VinError::Long),
            ("LSVAM 4187C2184821", VinError::Spaces),
            ("ＬＳＶＡＭ4187C2184821", VinError::FullWidth),
            ("LSVAM4187C218482１", VinError::FullWidth),
            ("LSVAM4187C2184-21", VinError::Invalid),
        ];
        for (text, want) in cases {
            assert_eq!(Vin::parse_exact(text), Err(want), "{text:?}");
            assert!(!want.message().is_empty());
        }
    }
}
