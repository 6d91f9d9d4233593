//! Paying a sold car's deposit on to its seller (定金转付): the seller's Alipay account it goes
//! to (收款账户: the login id, a mobile number or an e-mail address, and the account's real name,
//! which Alipay checks against the account), and where a payout is.
//!
//! A payout is made once per sold reservation, of the whole deposit (the platform keeps no fee).
//! It is asked of the provider under one business number per try, so a request retried after a
//! lost answer is the same transfer; only an answer that the account itself is wrong ends a try,
//! and the seller's corrected account is then a new try under a new number.

use crate::validate::mask_mobile;

/// The longest real name Alipay takes (50 Chinese characters); names here are people's or
/// companies' names.
pub const MAX_NAME_CHARS: usize = 50;

/// How the names of companies (a dealer's account) end.
const COMPANY_ENDINGS: [&str; 6] = ["公司", "企业", "商行", "车行", "经营部", "合作社"];

/// The account a seller is paid into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payee {
    /// The Alipay login id: a mobile number or an e-mail address.
    pub account: String,
    /// The account's real name (实名), checked by Alipay.
    pub name: String,
}

/// What is wrong with a payee as typed, per field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PayeeErrors {
    /// Beside the account.
    pub account: Option<&'static str>,
    /// Beside the name.
    pub name: Option<&'static str>,
}

impl Payee {
    /// Reads an account and a name as typed (spaces around either forgiven).
    pub fn parse(account: &str, name: &str) -> Result<Payee, PayeeErrors> {
        let (account, name) = (account.trim(), name.trim());
        let errors = PayeeErrors { account: account_error(account), name: name_error(name) };
        if errors.account.is_some() || errors.name.is_some() {
            return Err(errors);
        }
        let account = if account.contains('@') { account.to_ascii_lowercase() } else { account.to_owned() };
        Ok(Payee { account, name: name.to_owned() })
    }

    /// The account as shown to anyone but its owner's own form: `138****5678`, `z***@qq.com`.
    pub fn masked_account(&self) -> String {
        mask_account(&self.account)
    }

    /// The name as shown on a receipt: a person's with its last character kept (`王建国` →
    /// `**国`); a company's, which is public, whole.
    pub fn masked_name(&self) -> String {
        if COMPANY_ENDINGS.iter().any(|e| self.name.ends_with(e)) {
            return self.name.clone();
        }
        let chars: Vec<char> = self.name.chars().collect();
        match chars.split_last() {
            Some((last, rest)) => format!("{}{last}", "*".repeat(rest.len())),
            None => String::new(),
        }
    }
}

fn account_error(account: &str) -> Option<&'static str> {
    if account.is_empty() {
        return Some("请填写收款的支付宝账号（手机号或邮箱）");
    }
    if crate::validate::Mobile::parse(account).is_ok() || is_email(account) { None } else { Some("支付宝账号应为11位手机号或邮箱地址") }
}

fn is_email(text: &str) -> bool {
    let Some((local, host)) = text.split_once('@') else { return false };
    let fine = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b".-_+".contains(&b));
    text.len() <= 100 && fine(local) && fine(host) && host.contains('.') && !host.starts_with('.') && !host.ends_with('.') && !host.contains("..")
}

fn name_error(name: &str) -> Option<&'static str> {
    let n = name.chars().count();
    if n == 0 {
        return Some("请填写支付宝账户的实名姓名");
    }
    if !(2..=MAX_NAME_CHARS).contains(&n) {
        return Some("实名姓名应为2到50个字");
    }
    let fits = name.chars().all(|c| matches!(c, '\u{4e00}'..='\u{9fff}' | '·' | '•' | '（' | '）' | '(' | ')') || c.is_ascii_alphabetic() || c == ' ');
    if fits { None } else { Some("实名姓名只能包含汉字、字母和·") }
}

/// `138****5678` for a mobile number, `z***@qq.com` for an e-mail address.
pub fn mask_account(account: &str) -> String {
    match account.split_once('@') {
        Some((local, host)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{host}")
        }
        None => mask_mobile(account),
    }
}

/// Where a payout is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// To be made (again, after an answer that did not settle it).
    Due,
    /// The provider transferred it.
    Paid,
    /// The provider refused the account: waiting for the seller to correct it.
    Refused,
}

impl State {
    /// Every state.
    pub const ALL: [State; 3] = [State::Due, State::Paid, State::Refused];

    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Due => "due",
            State::Paid => "paid",
            State::Refused => "refused",
        }
    }

    /// The state `text` spells.
    pub fn parse(text: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// The business number of try `try_no` of payout `payout_id` (Alipay's `out_biz_no`: letters
/// and digits, at most 64).
pub fn biz_no(payout_id: i64, try_no: i64) -> String {
    format!("DP{payout_id:010}T{try_no}")
}

/// Seconds before attempt `attempts + 1` after `attempts` that did not settle: a minute, doubling,
/// at most six hours.
pub fn retry_after(attempts: i64) -> i64 {
    60 * (1_i64 << attempts.clamp(0, 9)).min(360)
}

/// Whether a refusal's code (Alipay's `sub_code`) says the account is wrong — the seller must
/// correct it — rather than that the provider could not do it now.
pub fn account_refused(sub_code: &str) -> bool {
    matches!(
        sub_code,
        "PAYEE_NOT_EXIST"
            | "PAYEE_USER_INFO_ERROR"
            | "PAYEE_ACCOUNT_STATUS_ERROR"
            | "PAYEE_ACC_OCUPIED"
            | "PAYEE_CERT_INFO_ERROR"
            | "PAYEE_USERINFO_STATUS_ERROR"
            | "PERMIT_NON_BANK_LIMIT_PAYEE"
            | "PAYEE_ACCOUNT_NOT_EXSIT"
            | "CARD_INFO_ERROR"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_is_a_mobile_number_or_an_email_address_with_its_real_name() {
        assert_eq!(Payee::parse(" 13812345678 ", " 王建国 "), Ok(Payee { account: "13812345678".into(), name: "王建国".into() }));
        assert_eq!(Payee::parse("Wang.JG@QQ.com", "王建国").unwrap().account, "wang.jg@qq.com");
        assert_eq!(Payee::parse("13812345678", "阿卜杜拉·买买提").unwrap().name, "阿卜杜拉·买买提");
        for bad in ["", "1381234567", "12812345678", "138123456789", "wang@", "@qq.com", "wang@qq", "wang@.com", "王@qq.com", "wang@qq..com"] {
            assert!(Payee::parse(bad, "王建国").unwrap_err().account.is_some(), "{bad:?}");
        }
        for bad in ["", "王", "王建国1", "<b>王</b>", &"王".repeat(51)] {
            let e = Payee::parse("13812345678", bad).unwrap_err();
            assert!(e.name.is_some() && e.account.is_none(), "{bad:?}");
        }
        let both = Payee::parse("x", "").unwrap_err();
        assert_eq!(both, PayeeErrors { account: Some("支付宝账号应为11位手机号或邮箱地址"), name: Some("请填写支付宝账户的实名姓名") });
    }

    #[test]
    fn a_payee_is_masked_on_receipts() {
        let p = Payee::parse("13812345678", "王建国").unwrap();
        assert_eq!((p.masked_account(), p.masked_name()), ("138****5678".to_owned(), "**国".to_owned()));
        assert_eq!(mask_account("wang.jg@qq.com"), "w***@qq.com");
        assert_eq!(Payee::parse("13812345678", "北京顺达二手车有限公司").unwrap().masked_name(), "北京顺达二手车有限公司", "a company's name is public");
    }

    #[test]
    fn tries_have_their_own_numbers_and_retries_back_off() {
        assert_eq!(biz_no(42, 1), "DP0000000042T1");
        assert_ne!(biz_no(42, 1), biz_no(42, 2));
        assert!(biz_no(i64::MAX, i64::MAX).len() <= 64);
        assert_eq!((retry_after(0), retry_after(1), retry_after(3)), (60, 120, 480));
        assert_eq!(retry_after(40), 360 * 60);
        for s in State::ALL {
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
        assert!(account_refused("PAYEE_NOT_EXIST") && !account_refused("SYSTEM_ERROR") && !account_refused("BALANCE_IS_NOT_ENOUGH"));
    }
}
