//! Device class from the User-Agent: mobile or pc, plus the in-app browsers that change
//! behaviour — WeChat (sharing, no Alipay, no ad script) and the Douyin short-video app.

use serde::Serialize;

/// The two layouts the site renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceClass {
    /// Phones (tablets get the mobile layout too, as Chinese car sites do).
    Mobile,
    /// Desktop browsers and crawlers without a mobile token.
    Pc,
}

impl DeviceClass {
    /// The value of `data-device` on `<html>`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceClass::Mobile => "mobile",
            DeviceClass::Pc => "pc",
        }
    }
}

/// What the User-Agent says about the visitor's browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Device {
    /// Mobile or pc.
    pub class: DeviceClass,
    /// Inside WeChat's built-in browser (`MicroMessenger`).
    pub wechat: bool,
    /// Inside the Douyin / TikTok app's browser.
    pub douyin: bool,
}

const MOBILE_TOKENS: &[&str] = &[
    "iphone",
    "ipod",
    "ipad",
    "android",
    "mobile",
    "windows phone",
    "harmonyos",
    "openharmony",
    "micromessenger",
    "mqqbrowser",
    "ucbrowser",
    "blackberry",
    "opera mini",
];

/// The first phone or tablet token a User-Agent carries, in lower case: what makes it `mobile`
/// (`None`: `pc`).
pub fn mobile_token(ua: &str) -> Option<&'static str> {
    token_in(&ua.to_ascii_lowercase())
}

/// [`mobile_token`] of a User-Agent already in lower case.
fn token_in(lower: &str) -> Option<&'static str> {
    MOBILE_TOKENS.iter().copied().find(|t| lower.contains(t))
}

impl Device {
    /// Classifies a User-Agent; an empty or unknown one is `pc`. It is put in lower case once
    /// (each request's User-Agent is classified).
    pub fn from_user_agent(ua: &str) -> Device {
        let ua = ua.to_ascii_lowercase();
        let class = if token_in(&ua).is_some() { DeviceClass::Mobile } else { DeviceClass::Pc };
        let wechat = ua.contains("micromessenger") && !ua.contains("wxwork");
        let douyin = ua.contains("aweme") || ua.contains("bytedancewebview") || ua.contains("douyin");
        Device { class, wechat, douyin }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agents_are_classified() {
        let cases: &[(&str, DeviceClass, bool, bool)] = &[
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", DeviceClass::Mobile, false, false),
            ("Mozilla/5.0 (Linux; Android 13; V2227A) AppleWebKit/537.36 Chrome/116.0 Mobile Safari/537.36", DeviceClass::Mobile, false, false),
            (
                "Mozilla/5.0 (Linux; Android 12; M2012K11AC) AppleWebKit/537.36 Mobile Safari/537.36 MicroMessenger/8.0.40.2420(0x28002837) NetType/WIFI",
                DeviceClass::Mobile,
                true,
                false,
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6) AppleWebKit/605.1.15 Mobile/15E148 aweme_26.5.0 JsSdk/2.0 BytedanceWebview/d8a21c6",
                DeviceClass::Mobile,
                false,
                true,
            ),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36", DeviceClass::Pc, false, false),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/81.0 Safari/537.36 MicroMessenger/7.0.20.1781(0x6700143B) NetType/WIFI MiniProgramEnv/Windows WindowsWechat",
                DeviceClass::Mobile,
                true,
                false,
            ),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15", DeviceClass::Pc, false, false),
            ("Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", DeviceClass::Pc, false, false),
            (
                "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36 (compatible; Googlebot/2.1)",
                DeviceClass::Mobile,
                false,
                false,
            ),
            ("Mozilla/5.0 (Linux; U; Android 10) wxwork/4.1.0 MicroMessenger/7.0.1", DeviceClass::Mobile, false, false),
            ("", DeviceClass::Pc, false, false),
        ];
        for (ua, class, wechat, douyin) in cases {
            let d = Device::from_user_agent(ua);
            assert_eq!((d.class, d.wechat, d.douyin), (*class, *wechat, *douyin), "{ua}");
            assert_eq!(mobile_token(ua).is_some(), *class == DeviceClass::Mobile, "{ua}");
        }
        assert_eq!(DeviceClass::Mobile.as_str(), "mobile");
        assert_eq!(DeviceClass::Pc.as_str(), "pc");
    }
}
