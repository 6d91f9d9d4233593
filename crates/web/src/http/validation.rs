//! Form rules declared on the form types with `validator`'s derive, and how their failures reach
//! the page: [`field_errors`] turns them into one Chinese message per field, shown beside it.
//!
//! Lengths count characters, as a visitor does. A message may say `{min}`, `{max}` and `{count}`
//! (the typed text's length); they are filled in here. The custom rules below call the domain's
//! parsers, so a form and the domain never disagree on what a phone number or a 万 amount is.
//! Rules that need several fields, the page a form was sent from or the database stay in the
//! handlers.

use std::borrow::Cow;
use std::sync::LazyLock;

use domain::selling::FieldErrors;
use regex::Regex;
use validator::{Validate, ValidationError};

/// The first failure of each field of `form`, worded for the page; empty when the form is valid.
pub fn field_errors(form: &impl Validate) -> FieldErrors {
    let mut out = FieldErrors::new();
    let Err(errors) = form.validate() else { return out };
    for (field, list) in errors.field_errors() {
        let (Cow::Borrowed(field), Some(first)) = (field, list.first()) else { continue };
        out.insert(field, message(first));
    }
    out
}

fn message(e: &ValidationError) -> String {
    let Some(text) = &e.message else { return "输入的数据不合法!".to_owned() };
    let mut text = text.to_string();
    for name in ["min", "max"] {
        if let Some(v) = e.params.get(name) {
            text = text.replace(&format!("{{{name}}}"), &v.to_string());
        }
    }
    if let Some(typed) = e.params.get("value").and_then(|v| v.as_str()) {
        text = text.replace("{count}", &typed.chars().count().to_string());
    }
    text
}

fn failure(code: &'static str, message: &'static str) -> ValidationError {
    ValidationError::new(code).with_message(Cow::Borrowed(message))
}

/// A mainland mobile number, required ([`domain::validate::Mobile::parse`] and its messages).
pub fn mobile(value: &str) -> Result<(), ValidationError> {
    domain::validate::Mobile::parse(value).map(drop).map_err(|e| failure("mobile", e.message()))
}

/// A mainland mobile number when one is given (an optional contact or notice number).
pub fn optional_mobile(value: &str) -> Result<(), ValidationError> {
    if value.trim().is_empty() { Ok(()) } else { mobile(value.trim()) }
}

/// A shop member's name ([`domain::desk::parse_name`]).
pub fn member_name(value: &str) -> Result<(), ValidationError> {
    domain::desk::parse_name(value).map(drop).map_err(|e| failure("name", e))
}

/// A login code: the six digits the SMS carried ([`domain::auth::is_code`]).
pub fn login_code(value: &str) -> Result<(), ValidationError> {
    match value.trim() {
        "" => Err(failure("code", "请输入验证码")),
        code if domain::auth::is_code(code) => Ok(()),
        _ => Err(failure("code", "验证码是6位数字")),
    }
}

/// A shop's telephone: a mobile number, or a landline written with digits and dashes.
pub fn shop_phone(value: &str) -> Result<(), ValidationError> {
    let value = value.trim();
    if domain::validate::Mobile::parse(value).is_ok() || LANDLINE.is_match(value) {
        Ok(())
    } else {
        Err(failure("phone", "请填写手机号或座机号，如 0731-88886666"))
    }
}

/// A landline as people write it: 7 to 20 digits and dashes.
static LANDLINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[0-9-]{7,20}$").unwrap_or_else(|_| unreachable!("a fixed pattern")));

/// A unified social credit code (统一社会信用代码): 18 digits or capital letters; empty is allowed
/// (the field is optional).
pub static LICENCE_NO: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?:[0-9A-Z]{18})?$").unwrap_or_else(|_| unreachable!("a fixed pattern")));

/// An amount in 万 when one is given (`8.5`, at most two decimals, above zero:
/// [`domain::selling::parse_wan`]).
pub fn optional_wan(value: &str) -> Result<(), ValidationError> {
    if value.trim().is_empty() {
        return Ok(());
    }
    match domain::selling::parse_price_wan(value) {
        Some(_) => Ok(()),
        None => Err(failure("wan", domain::selling::PRICE_WAN_MESSAGE)),
    }
}

/// A city chosen from the list ([`domain::region::city_by_slug`]).
pub fn city(value: &str) -> Result<(), ValidationError> {
    domain::region::city_by_slug(value.trim()).map(drop).ok_or_else(|| failure("city", "请选择城市"))
}

/// How long an applicant has traded ([`domain::programme::Experience::parse`]).
pub fn experience(value: &str) -> Result<(), ValidationError> {
    domain::programme::Experience::parse(value.trim()).map(drop).ok_or_else(|| failure("experience", "请选择经营年限"))
}

/// Where an applicant's cars stand ([`domain::programme::Lot::parse`]).
pub fn lot(value: &str) -> Result<(), ValidationError> {
    domain::programme::Lot::parse(value.trim()).map(drop).ok_or_else(|| failure("lot", "请选择车辆停放场地"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Validate)]
    struct Sample {
        #[validate(custom(function = "mobile"))]
        mobile: String,
        #[validate(length(min = 2, max = 5, message = "名称应为{min}到{max}个字，当前{count}字"))]
        name: String,
        #[validate(regex(path = *LICENCE_NO, message = "统一社会信用代码应为18位数字或大写字母"))]
        licence_no: String,
        #[validate(custom(function = "optional_wan"))]
        expect: String,
        #[validate(custom(function = "shop_phone"))]
        phone: String,
        #[validate(custom(function = "optional_mobile"))]
        notice_mobile: String,
        #[validate(custom(function = "login_code"))]
        code: String,
    }

    fn sample() -> Sample {
        Sample {
            mobile: "13812345678".into(),
            name: "长沙车行".into(),
            licence_no: String::new(),
            expect: String::new(),
            phone: "0731-88886666".into(),
            notice_mobile: String::new(),
            code: "012345".into(),
        }
    }

    #[test]
    fn a_valid_form_has_no_messages() {
        assert!(field_errors(&sample()).is_empty());
        assert!(field_errors(&Sample { licence_no: "91430100MA4L0XXX1A".into(), expect: "8.5".into(), ..sample() }).is_empty());
    }

    #[test]
    fn each_field_gets_its_first_message_in_chinese_with_numbers_filled_in() {
        let bad = Sample {
            mobile: "1234".into(),
            name: "二手车之家长沙店".into(),
            licence_no: "91430100ma4l0xxx1a".into(),
            expect: "八万".into(),
            phone: "call me".into(),
            notice_mobile: "1380000".into(),
            code: "12345".into(),
        };
        let e = field_errors(&bad);
        assert_eq!(e.get("mobile").map(String::as_str), Some("请输入正确的手机号"));
        assert_eq!(e.get("name").map(String::as_str), Some("名称应为2到5个字，当前8字"));
        assert_eq!(e.get("licence_no").map(String::as_str), Some("统一社会信用代码应为18位数字或大写字母"));
        assert_eq!(e.get("expect").map(String::as_str), Some("请填写5000万以内的数字，单位万元，例如 8.5"));
        assert_eq!(e.get("phone").map(String::as_str), Some("请填写手机号或座机号，如 0731-88886666"));
        assert_eq!(field_errors(&Sample { mobile: String::new(), ..sample() }).get("mobile").map(String::as_str), Some("请填写手机号"));
        assert_eq!(field_errors(&Sample { expect: "0".into(), ..sample() }).len(), 1);
        assert_eq!(e.get("notice_mobile").map(String::as_str), Some("请输入正确的手机号"));
        assert_eq!(e.get("code").map(String::as_str), Some("验证码是6位数字"));
        assert_eq!(field_errors(&Sample { code: " ".into(), ..sample() }).get("code").map(String::as_str), Some("请输入验证码"));
        assert!(field_errors(&Sample { notice_mobile: " 13900001111 ".into(), ..sample() }).is_empty());
    }
}
