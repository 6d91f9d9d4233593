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
/// The least down payment on a used car, in percent of its price: a used-car loan may lend at
/// most 70% of the price (the People's Bank of China and the financial regulator's rule on car
/// loans, 《汽车贷款管理办法》 and the 2024 notice 《关于调整汽车贷款有关政策的通知》, which left
/// the used-car ceiling at 70% while freeing new cars for private use).
pub const MIN_DOWN_PERCENT: u32 = 30;
/// The down-payment shares offered, in percent of the price (from [`MIN_DOWN_PERCENT`]).
pub const DOWN_PERCENTS: [u32; 5] = [30, 40, 50, 60, 70];
// The shares offered and the form's default keep to the rule.
const _: () = assert!(DOWN_PERCENTS[0] == MIN_DOWN_PERCENT && DEFAULT_DOWN >= MIN_DOWN_PERCENT);
/// Said beside the down payment when less than [`MIN_DOWN_PERCENT`] is asked for.
pub const DOWN_TOO_LOW: &str = "二手车贷款首付不能低于车价的30%（贷款最高为车价的70%）";
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
    let down = keep(
        &mut errors,
        "down",
        match down.trim().parse::<u32>() {
            Ok(d) if DOWN_PERCENTS.contains(&d) => Ok(d),
            Ok(d) if d < MIN_DOWN_PERCENT => Err(DOWN_TOO_LOW),
            _ => Err("请选择首付比例"),
        },
    );
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

/// What a lender charges besides interest, fen: a one-off service fee and GPS fee, taken when the
/// loan is paid out, and a management fee every month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fees {
    /// 服务费, once.
    pub service_fen: i64,
    /// GPS费, once.
    pub gps_fen: i64,
    /// 月管理费, every month.
    pub monthly_fen: i64,
}

impl Fees {
    /// What is taken when the loan is paid out.
    pub fn upfront(&self) -> i64 {
        self.service_fen + self.gps_fen
    }

    /// Every fee over `months`.
    pub fn total(&self, months: u32) -> i64 {
        self.upfront() + self.monthly_fen * i64::from(months)
    }
}

/// The longest fee amount typed, characters.
const FEE_MAX_CHARS: usize = 16;

/// A fee typed in yuan (`1000`, `1,000.50`, `１０００元`), in fen; empty is no fee.
fn parse_fee(text: &str) -> Option<i64> {
    let t: String = text
        .trim()
        .chars()
        .take(FEE_MAX_CHARS + 1)
        .map(|c| match c {
            '０'..='９' => char::from_u32(u32::from(c) - u32::from('０') + u32::from('0')).unwrap_or(c),
            '．' => '.',
            c => c,
        })
        .filter(|c| *c != ',' && *c != '，')
        .collect();
    let t = t.trim_end_matches('元').trim();
    if t.is_empty() {
        return Some(0);
    }
    if t.chars().count() > FEE_MAX_CHARS {
        return None;
    }
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    if whole.is_empty() || whole.len() > 9 || frac.len() > 2 || !whole.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac_fen: i64 = format!("{frac:0<2}").parse().ok()?;
    Some(whole.parse::<i64>().ok()? * 100 + frac_fen)
}

/// Reads the fee fields of a plan (`fee` 服务费, `gps` GPS费, `mgmt` 月管理费, in yuan; empty is
/// none); fees that eat the loan are refused, each field with its message.
pub fn parse_fees(plan: &Plan, service: &str, gps: &str, monthly: &str) -> Result<Fees, BTreeMap<&'static str, &'static str>> {
    let mut errors = BTreeMap::new();
    let mut read = |field: &'static str, text: &str, message: &'static str| {
        parse_fee(text).or_else(|| {
            errors.insert(field, message);
            None
        })
    };
    let service_fen = read("fee", service, "服务费请填写金额（元），最多两位小数，如 1000");
    let gps_fen = read("gps", gps, "GPS费请填写金额（元），最多两位小数，如 500");
    let monthly_fen = read("mgmt", monthly, "月管理费请填写金额（元），最多两位小数，如 50");
    let (Some(service_fen), Some(gps_fen), Some(monthly_fen)) = (service_fen, gps_fen, monthly_fen) else {
        return Err(errors);
    };
    let fees = Fees { service_fen, gps_fen, monthly_fen };
    if fees.upfront() >= plan.loan_fen {
        errors.insert("fee", "服务费和GPS费合计不能超过贷款额");
    } else if fees.total(plan.months) >= plan.loan_fen {
        errors.insert("mgmt", "各项费用合计不能超过贷款额，请核对月管理费");
    }
    if errors.is_empty() { Ok(fees) } else { Err(errors) }
}

/// The annualised rate of a loan from what the borrower actually receives and pays (the rule that
/// loan offers state it: the People's Bank of China's 2021 announcement No. 3): the monthly
/// internal rate of return `r` of the cash flows, as 单利 `12·r` and as 复利 `(1+r)^12 − 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnnualRate {
    /// The monthly rate.
    pub monthly: f64,
    /// `12·r`, hundredths of a percent, rounded.
    pub simple_bp: i64,
    /// `(1+r)^12 − 1`, hundredths of a percent, rounded.
    pub compound_bp: i64,
}

/// Why no rate can be stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRate;

impl NoRate {
    /// What the page says.
    pub const MESSAGE: &'static str = "这组还款无法计算年化利率，请核对费用和还款额";
}

/// The monthly rate `r` at which `received_fen` now equals `payments_fen` (month 1, 2, …)
/// discounted, or [`NoRate`] when none lies between −99 % and +1,000 % a month. The present value
/// falls as `r` rises when every payment is positive, so one root lies in that bracket: Newton's
/// steps from the level-payment estimate find it in a handful of rounds, each step that would
/// leave the bracket or creep is a bisection instead, and the bracket shrinks every round, so it
/// converges wherever bisection alone would (a listing's page asks this for every car it shows).
pub fn annual_rate(received_fen: i64, payments_fen: &[i64]) -> Result<AnnualRate, NoRate> {
    if received_fen <= 0 || payments_fen.is_empty() || payments_fen.iter().any(|p| *p < 0) {
        return Err(NoRate);
    }
    #[expect(clippy::cast_precision_loss, reason = "amounts stay far below 2^52 fen")]
    let received = received_fen as f64;
    // The present value at `r` less what was received, and its slope.
    #[expect(clippy::cast_precision_loss, reason = "amounts stay far below 2^52 fen, terms below 2^52 months")]
    let npv = |r: f64| -> (f64, f64) {
        let (mut discount, mut sum, mut slope) = (1.0, -received, 0.0);
        for (k, p) in payments_fen.iter().enumerate() {
            discount /= 1.0 + r;
            let pv = *p as f64 * discount;
            sum += pv;
            slope -= (k + 1) as f64 * pv / (1.0 + r);
        }
        (sum, slope)
    };
    // From −99 % to +1,000 % a month: any loan a person could be offered lies inside.
    let (mut lo, mut hi) = (-0.99_f64, 10.0_f64);
    if npv(lo).0 < 0.0 || npv(hi).0 > 0.0 {
        return Err(NoRate);
    }
    // Level payments of `a` over `n` months for `received`: r ≈ 2·(n·a/received − 1)/(n + 1).
    #[expect(clippy::cast_precision_loss, reason = "amounts stay far below 2^52 fen")]
    let total: f64 = payments_fen.iter().map(|p| *p as f64).sum();
    #[expect(clippy::cast_precision_loss, reason = "terms stay far below 2^52 months")]
    let n = payments_fen.len() as f64;
    let mut r = (2.0 * (total / received - 1.0) / (n + 1.0)).clamp(lo, hi);
    let (mut step, mut last_step) = (hi - lo, hi - lo);
    for _ in 0..200 {
        let (value, slope) = npv(r);
        if value == 0.0 {
            break;
        }
        if value > 0.0 {
            lo = r;
        } else {
            hi = r;
        }
        // Newton's step, unless it leaves the bracket or would not halve the distance two steps
        // ago (far on the steep side of the curve Newton creeps): then the bracket's middle.
        let newton = r - value / slope;
        let creeping = (2.0 * value).abs() > (last_step * slope).abs();
        let next = if newton.is_finite() && newton > lo && newton < hi && !creeping { newton } else { lo + (hi - lo) / 2.0 };
        last_step = step;
        step = (next - r).abs();
        r = next;
        if step < 1e-15 || hi - lo < 1e-13 {
            break;
        }
    }
    if !r.is_finite() {
        return Err(NoRate);
    }
    #[expect(clippy::cast_possible_truncation, reason = "rounded hundredths of a percent of a bounded rate")]
    let bp = |x: f64| (x * 10_000.0).round() as i64;
    Ok(AnnualRate { monthly: r, simple_bp: bp(r * 12.0), compound_bp: bp((1.0 + r).powi(12) - 1.0) })
}

impl Plan {
    /// The annualised rate of this loan with `fees`: the borrower receives the loan less the
    /// one-off fees and pays each month's instalment plus the monthly fee.
    pub fn annual_rate(&self, fees: &Fees) -> Result<AnnualRate, NoRate> {
        let payments: Vec<i64> = self.schedule().iter().map(|r| r.payment_fen + fees.monthly_fen).collect();
        annual_rate(self.loan_fen - fees.upfront(), &payments)
    }
}

/// Hundredths of a percent as a percentage with two decimals (`12.80%`).
pub fn percent(bp: i64) -> String {
    format!("{}{}.{:02}%", if bp < 0 { "-" } else { "" }, bp.abs() / 100, bp.abs() % 100)
}

/// The usual loan of a car at `price_yuan` (30% down over 36 months at the reference rate, equal
/// instalments, no fees) as a listing shows it: the down payment in yuan, the monthly payment
/// rounded to the yuan and the annualised rate in hundredths of a percent, by the calculator's
/// own computation; `None` when the loan would be too small to be worth one.
pub fn estimate(price_yuan: i64) -> Option<(i64, i64, i64)> {
    if price_yuan > MAX_PRICE_YUAN {
        return None;
    }
    let plan = Plan::new(price_yuan, DEFAULT_DOWN, DEFAULT_TERM, DEFAULT_RATE_BP, Method::Annuity)?;
    let apr = plan.annual_rate(&Fees::default()).ok()?;
    Some((plan.down_fen / 100, (plan.annuity_payment() + 50) / 100, apr.simple_bp))
}

/// The interest of [`estimate`]'s usual loan over its whole term, fen (the all-in cost of a car
/// bought on a loan adds it); `None` where `estimate` has no loan.
pub fn usual_interest(price_yuan: i64) -> Option<i64> {
    if price_yuan > MAX_PRICE_YUAN {
        return None;
    }
    let plan = Plan::new(price_yuan, DEFAULT_DOWN, DEFAULT_TERM, DEFAULT_RATE_BP, Method::Annuity)?;
    Some(Plan::total_interest(&plan.schedule()))
}

/// [`yuan`] without the fen when they are zero (`300`, `3,983.20`).
///
/// ```
/// assert_eq!(domain::loan::short_yuan(30_000), "300");
/// assert_eq!(domain::loan::short_yuan(398_320), "3,983.20");
/// ```
pub fn short_yuan(fen: i64) -> String {
    let mut out = String::with_capacity(24);
    push_yuan(&mut out, fen, false);
    out
}

/// Fen as yuan with two decimals and thousands separators (`2,091.80`).
pub fn yuan(fen: i64) -> String {
    let mut out = String::with_capacity(24);
    push_yuan(&mut out, fen, true);
    out
}

/// Appends [`yuan`] of `fen` to `out`, without the fen when they are zero unless `fen_always`
/// ([`short_yuan`]). Written digit by digit into the one buffer: a car's page shows a handful
/// of amounts, and formatting each through `format!` was a thousand instructions apiece.
fn push_yuan(out: &mut String, fen: i64, fen_always: bool) {
    if fen < 0 {
        out.push('-');
    }
    let fen = fen.unsigned_abs();
    // The whole yuan's digits, last first.
    let (mut digits, mut n, mut rest) = ([0u8; 20], 0, fen / 100);
    loop {
        digits[n] = b'0' + (rest % 10) as u8;
        n += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for i in (0..n).rev() {
        out.push(char::from(digits[i]));
        if i > 0 && i % 3 == 0 {
            out.push(',');
        }
    }
    let cents = fen % 100;
    if fen_always || cents != 0 {
        out.push('.');
        out.push(char::from(b'0' + (cents / 10) as u8));
        out.push(char::from(b'0' + (cents % 10) as u8));
    }
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
            ("20", "50", "60", "5.8", 192_399, 1_543_969),
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
        let cases: [(&str, &str, &str, &str, &str, &str, &str); 14] = [
            ("", "30", "36", "5.8", "annuity", "price", "请填写车价，单位万元，如 12.5"),
            ("-1", "30", "36", "5.8", "annuity", "price", "车价不能为负数"),
            ("1e9", "30", "36", "5.8", "annuity", "price", "车价请填写数字，单位万元，最多两位小数，如 12.5"),
            ("12.345", "30", "36", "5.8", "annuity", "price", "车价请填写数字，单位万元，最多两位小数，如 12.5"),
            ("0.3", "30", "36", "5.8", "annuity", "price", "车价至少0.5万元"),
            ("1001", "30", "36", "5.8", "annuity", "price", "车价最多1000万元"),
            ("1.2", "30", "36", "5.8", "annuity", "price", "首付后贷款不足1万元，一般无需分期，可全款购买"),
            ("10", "35", "36", "5.8", "annuity", "down", "请选择首付比例"),
            ("10", "25", "36", "5.8", "annuity", "down", DOWN_TOO_LOW),
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
        assert_eq!(estimate(125_000), Some((37_500, 2_654, 580)));
        assert_eq!(estimate(125_000).map(|e| e.1 * 100), Some((plan("12.5", "30", "36", "5.8", "annuity").schedule()[0].payment_fen + 50) / 100 * 100));
        assert_eq!(estimate(14_285), None, "a loan under 1万 is not worth one");
        assert_eq!(estimate(14_286).map(|e| e.0), Some(4_285));
    }

    #[test]
    fn the_annual_rate_counts_every_fee() {
        // 100,000 borrowed, 1,000 taken up front, 12 payments of 8,833.30: 12.80 % simple,
        // 13.58 % compound.
        let r = annual_rate(10_000_000 - 100_000, &[883_330; 12]).unwrap();
        assert_eq!((r.simple_bp, r.compound_bp), (1_280, 1_358));
        assert_eq!((percent(r.simple_bp), percent(r.compound_bp)), ("12.80%".to_owned(), "13.58%".to_owned()));
        // Without fees the annualised rate of equal instalments is the contract rate.
        let p = plan("10", "30", "36", "4.8", "annuity");
        assert_eq!(p.annual_rate(&Fees::default()).unwrap().simple_bp, 480);
        assert_eq!(p.annual_rate(&Fees::default()).unwrap().compound_bp, 491);
        // Fees raise it: 2,000 up front and 50 a month on 70,000 over 36 months.
        let fees = Fees { service_fen: 150_000, gps_fen: 50_000, monthly_fen: 5_000 };
        let with = p.annual_rate(&fees).unwrap();
        assert!(with.simple_bp > 480 + 100, "{with:?}");
        // Equal principal at 4.8 % is 4.8 % too: the rate does not depend on the method.
        assert_eq!(plan("10", "30", "36", "4.8", "principal").annual_rate(&Fees::default()).unwrap().simple_bp, 480);
        // A 0 % loan with a fee is not free.
        let zero = plan("8", "30", "24", "0", "annuity");
        assert!(zero.annual_rate(&Fees { service_fen: 100_000, ..Fees::default() }).unwrap().simple_bp > 0);
        assert_eq!(zero.annual_rate(&Fees::default()).unwrap().simple_bp, 0);
    }

    /// The rate by plain bisection, as the solver found it before Newton's steps.
    fn bisected(received_fen: i64, payments_fen: &[i64]) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "test amounts")]
        let npv = |r: f64| payments_fen.iter().fold((1.0_f64, -(received_fen as f64)), |(d, s), p| (d / (1.0 + r), s + *p as f64 * d / (1.0 + r))).1;
        let (mut lo, mut hi) = (-0.99_f64, 10.0_f64);
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if npv(mid) > 0.0 { lo = mid } else { hi = mid }
        }
        (lo + hi) / 2.0
    }

    #[test]
    fn newtons_steps_find_the_rate_bisection_finds() {
        // Every price, down payment, term, rate and method the calculator offers a grid of, with
        // and without fees, and cash flows far from any loan (one payment, huge fees, 0 %).
        let mut flows: Vec<(i64, Vec<i64>)> = vec![(10_000, vec![20_000]), (9_999_999, vec![1; 360]), (100, vec![0, 0, 0, 101]), (5_000, vec![5_000; 12])];
        for price in ["1.5", "4.8", "10", "23.7", "88", "300"] {
            for down in ["0", "30", "40", "50", "90"] {
                for months in ["6", "12", "24", "36", "60"] {
                    for rate in ["0", "2.9", "4.8", "9.99", "24"] {
                        for method in ["annuity", "principal"] {
                            let Ok(p) = parse(price, down, months, rate, method) else { continue };
                            for fees in [Fees::default(), Fees { service_fen: 150_000, gps_fen: 50_000, monthly_fen: 5_000 }] {
                                let payments: Vec<i64> = p.schedule().iter().map(|r| r.payment_fen + fees.monthly_fen).collect();
                                flows.push((p.loan_fen - fees.upfront(), payments));
                            }
                        }
                    }
                }
            }
        }
        assert!(flows.len() > 1_000, "{}", flows.len());
        for (received, payments) in &flows {
            let Ok(r) = annual_rate(*received, payments) else {
                assert!(*received <= 0, "{received} {payments:?}");
                continue;
            };
            let want = bisected(*received, payments);
            assert!((r.monthly - want).abs() < 1e-12, "{received} {payments:?}: {} against {want}", r.monthly);
        }
    }

    #[test]
    fn a_used_car_loan_lends_at_most_seventy_percent() {
        for down in ["0", "10", "20", "29"] {
            assert_eq!(parse("10", down, "36", "4.8", "annuity").err().and_then(|e| e.get("down").copied()), Some(DOWN_TOO_LOW), "{down}");
        }
        assert_eq!(parse("10", "35", "36", "4.8", "annuity").err().and_then(|e| e.get("down").copied()), Some("请选择首付比例"));
        for down in DOWN_PERCENTS {
            let plan = parse("10", &down.to_string(), "36", "4.8", "annuity").unwrap_or_else(|e| panic!("{e:?}"));
            assert!(plan.loan_fen * 100 <= plan.price_fen * 70, "{down}% down lends at most 70%");
        }
    }

    #[test]
    fn the_solver_says_when_it_cannot() {
        assert_eq!(annual_rate(0, &[100]), Err(NoRate));
        assert_eq!(annual_rate(100, &[]), Err(NoRate));
        assert_eq!(annual_rate(100, &[-5, 200]), Err(NoRate));
        // Paying back a thousandth of what was received is beyond −99 % a month.
        assert_eq!(annual_rate(10_000_000, &[1]), Err(NoRate));
        assert!(annual_rate(10_000, &[20_000]).is_ok_and(|r| r.simple_bp == 120_000), "100 % a month");
    }

    #[test]
    fn sixty_months_pay_back_the_principal_and_the_interest_exactly() {
        for method in ["annuity", "principal"] {
            let p = plan("25", "30", "60", "5.8", method);
            let rows = p.schedule();
            assert_eq!(rows.len(), 60);
            let paid: i64 = rows.iter().map(|r| r.payment_fen).sum();
            assert_eq!(paid, p.loan_fen + Plan::total_interest(&rows), "{method}");
            assert_eq!(rows.iter().map(|r| r.principal_fen).sum::<i64>(), p.loan_fen, "{method}");
        }
    }

    #[test]
    fn fees_are_read_in_yuan_and_never_eat_the_loan() {
        let p = plan("10", "30", "36", "4.8", "annuity");
        assert_eq!(parse_fees(&p, "1,000", "５００元", "50.5"), Ok(Fees { service_fen: 100_000, gps_fen: 50_000, monthly_fen: 5_050 }));
        assert_eq!(parse_fees(&p, "", " ", ""), Ok(Fees::default()));
        for (fee, gps, mgmt, field, message) in [
            ("abc", "", "", "fee", "服务费请填写金额（元），最多两位小数，如 1000"),
            ("-100", "", "", "fee", "服务费请填写金额（元），最多两位小数，如 1000"),
            ("", "1.234", "", "gps", "GPS费请填写金额（元），最多两位小数，如 500"),
            ("", "", "1e3", "mgmt", "月管理费请填写金额（元），最多两位小数，如 50"),
            ("70000", "", "", "fee", "服务费和GPS费合计不能超过贷款额"),
            ("60000", "10000", "", "fee", "服务费和GPS费合计不能超过贷款额"),
            ("", "", "2000", "mgmt", "各项费用合计不能超过贷款额，请核对月管理费"),
        ] {
            let errors = parse_fees(&p, fee, gps, mgmt).unwrap_err();
            assert_eq!(errors.get(field), Some(&message), "{fee} {gps} {mgmt}: {errors:?}");
        }
    }

    #[test]
    fn yuan_groups_thousands() {
        for (fen, text) in [
            (0, "0.00"),
            (5, "0.05"),
            (99_900, "999.00"),
            (209_168, "2,091.68"),
            (12_500_000, "125,000.00"),
            (123_456_789_012, "1,234,567,890.12"),
            (-50, "-0.50"),
            (-123_456, "-1,234.56"),
        ] {
            assert_eq!(yuan(fen), text);
        }
        for (fen, text) in [(0, "0"), (30_000, "300"), (398_320, "3,983.20"), (100_000_005, "1,000,000.05"), (-100, "-1"), (1_000_000, "10,000")] {
            assert_eq!(short_yuan(fen), text);
        }
    }
}
