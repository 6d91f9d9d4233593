//! Visit statistics: the `from` value sent to `/hpi/mobile/appdatastatistics.json`.

/// The query parameters that feed statistics: campaign plan, unit, keyword, WeChat ad
/// id and traffic type, plus the visitor's mobile when known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsParams<'a> {
    /// The visitor's mobile number, when logged in or passed by the app.
    pub mobile: Option<&'a str>,
    /// `plan` query parameter.
    pub plan: Option<&'a str>,
    /// `unit` query parameter.
    pub unit: Option<&'a str>,
    /// `keyword` query parameter.
    pub keyword: Option<&'a str>,
    /// `wx_aid` query parameter.
    pub wx_aid: Option<&'a str>,
    /// `type` query parameter.
    pub kind: Option<&'a str>,
}

fn present(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// Builds `from`: the base extended with `_{mobile}`, `_plan_{plan}`, `_unit_{unit}`,
/// `_keyword_{keyword}`, `_aid_{wx_aid}` and prefixed `type{type}_`, each only when present.
pub fn build_from(base: &str, p: &StatsParams<'_>) -> String {
    let mut out = String::with_capacity(base.len() + 32);
    if let Some(t) = present(p.kind) {
        out.push_str("type");
        out.push_str(t);
        out.push('_');
    }
    out.push_str(base);
    let parts = [("_", p.mobile), ("_plan_", p.plan), ("_unit_", p.unit), ("_keyword_", p.keyword), ("_aid_", p.wx_aid)];
    for (prefix, value) in parts {
        if let Some(v) = present(value) {
            out.push_str(prefix);
            out.push_str(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_is_extended_in_the_seed_order() {
        let all =
            StatsParams { mobile: Some("13812345678"), plan: Some("p1"), unit: Some("u2"), keyword: Some("二手车"), wx_aid: Some("999"), kind: Some("3") };
        let cases: &[(StatsParams<'_>, &str)] = &[
            (StatsParams::default(), "flow"),
            (all.clone(), "type3_flow_13812345678_plan_p1_unit_u2_keyword_二手车_aid_999"),
            (StatsParams { plan: Some("p1"), ..Default::default() }, "flow_plan_p1"),
            (StatsParams { kind: Some("2"), ..Default::default() }, "type2_flow"),
            (StatsParams { plan: Some("  "), mobile: Some(""), ..Default::default() }, "flow"),
            (StatsParams { wx_aid: Some("7"), unit: Some("u"), ..Default::default() }, "flow_unit_u_aid_7"),
        ];
        for (params, want) in cases {
            assert_eq!(build_from("flow", params), *want);
        }
    }
}
