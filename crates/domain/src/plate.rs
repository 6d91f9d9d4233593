//! Chinese number plates of small passenger cars, as an ETC application takes them: the
//! province's one-character abbreviation, the issuing city's letter, then five characters
//! (a regular blue or yellow plate, 7 in all) or six (a new-energy plate, 8 in all: `D`/`F` and
//! the other energy letters first, four digits last). The letters `I` and `O` are never issued
//! after the city letter (they read as 1 and 0). A large new-energy plate (five digits, the
//! energy letter last, `粤B12345D`) belongs to a bus or truck, which applies at a service point.
//! The plate's colour follows from its kind; the owner's name is checked here too.
//!
//! ```
//! use domain::plate::{Plate, PlateKind};
//! let p = Plate::parse(" 粤bd 12345 ").unwrap();
//! assert_eq!((p.as_str(), p.kind), ("粤BD12345", PlateKind::NewEnergy));
//! assert!(Plate::parse("京A1234").is_err());
//! ```

/// The provinces' abbreviations, as plates begin.
pub const PROVINCES: &str = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼";

/// The letters that mark a new-energy plate (pure electric `D A B C E`, the others `F G H J K`).
const ENERGY_LETTERS: &str = "DABCEFGHJK";

/// What kind of plate it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlateKind {
    /// 7 characters: blue (or yellow for a heavier vehicle).
    Regular,
    /// 8 characters, gradient green.
    NewEnergy,
}

/// A plate as issued, upper case, without spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plate {
    text: String,
    /// Regular or new-energy.
    pub kind: PlateKind,
}

crate::stored_enum! {
    /// The plate's colour, as the form offers it.
    pub enum PlateColour {
        /// Small cars with a regular plate.
        Blue = "blue" => "蓝色",
        /// Heavier vehicles with a regular plate.
        Yellow = "yellow" => "黄色",
        /// New-energy small cars.
        Green = "green" => "渐变绿色",
    }
}

/// A character that may follow the city letter: a digit or a letter other than `I` and `O`.
fn plate_char(c: char) -> bool {
    c.is_ascii_digit() || (c.is_ascii_uppercase() && c != 'I' && c != 'O')
}

impl Plate {
    /// Reads a plate as typed (spaces, `·` and `-` ignored, letters in either case); the message
    /// for the field when it is not a small car's plate.
    pub fn parse(text: &str) -> Result<Plate, &'static str> {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace() && !matches!(c, '·' | '-' | '•')).map(|c| c.to_ascii_uppercase()).collect();
        let Some(&first) = chars.first() else { return Err("请填写车牌号") };
        if !PROVINCES.contains(first) {
            return Err("车牌需以省份简称开头，如 粤B12345");
        }
        if !chars.get(1).is_some_and(|c| c.is_ascii_uppercase() && *c != 'I') {
            return Err("省份简称后应为发牌城市的字母，如 粤B");
        }
        let rest = &chars[2..];
        let kind = match rest.len() {
            5 => PlateKind::Regular,
            6 if rest[..5].iter().all(char::is_ascii_digit) && ENERGY_LETTERS.contains(rest[5]) => {
                return Err("大型新能源车牌（如 粤B12345D）属于客车或货车，请到ETC线下网点办理，线上只受理小型车");
            }
            6 => PlateKind::NewEnergy,
            _ => return Err("车牌位数不对：普通车牌7位（如 粤B12345），新能源车牌8位（如 粤BD12345）"),
        };
        if !rest.iter().copied().all(plate_char) {
            return Err("车牌号码只有数字和字母，且不含字母I和O");
        }
        if kind == PlateKind::NewEnergy && !(ENERGY_LETTERS.contains(rest[0]) && rest[2..].iter().all(char::is_ascii_digit)) {
            return Err("新能源车牌第3位是D、F等能源字母，最后4位是数字，如 粤BD12345");
        }
        Ok(Plate { text: chars.into_iter().collect(), kind })
    }

    /// The plate as issued.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `colour` is one this kind of plate has; the message for the colour field if not.
    pub fn check_colour(&self, colour: PlateColour) -> Result<(), &'static str> {
        match (self.kind, colour) {
            (PlateKind::NewEnergy, PlateColour::Green) | (PlateKind::Regular, PlateColour::Blue | PlateColour::Yellow) => Ok(()),
            (PlateKind::NewEnergy, _) => Err("8位新能源车牌是渐变绿色"),
            (PlateKind::Regular, _) => Err("7位车牌不是新能源车牌，请选择蓝色或黄色"),
        }
    }
}

/// The longest owner's name, in characters.
pub const NAME_MAX: usize = 20;

/// An owner's name as the licence shows it: 2 to [`NAME_MAX`] characters of Chinese, Latin
/// letters, `·` (between the parts of a minority or foreign name) and spaces; the message for the
/// field when not.
pub fn owner_name(text: &str) -> Result<String, &'static str> {
    let name = text.trim();
    let n = name.chars().count();
    if n == 0 {
        return Err("请填写车主姓名");
    }
    if n > NAME_MAX {
        return Err("车主姓名最多20个字");
    }
    if !name.chars().all(|c| ('\u{4e00}'..='\u{9fff}').contains(&c) || c.is_ascii_alphabetic() || c == '·' || c == ' ') {
        return Err("车主姓名只能包含汉字、字母和·");
    }
    if n < 2 {
        return Err("请填写完整的车主姓名");
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plates_of_small_cars_read_and_others_are_told_why_not() {
        for (typed, plate, kind) in [
            ("粤B12345", "粤B12345", PlateKind::Regular),
            ("京a·8h3k9", "京A8H3K9", PlateKind::Regular),
            ("沪AD12345", "沪AD12345", PlateKind::NewEnergy),
            ("浙A F 1234 5", "浙AF12345", PlateKind::NewEnergy),
            ("川aka1234", "川AKA1234", PlateKind::NewEnergy),
        ] {
            let p = Plate::parse(typed).unwrap_or_else(|e| panic!("{typed}: {e}"));
            assert_eq!((p.as_str(), p.kind), (plate, kind), "{typed}");
        }
        for (typed, message) in [
            ("", "请填写车牌号"),
            ("ABC1234", "车牌需以省份简称开头，如 粤B12345"),
            ("港A12345", "车牌需以省份简称开头，如 粤B12345"),
            ("京11234A", "省份简称后应为发牌城市的字母，如 粤B"),
            ("京A1234", "车牌位数不对：普通车牌7位（如 粤B12345），新能源车牌8位（如 粤BD12345）"),
            ("京A1234567", "车牌位数不对：普通车牌7位（如 粤B12345），新能源车牌8位（如 粤BD12345）"),
            ("粤B12345D", "大型新能源车牌（如 粤B12345D）属于客车或货车，请到ETC线下网点办理，线上只受理小型车"),
            ("粤B1234O", "车牌号码只有数字和字母，且不含字母I和O"),
            ("粤B12中45", "车牌号码只有数字和字母，且不含字母I和O"),
            ("粤BX12345", "新能源车牌第3位是D、F等能源字母，最后4位是数字，如 粤BD12345"),
            ("粤BDA1B34", "新能源车牌第3位是D、F等能源字母，最后4位是数字，如 粤BD12345"),
        ] {
            assert_eq!(Plate::parse(typed), Err(message), "{typed}");
        }
    }

    #[test]
    fn a_plate_has_the_colours_of_its_kind() {
        let regular = Plate::parse("粤B12345").unwrap();
        let green = Plate::parse("粤BD12345").unwrap();
        assert!(regular.check_colour(PlateColour::Blue).is_ok() && regular.check_colour(PlateColour::Yellow).is_ok());
        assert_eq!(regular.check_colour(PlateColour::Green), Err("7位车牌不是新能源车牌，请选择蓝色或黄色"));
        assert!(green.check_colour(PlateColour::Green).is_ok());
        assert_eq!(green.check_colour(PlateColour::Blue), Err("8位新能源车牌是渐变绿色"));
        for c in PlateColour::ALL {
            assert_eq!(PlateColour::parse(c.as_str()), Some(c));
        }
    }

    #[test]
    fn owner_names_are_real_names_of_sane_length() {
        assert_eq!(owner_name(" 张伟 "), Ok("张伟".to_owned()));
        assert_eq!(owner_name("阿卜杜·热合曼"), Ok("阿卜杜·热合曼".to_owned()));
        assert_eq!(owner_name("Li Na"), Ok("Li Na".to_owned()));
        assert_eq!(owner_name(""), Err("请填写车主姓名"));
        assert_eq!(owner_name("张"), Err("请填写完整的车主姓名"));
        assert_eq!(owner_name(&"张".repeat(100)), Err("车主姓名最多20个字"));
        assert_eq!(owner_name("<b>张伟</b>"), Err("车主姓名只能包含汉字、字母和·"));
        assert_eq!(owner_name("张伟1"), Err("车主姓名只能包含汉字、字母和·"));
    }
}
