//! The visitor as every page handler sees it (`Visitor`), and what it is read from: the device
//! class, the device id and signed-in user the `auth` middleware put in the request, the chosen
//! city, the peer address, and whether the request is a prefetch.

use std::convert::Infallible;

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, header};
use domain::attribution::Attribution;
use domain::device::Device;

use crate::config::Cidr;
use crate::http::cookies::{CITY_COOKIE, DEVICE_COOKIE, cookie, valid_device_id};
use crate::state::AppState;

/// The signed-in user of a request, put in its extensions by the `auth` middleware (handlers
/// read it through [`Visitor::user`]).
#[derive(Debug, Clone, Default)]
pub struct CurrentUser(pub Option<store::User>);

/// How many messages the signed-in user has not read, put in a page request's extensions by the
/// `auth` middleware (the header's 我的 shows it).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unread(pub i64);

/// The device class of a request, from its User-Agent: what [`classify_device`] does once per
/// request; elsewhere read it with [`device_in`] or [`RequestDevice`].
fn device_of(headers: &HeaderMap) -> Device {
    Device::from_user_agent(headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or(""))
}

/// The device class [`classify_device`] put in the request (classified here only for a request
/// that did not pass that layer, such as a test calling a handler's pieces directly).
pub fn device_in(extensions: &Extensions, headers: &HeaderMap) -> Device {
    extensions.get::<Device>().copied().unwrap_or_else(|| device_of(headers))
}

/// The device class of a request for a handler that needs no more of the [`Visitor`]: the one
/// [`classify_device`] found.
#[derive(Debug, Clone, Copy)]
pub struct RequestDevice(pub Device);

impl<S: Send + Sync> FromRequestParts<S> for RequestDevice {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<RequestDevice, Infallible> {
        Ok(RequestDevice(device_in(&parts.extensions, &parts.headers)))
    }
}

/// The stack's second step: classifies the User-Agent once, for every step and handler after
/// it (the request log, the response cache's key, the session, the visitor, the error page).
pub fn classify_device(req: &mut Request) {
    let device = device_of(req.headers());
    req.extensions_mut().insert(device);
}

/// The visitor as seen by every page handler.
#[derive(Debug, Clone)]
pub struct Visitor {
    /// Device class and in-app browser.
    pub device: Device,
    /// The city chosen earlier (`hx_city` cookie), as a slug.
    pub city_slug: Option<String>,
    /// The anonymous device id (`hx_did`), issued by the `auth` middleware on the first visit.
    pub device_id: Option<String>,
    /// The client's IP address as the socket saw it (empty in in-process tests).
    pub ip: String,
    /// The signed-in user, when the `auth` middleware found a session.
    pub user: Option<store::User>,
    /// The request is a prefetch (see [`is_prefetch`]), not a visit.
    pub prefetch: bool,
    /// How many cars the visitor has picked to compare (`hx_cmp`).
    pub compared: usize,
    /// The device cookie came with the request: a browser that keeps cookies and has been here
    /// before (not a first visit, crawler, link preview or load generator).
    pub returning: bool,
    /// How the visit arrived: the ad or campaign of its first landing, kept for the visit; `None`
    /// for a visit from no campaign.
    pub attribution: Option<Attribution>,
    /// Messages the signed-in user has not read (0 for anyone else).
    pub unread: i64,
}

impl Visitor {
    /// Whether the visitor is signed in as a dealer (their pages sit in the dealer centre).
    pub fn is_dealer(&self) -> bool {
        self.user.as_ref().is_some_and(|u| u.role == domain::auth::Role::Dealer)
    }

    /// Counts one `what` (a row that reading a public page may store: an ad click, a new quote
    /// request, a car for a live queue) against this visitor's address, and says whether it is
    /// within `per_hour`: an anonymous loop of requests cannot fill a table.
    pub async fn within_hourly(&self, state: &AppState, what: &str, per_hour: i64) -> Result<bool, store::DbError> {
        let key = format!("{what}:{}", limited_address(&self.ip));
        Ok(state.store.throttle(&[(key.as_str(), domain::limit::Limit::per_hour(per_hour))], state.clock.now()).await?.is_none())
    }
}

/// The key a per-address limit in the database counts for the address `ip`
/// ([`domain::limit::LimitedAddress`]);
/// text that is not an address as written (empty in in-process tests).
pub fn limited_address(ip: &str) -> String {
    match ip.parse::<IpAddr>() {
        Ok(a) => domain::limit::LimitedAddress::of(Some(a)).to_string(),
        Err(_) => ip.to_owned(),
    }
}

/// The device id of a request, put in its extensions by the `auth` route middleware.
#[derive(Debug, Clone)]
pub struct DeviceId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Visitor {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Visitor, Infallible> {
        let presented = cookie(&parts.headers, DEVICE_COOKIE).filter(|v| valid_device_id(v));
        let device_id = device_id_of(&parts.headers, &parts.extensions);
        let ip = peer_ip(&parts.extensions);
        let user = parts.extensions.get::<CurrentUser>().and_then(|c| c.0.clone());
        Ok(Visitor {
            user,
            device: device_in(&parts.extensions, &parts.headers),
            city_slug: cookie(&parts.headers, CITY_COOKIE).filter(|s| domain::region::city_by_slug(s).is_some()).map(str::to_owned),
            device_id,
            ip,
            prefetch: is_prefetch(&parts.headers),
            compared: crate::http::cookies::compared_ids(&parts.headers).len(),
            returning: presented.is_some(),
            attribution: parts.extensions.get::<Attribution>().cloned().or_else(|| crate::http::cookies::attribution(&parts.headers)),
            unread: parts.extensions.get::<Unread>().map_or(0, |u| u.0),
        })
    }
}

/// A speculative load (`<link rel=prefetch>` sends `Sec-Purpose: prefetch`, older browsers
/// `Purpose: prefetch`): pages answer it but record no visit, history or share attribution.
pub fn is_prefetch(headers: &HeaderMap) -> bool {
    ["sec-purpose", "purpose", "x-moz"].iter().any(|h| headers.get(*h).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("prefetch")))
}

/// A request's device id: the one the `auth` middleware gave it, else the valid `hx_did` cookie.
pub fn device_id_of(headers: &HeaderMap, extensions: &Extensions) -> Option<String> {
    extensions.get::<DeviceId>().map(|d| d.0.clone()).or_else(|| cookie(headers, DEVICE_COOKIE).filter(|v| valid_device_id(v)).map(str::to_owned))
}

/// The visitor's address, found once per request by [`client_address`].
#[derive(Debug, Clone)]
pub struct ClientIp(pub String);

/// The visitor's IP address: what [`client_address`] found, else the socket's peer (empty in
/// in-process tests without one).
pub fn peer_ip(extensions: &Extensions) -> String {
    match extensions.get::<ClientIp>() {
        Some(ClientIp(ip)) => ip.clone(),
        None => extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip().to_string()).unwrap_or_default(),
    }
}

/// The visitor's address for a request [`client_address`] has not seen (the response cache
/// answers before it): the same rule, from the socket's peer; `None` without one (in-process
/// tests).
pub fn client_ip(extensions: &Extensions, headers: &HeaderMap, trusted: &[Cidr]) -> Option<IpAddr> {
    match extensions.get::<ClientIp>() {
        Some(ClientIp(ip)) => ip.parse().ok(),
        None => extensions.get::<ConnectInfo<SocketAddr>>().map(|c| client_of(c.0.ip(), headers, trusted)),
    }
}

/// The stack's first step: the visitor's address, once, for the per-address limits, the log
/// and the leads: the TCP peer, or, when the peer is a trusted proxy (`proxy.trusted`), the
/// address the proxies forwarded ([`client_of`]).
pub fn client_address(state: &AppState, req: &mut Request) {
    if let Some(peer) = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()) {
        let ip = client_of(peer, req.headers(), &state.config.proxy.trusted);
        req.extensions_mut().insert(ClientIp(ip.to_string()));
    }
}

/// The visitor behind `peer`. A peer that is not a trusted proxy is the visitor, whatever its
/// headers claim. From a trusted one, `X-Forwarded-For` is read from the right (each proxy
/// appends the address it saw): the first address that is not a trusted proxy is the visitor; a
/// hop that is not an address ends the walk at the last good one. Without that header, a valid
/// `X-Real-IP`; else the peer.
pub fn client_of(peer: IpAddr, headers: &HeaderMap, trusted: &[Cidr]) -> IpAddr {
    let trusts = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !trusts(peer) {
        return peer;
    }
    let chain: Vec<&str> = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).collect();
    if chain.is_empty() {
        return headers.get("x-real-ip").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse().ok()).unwrap_or(peer);
    }
    let mut client = peer;
    for hop in chain.iter().rev() {
        let Ok(ip) = hop.trim().parse::<IpAddr>() else { break };
        client = ip;
        if !trusts(ip) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn client(peer: &str, headers: &[(&'static str, &str)]) -> String {
        let trusted: Vec<Cidr> = ["127.0.0.1", "10.0.0.0/8"].iter().map(|c| c.parse().unwrap()).collect();
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.append(*k, v.parse().unwrap());
        }
        client_of(ip(peer), &map, &trusted).to_string()
    }

    #[test]
    fn an_ipv6_address_is_limited_by_its_64() {
        assert_eq!(limited_address("203.0.113.7"), "203.0.113.7");
        assert_eq!(limited_address("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(limited_address("2001:db8:1:2::9"), "2001:db8:1:2::/64");
        assert_eq!(limited_address("2001:0db8:0001:0002:ffff:1:2:3"), "2001:db8:1:2::/64");
        assert_ne!(limited_address("2001:db8:1:3::9"), limited_address("2001:db8:1:2::9"));
        assert_eq!(limited_address(""), "");
    }

    #[test]
    fn the_visitor_is_the_peer_unless_a_trusted_proxy_forwarded_it() {
        // Straight from the internet: its headers are ignored.
        assert_eq!(client("203.0.113.7", &[("x-forwarded-for", "1.2.3.4"), ("x-real-ip", "1.2.3.4")]), "203.0.113.7");
        // Through our nginx: the address it appended.
        assert_eq!(client("127.0.0.1", &[("x-forwarded-for", "203.0.113.7")]), "203.0.113.7");
        // A visitor's forged first hop is not believed: the rightmost untrusted address is.
        assert_eq!(client("127.0.0.1", &[("x-forwarded-for", "1.2.3.4, 203.0.113.7")]), "203.0.113.7");
        // Two proxies of ours (a load balancer, then nginx), over two header lines.
        assert_eq!(client("127.0.0.1", &[("x-forwarded-for", "198.51.100.9, 10.1.2.3"), ("x-forwarded-for", "10.0.0.5")]), "198.51.100.9");
        // Garbage ends the walk at the last address that parsed.
        assert_eq!(client("127.0.0.1", &[("x-forwarded-for", "203.0.113.7, nonsense, 10.0.0.5")]), "10.0.0.5");
        assert_eq!(client("127.0.0.1", &[("x-real-ip", "203.0.113.8")]), "203.0.113.8");
        assert_eq!(client("127.0.0.1", &[("x-real-ip", "not an address")]), "127.0.0.1");
        assert_eq!(client("127.0.0.1", &[]), "127.0.0.1");
    }
}
