//! Car loans: the calculator of `/servicehall/fenqi/fenqi`. The form's rules (price in 万, a down
//! payment share, a term of 12 to 60 months, an annual rate), then the repayment month by month in
//! fen, by equal instalments (等额本息) or equal principal (等额本金), the last month clearing what
//! rounding left so the principal repaid is exactly the loan.
//!
//! ```
//! use domain::loan::{parse, Method};
//! let plan = parse("10", "30", "36", "4.8", "annuity").unwrap();
//! assert_eq!(plan.loan_fen, 7_000_000);
//! let s = plan.schedule();
//! assert_eq!(s.len(), 36);
//! assert_eq!(s[0].payment_fen, 209_168); // 2,091.68 元 a month
//! assert_eq!(s.iter().map(|r| r.principal_fen).sum::<i64>(), plan.loan_fen);
//! assert_eq!(plan.method, Method::Annuity);
//! ```

use std::collections::BTreeMap;

/// The terms offered, in months.
pub const TERMS: [u32; 5] = [12, 24, 36, 48, 60];
/// The down-payment shares offered, in percent of the price.
pub const DOWN_PERCENTS: [u32; 6] = [20, 30, 40, 50, 60, 70];
/// The form's starting values: 30% down over 36 months.
pub const DEFAULT_DOWN: u32 = 30;
/// Default term.
pub const DEFAULT_TERM: u32 = 36;
/// The starting annual rate shown on the form, in hundredths of a percent: a typical rate of a
/// used-car loan from a bank; lenders' own rates replace it when they answer an application.
pub const DEFAULT_RATE_BP: u32 = 580;
/// The highest annual rate the calculator takes (24%), in hundredths of a percent.
pub const MAX_RATE_BP: u32 = 2_400;
/// Prices the calculator takes, in yuan.
pub const MIN_PRICE_YUAN: i64 = 5_000;
/// The highest price.
pub const MAX_PRICE_YUAN: i64 = 10_000_000;
/// Below this loan (yuan) a loan is not worth its fees: the form says to pay in full.
pub const MIN_LOAN_YUAN: i64 = 10_000;

crate::stored_enum! {
    /// How the loan is repaid.
    pub enum Method {
        /// The same payment every month; interest first, principal later.
        Annuity = "annuity" => "等额本息",
        /// The same principal every month; payments falling as the interest does.
        Principal = "principal" => "等额本金",
    }
}

/// A loan the calculator was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The car's price, fen.
    pub price_fen: i64,
    /// Down payment share, percent.
    pub down_percent: u32,
    /// The down payment, fen.
    pub down_fen: i64,
    /// The loan, fen.
    pub loan_fen: i64,
    /// Months.
    pub months: u32,
    /// Annual rate, hundredths of a percent.
    pub rate_bp: u32,
    /// Repayment method.
    pub method: Method,
}

/// One month of the schedule, fen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// 1 to `months`.
    pub month: u32,
    /// What is paid this month.
    pub payment_fen: i64,
    /// Of which principal.
    pub principal_fen: i64,
    /// Of which interest.
    pub interest_fen: i64,
    /// What is still owed after it.
    pub balance_fen: i64,
}

/// A percentage typed by a person (`5.8`, `5.8%`), in hundredths of a percent.
fn parse_percent(text: &str) -> Option<u32> {
    let t = text.trim().trim_end_matches(['%', '％']).trim();
    if t.contains(['万', 'w', 'W']) {
        return None;
    }
    crate::selling::parse_wan(t).and_then(|v| u32::try_from(v / 100).ok())
}

/// The car's price typed in 万, in yuan; the message for the field otherwise.
fn parse_price(text: &str) -> Result<i64, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写车价，单位万元，如 12.5");
    }
    if t.starts_with('-') {
        return Err("车价不能为负数");
    }
    match crate::selling::parse_wan(t).ok_or("车价请填写数字，单位万元，最多两位小数，如 12.5")? {
        y if y < MIN_PRICE_YUAN => Err("车价至少0.5万元"),
        y if y > MAX_PRICE_YUAN => Err("车价最多1000万元"),
        y => Ok(y),
    }
}

/// The annual rate typed in percent, in hundredths of a percent; the message otherwise.
fn parse_rate(text: &str) -> Result<u32, &'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Err("请填写年利率，如 5.8");
    }
    match parse_percent(t).ok_or("年利率请填写数字，最多两位小数，如 5.8")? {
        bp if bp > MAX_RATE_BP => Err("年利率最高24%，请核对贷款合同上的利率"),
        bp => Ok(bp),
    }
}

impl Plan {
    /// The loan of a car at `price_yuan` with `down_percent` down; `None` when what is left to
    /// borrow is under [`MIN_LOAN_YUAN`].
    fn new(price_yuan: i64, down_percent: u32, months: u32, rate_bp: u32, method: Method) -> Option<Plan> {
        let price_fen = price_yuan.checked_mul(100)?;
        let down_fen = price_fen * i64::from(down_percent) / 100;
        let loan_fen = price_fen - down_fen;
        (loan_fen >= MIN_LOAN_YUAN * 100).then_some(Plan { price_fen, down_percent, down_fen, loan_fen, months, rate_bp, method })
    }
}

/// Reads the form; each refused field with its message.
pub fn parse(price: &str, down: &str, months: &str, rate: &str, method: &str) -> Result<Plan, BTreeMap<&'static str, &'static str>> {
    /// The value of a field that reads, else its message kept.
    fn keep<T>(errors: &mut BTreeMap<&'static str, &'static str>, field: &'static str, read: Result<T, &'static str>) -> Option<T> {
        read.map_err(|e| errors.insert(field, e)).ok()
    }
    let mut errors = BTreeMap::new();
    let price_yuan = keep(&mut errors, "price", parse_price(price));
    let down = keep(&mut errors, "down", down.trim().parse::<u32>().ok().filter(|d| DOWN_PERCENTS.contains(d)).ok_or("请选择首付比例"));
    let months = keep(&mut errors, "months", months.trim().parse::<u32>().ok().filter(|m| TERMS.contains(m)).ok_or("请选择贷款期限（12到60个月）"));
    let rate_bp = keep(&mut errors, "rate", parse_rate(rate));
    let method = keep(&mut errors, "method", Method::parse(method.trim()).ok_or("请选择还款方式"));
    let (Some(price_yuan), Some(down_percent), Some(months), Some(rate_bp), Some(method)) = (price_yuan, down, months, rate_bp, method) else {
        return Err(errors);
    };
    Plan::new(price_yuan, down_percent, months, rate_bp, method).ok_or_else(|| BTreeMap::from([("price", "首付后贷款不足1万元，一般无需分期，可全款购买")]))
}

/// `balance × annual rate ÷ 12`, rounded half up to the fen.
fn month_interest(balance_fen: i64, rate_bp: u32) -> i64 {
    let n = i128::from(balance_fen) * i128::from(rate_bp);
    i64::try_from((n + 60_000) / 120_000).unwrap_or(i64::MAX)
}

impl Plan {
    /// The equal monthly payment of an annuity, rounded half up to the fen:
    /// `L·r·(1+r)^n / ((1+r)^n − 1)`, or `L / n` without interest.
    fn annuity_payment(&self) -> i64 {
        let n = i32::try_from(self.months).unwrap_or(i32::MAX);
        if self.rate_bp == 0 {
            return (self.loan_fen + i64::from(self.months) - 1) / i64::from(self.months);
        }
        let r = f64::from(self.rate_bp) / 120_000.0;
        let growth = (1.0 + r).powi(n);
        #[expect(clippy::cast_precision_loss, clippy::cast_possible_truncation, reason = "loans stay far below 2^52 fen; the payment is rounded to the fen")]
        let payment = (self.loan_fen as f64 * r * growth / (growth - 1.0)).round() as i64;
        payment
    }

    /// Month by month. The last month pays off what is left, so the principal sums to the loan.
    pub fn schedule(&self) -> Vec<Row> {
        let months = i64::from(self.months);
        let mut balance = self.loan_fen;
        let mut rows = Vec::with_capacity(self.months as usize);
        let annuity = self.annuity_payment();
        for month in 1..=self.months {
            let interest = month_interest(balance, self.rate_bp);
            let principal = if i64::from(month) == months {
                balance
            } else {
                match self.method {
                    Method::Annuity => (annuity - interest).clamp(0, balance),
                    Method::Principal => (self.loan_fen / months).min(balance),
                }
            };
            balance -= principal;
            rows.push(Row { month, payment_fen: principal + interest, principal_fen: principal, interest_fen: interest, balance_fen: balance });
        }
        rows
    }

    /// The whole interest over the term, fen.
    pub fn total_interest(rows: &[Row]) -> i64 {
        rows.iter().map(|r| r.interest_fen).sum()
    }
}

/// The usual loan of a car at `price_yuan` (30% down over 36 months at the reference rate, equal
/// instalments) as a listing shows it: the down payment in yuan and the monthly payment rounded to
/// the yuan; `None` when the loan would be too small to be worth one.
pub fn estimate(price_yuan: i64) -> Option<(i64, i64)> {
    if price_yuan > MAX_PRICE_YUAN {
        return None;
    }
    let plan = Plan::new(price_yuan, DEFAULT_DOWN, DEFAULT_TERM, DEFAULT_RATE_BP, Method::Annuity)?;
    Some((plan.down_fen / 100, (plan.annuity_payment() + 50) / 100))
}

/// Fen as yuan with two decimals and thousands separators (`2,091.80`).
pub fn yuan(fen: i64) -> String {
    let sign = if fen < 0 { "-" } else { "" };
    let fen = fen.unsigned_abs();
    let whole = (fen / 100).to_string();
    let mut grouped = String::with_capacity(whole.len() + whole.len() / 3);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}.{:02}", fen % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(price: &str, down: &str, months: &str, rate: &str, method: &str) -> Plan {
        parse(price, down, months, rate, method).unwrap()
    }

    #[test]
    fn annuities_match_the_bank_formula_and_clear_the_loan() {
        // (price 万, down %, months, rate %, monthly payment fen, total interest fen)
        let cases = [
            ("10", "30", "36", "4.8", 209_168, 530_059),
            ("12.5", "20", "60", "5.8", 192_399, 1_543_969),
            ("20", "50", "12", "3.6", 849_673, 196_071),
            ("8", "30", "24", "0", 233_334, 0),
        ];
        for (price, down, months, rate, payment, interest) in cases {
            let p = plan(price, down, months, rate, "annuity");
            let rows = p.schedule();
            assert_eq!(rows[0].payment_fen, payment, "{price}万 {down}% {months}期 {rate}%");
            assert!(rows[..rows.len() - 1].iter().all(|r| r.payment_fen == payment), "the same payment every month");
            assert!((rows[rows.len() - 1].payment_fen - payment).abs() <= i64::from(p.months), "the last month only absorbs rounding");
            assert_eq!(rows.iter().map(|r| r.principal_fen).sum::<i64>(), p.loan_fen);
            assert_eq!(rows[rows.len() - 1].balance_fen, 0);
            assert_eq!(Plan::total_interest(&rows), interest, "{price}万 {months}期");
            assert!(rows.windows(2).all(|w| w[0].interest_fen >= w[1].interest_fen), "interest falls as the balance does");
        }
    }

    #[test]
    fn equal_principal_falls_month_by_month_and_costs_less() {
        let p = plan("10", "30", "36", "4.8", "principal");
        let rows = p.schedule();
        // 70,000 元 over 36 months: 1,944.44 principal, the first month's interest 280.00.
        assert_eq!((rows[0].principal_fen, rows[0].interest_fen, rows[0].payment_fen), (194_444, 28_000, 222_444));
        assert!(rows.windows(2).all(|w| w[0].payment_fen > w[1].payment_fen));
        assert_eq!(rows.iter().map(|r| r.principal_fen).sum::<i64>(), 7_000_000);
        assert_eq!(rows[35].principal_fen, 7_000_000 - 35 * 194_444);
        let annuity = plan("10", "30", "36", "4.8", "annuity").schedule();
        assert!(Plan::total_interest(&rows) < Plan::total_interest(&annuity));
        assert_eq!(Plan::total_interest(&rows), 518_000);
    }

    #[test]
    fn the_form_names_each_mistake() {
        let cases: [(&str, &str, &str, &str, &str, &str, &str); 13] = [
            ("", "30", "36", "5.8", "annuity", "price", "请填写车价，单位万元，如 12.5"),
            ("-1", "30", "36", "5.8", "annuity", "price", "车价不能为负数"),
            ("1e9", "30", "36", "5.8", "annuity", "price", "车价请填写数字，单位万元，最多两位小数，如 12.5"),
            ("12.345", "30", "36", "5.8", "annuity", "price", "车价请填写数字，单位万元，最多两位小数，如 12.5"),
            ("0.3", "30", "36", "5.8", "annuity", "price", "车价至少0.5万元"),
            ("1001", "30", "36", "5.8", "annuity", "price", "车价最多1000万元"),
            ("1.2", "30", "36", "5.8", "annuity", "price", "首付后贷款不足1万元，一般无需分期，可全款购买"),
            ("10", "25", "36", "5.8", "annuity", "down", "请选择首付比例"),
            ("10", "30", "72", "5.8", "annuity", "months", "请选择贷款期限（12到60个月）"),
            ("10", "30", "36", "", "annuity", "rate", "请填写年利率，如 5.8"),
            ("10", "30", "36", "abc", "annuity", "rate", "年利率请填写数字，最多两位小数，如 5.8"),
            ("10", "30", "36", "25", "annuity", "rate", "年利率最高24%，请核对贷款合同上的利率"),
            ("10", "30", "36", "5.8", "balloon", "method", "请选择还款方式"),
        ];
        for (price, down, months, rate, method, field, message) in cases {
            let errors = parse(price, down, months, rate, method).unwrap_err();
            assert_eq!(errors.get(field), Some(&message), "{price} {down} {months} {rate} {method}: {errors:?}");
            assert_eq!(errors.len(), 1, "only the wrong field: {errors:?}");
        }
        // People type 万, full-width digits and percent signs.
        assert_eq!(plan("１２.５万", "30", "36", "5.8%", "annuity").price_fen, 12_500_000);
        assert_eq!(plan("12.5", "30", "36", "５.８％", "annuity").rate_bp, 580);
    }

    #[test]
    fn a_listing_shows_the_usual_loan() {
        // 12.5万: 3.75万 down, 87,500 元 over 36 months at 5.8%.
        assert_eq!(estimate(125_000), Some((37_500, 2_654)));
        assert_eq!(estimate(125_000).map(|e| e.1 * 100), Some((plan("12.5", "30", "36", "5.8", "annuity").schedule()[0].payment_fen + 50) / 100 * 100));
        assert_eq!(estimate(14_285), None, "a loan under 1万 is not worth one");
        assert_eq!(estimate(14_286).map(|e| e.0), Some(4_285));
    }

    #[test]
    fn yuan_groups_thousands() {
        for (fen, text) in [(0, "0.00"), (5, "0.05"), (209_168, "2,091.68"), (12_500_000, "125,000.00"), (123_456_789_012, "1,234,567,890.12")] {
            assert_eq!(yuan(fen), text);
        }
    }
}
