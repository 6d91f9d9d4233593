//! Requests the server makes to an address a user gave it (a photo by its URL, a webhook): only
//! where [`Reach`] allows, to the address that was checked, never following a redirect, so that
//! such an address cannot reach the server's own network (server-side request forgery).

use std::time::Duration;

/// Where the server may send a request on a user's behalf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// `https` on the public internet only (staging and production).
    Public,
    /// This machine only, `http` too: development, the demo and the tests, whose stand-in peers
    /// are local, and which send nothing off the machine.
    Loopback,
}

impl Reach {
    /// The reach of an environment.
    pub fn of(env: crate::config::Env) -> Reach {
        if env == crate::config::Env::Development { Reach::Loopback } else { Reach::Public }
    }
}

/// What development says of an address off this machine.
const LOOPBACK_ONLY: &str = "开发环境只能使用本机地址";

/// A client bound to the one address `url` may be sent to, and the parsed URL; or the Chinese
/// reason it may not, `what` naming the address in it (图片地址, 推送地址). With [`Reach::Public`]
/// only `https` addresses whose every DNS answer is on the public internet
/// (`domain::net::is_public`) pass; the client connects to the address checked (a second lookup
/// cannot answer another), waits at most `wait`, and follows no redirect.
pub async fn pinned(url: &str, reach: Reach, what: &str, wait: Duration) -> Result<(reqwest::Client, reqwest::Url), String> {
    let say = |m: &str| Err(format!("{what}{m}"));
    let Ok(parsed) = reqwest::Url::parse(url.trim()) else { return say("不是有效的网址") };
    match parsed.scheme() {
        "https" => {}
        "http" if reach == Reach::Loopback => {}
        _ => return say("须以 https:// 开头"),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return say("不能包含用户名或密码");
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let Some(host) = parsed.host_str().map(str::to_owned) else { return say("不是有效的网址") };
    let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>();
    // Development asks no name server: a name other than localhost is not this machine.
    if reach == Reach::Loopback && literal.is_err() && !host.eq_ignore_ascii_case("localhost") {
        return Err(LOOPBACK_ONLY.to_owned());
    }
    let addrs: Vec<std::net::SocketAddr> = match literal {
        Ok(ip) => vec![(ip, port).into()],
        Err(_) => match tokio::time::timeout(Duration::from_secs(3), tokio::net::lookup_host((host.as_str(), port))).await {
            Ok(Ok(a)) => a.collect(),
            _ => return say("的域名无法解析"),
        },
    };
    let Some(first) = addrs.first().copied() else { return say("的域名无法解析") };
    match reach {
        Reach::Public if addrs.iter().any(|a| !domain::net::is_public(a.ip())) => return say("指向内部网络，不能使用"),
        Reach::Loopback if addrs.iter().any(|a| !a.ip().is_loopback()) => return Err(LOOPBACK_ONLY.to_owned()),
        _ => {}
    }
    let client = reqwest::Client::builder()
        .timeout(wait)
        .connect_timeout(Duration::from_secs(3))
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&host, first)
        .build()
        .map_err(|_| format!("{what}暂时无法连接，请稍后重试"))?;
    Ok((client, parsed))
}
