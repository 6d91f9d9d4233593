//! The visitor as every page handler sees it (`Visitor`), and what it is read from: the device
//! class, the device id and signed-in user the `auth` middleware put in the request, the chosen
//! city, the peer address, and whether the request is a prefetch.

use std::convert::Infallible;

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, header};
use axum::middleware::Next;
use axum::response::Response;
use domain::device::Device;

use crate::http::cookies::{CITY_COOKIE, DEVICE_COOKIE, cookie, valid_device_id};

/// The signed-in user of a request, put in its extensions by the `auth` middleware (handlers
/// read it through [`Visitor::user`]).
#[derive(Debug, Clone, Default)]
pub struct CurrentUser(pub Option<store::User>);

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

/// The outermost layer: classifies the User-Agent once, for every layer and handler after it
/// (the request log, the response cache's key, the session, the visitor, the error page).
pub async fn classify_device(mut req: Request, next: Next) -> Response {
    let device = device_of(req.headers());
    req.extensions_mut().insert(device);
    next.run(req).await
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

/// The peer's IP address as the socket saw it (empty in in-process tests without one).
pub fn peer_ip(extensions: &Extensions) -> String {
    extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip().to_string()).unwrap_or_default()
}
