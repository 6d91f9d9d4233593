//! The middleware of every request: the route middleware of each access level (the session for
//! every page, then the sign-in or role it needs), the security headers and the request log.

use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::attribution::Attribution;
use domain::auth::Role;

use crate::auth::access::{self, Need};
use crate::auth::session::TOKEN_HEADER;
use crate::http::cache;
use crate::http::cookies::{ATTRIBUTION_COOKIE, CITY_COOKIE, DEVICE_COOKIE, cookie, set_cookie, valid_device_id};
use crate::http::error::AppError;
use crate::http::routes::Access;
use crate::http::visitor::{CurrentUser, DeviceId, Unread, device_in, peer_ip};
use crate::state::AppState;

/// The route middleware of an access level (every level but [`Access::Plain`], which has
/// none): the visitor's device id, how the visit arrived and the session bootstrap, then the
/// sign-in or role the level needs, refused before the handler runs. The level is a type, so a
/// route cannot name a middleware that does not exist.
pub fn route_middleware(
    state: AppState,
    access: Access,
) -> impl Fn(Request, Next) -> std::pin::Pin<Box<dyn Future<Output = Response> + Send>> + Clone + Send + Sync + 'static {
    let required = match access {
        Access::Public | Access::Plain | Access::DealerKey => None,
        Access::User => Some(Need::User),
        Access::Dealer => Some(Need::Role(Role::Dealer)),
        Access::Staff => Some(Need::Role(Role::Staff)),
    };
    move |mut req: Request, next: Next| {
        let state = state.clone();
        Box::pin(async move {
            let mut cookies: Vec<HeaderValue> = Vec::new();
            let id = match cookie(req.headers(), DEVICE_COOKIE).filter(|v| valid_device_id(v)) {
                Some(v) => v.to_owned(),
                None => {
                    let id = match state.random_id() {
                        Ok(id) => id,
                        Err(e) => return AppError::from(e).into_response(),
                    };
                    cookies.extend(set_cookie(&state.config, DEVICE_COOKIE, &id, true));
                    id
                }
            };
            // How the visit arrived, first touch: the landing that carries campaign
            // parameters keeps them in a cookie for the rest of the visit. Read once
            // here; the `Visitor` takes it from the request.
            let mut landing_cookie = false;
            let arrived = crate::http::cookies::attribution(req.headers()).or_else(|| {
                let landed = landing(&state, req.uri())?;
                let set = crate::http::cookies::set_visit_cookie(&state.config, ATTRIBUTION_COOKIE, &landed.encode());
                landing_cookie = set.is_some();
                cookies.extend(set);
                Some(landed)
            });
            if let Some(a) = arrived {
                req.extensions_mut().insert(a);
            }
            let device = device_in(req.extensions(), req.headers());
            let ip = peer_ip(req.extensions());
            let query = req.uri().query().unwrap_or("").to_owned();
            let boot = match crate::auth::session::bootstrap(&state, req.headers(), &query, &device, Some(&id), &ip).await {
                Ok(boot) => boot,
                Err(e) => return e.into_response(),
            };
            cookies.extend(boot.cookies);
            req.extensions_mut().insert(DeviceId(id));
            // A signed-in user's pages show how many messages wait (the header's 我的); a
            // failure to count leaves the badge out, never the page. Not counted for what is no
            // page: the API, and requests that ask for JSON only (a live thread's polls).
            if let Some(u) = boot.user.as_ref().filter(|_| req.method() == Method::GET && is_page_request(&req)) {
                let unread = state.store.unread_messages(u.user_id).await.unwrap_or(0);
                req.extensions_mut().insert(Unread(unread));
            }
            req.extensions_mut().insert(CurrentUser(boot.user));
            if let Some(required) = required {
                let user = req.extensions().get::<CurrentUser>().and_then(|c| c.0.as_ref());
                if let Err(signed_in) = access::check(user, required) {
                    let mut res = if !signed_in && req.method() == Method::POST && !crate::http::envelope::is_api(req.uri().path()) {
                        resumable_refusal(&state, req).await
                    } else {
                        access::refusal(&state, req.method(), req.uri(), req.headers(), device_in(req.extensions(), req.headers()), signed_in, required)
                    };
                    append_cookies(&mut res, cookies);
                    return res;
                }
            }
            let signed_in = req.extensions().get::<CurrentUser>().is_some_and(|c| c.0.is_some());
            let mut res = next.run(req).await;
            // The landing's cookie is this layer's, made from the address alone, unless the
            // handler set its own (an ad landing recording its click): only then may the
            // response cache keep the page and make the cookie again for the next visitor.
            if landing_cookie && !sets_cookie(&res, ATTRIBUTION_COOKIE) {
                res.extensions_mut().insert(LandingCookie);
            }
            append_cookies(&mut res, cookies);
            if signed_in {
                // A page for one person is never kept by a shared cache.
                res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
            }
            res
        })
    }
}

/// The login form for a signed-out visitor's POST: when the post is an action that can wait for
/// sign-in (`resume::Pending`), the form says why and signing in finishes it; otherwise the plain
/// login form returning to the page the post came from.
async fn resumable_refusal(state: &AppState, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let Some(pending) = crate::auth::resume::Pending::from_post(parts.uri.path(), &bytes) else {
        return access::refusal(state, &parts.method, &parts.uri, &parts.headers, device_in(&parts.extensions, &parts.headers), false, Need::User);
    };
    // Back to the form's own `return` field (a list's card: at the card), else the page the
    // form was on.
    let back = form_urlencoded::parse(&bytes)
        .find(|(k, v)| k == "return" && v.starts_with('/'))
        .map(|(_, v)| match &pending {
            crate::auth::resume::Pending::Favourite(id) => crate::render::card::back_at_card(&domain::auth::safe_return(&v), *id),
            crate::auth::resume::Pending::SaveSearch(_) => domain::auth::safe_return(&v).into_owned(),
        })
        .or_else(|| crate::auth::signin::referer_path(state, &parts.headers))
        .unwrap_or_else(|| "/".to_owned());
    let device = crate::http::visitor::device_id_of(&parts.headers, &parts.extensions).unwrap_or_default();
    let form = crate::auth::resume::login_form(state, &device, &pending, &back);
    crate::auth::signin::login_page(state, device_in(&parts.extensions, &parts.headers), form, StatusCode::UNAUTHORIZED)
        .unwrap_or_else(IntoResponse::into_response)
}

/// Adds the middleware's cookies to a response, except those the handler set or cleared itself:
/// the handler's word is final, so a sign-out that clears the session cookies never also carries
/// the token the bootstrap minted for the same request.
fn append_cookies(res: &mut Response, cookies: Vec<HeaderValue>) {
    let own: Vec<Vec<u8>> = res.headers().get_all(header::SET_COOKIE).iter().filter_map(|v| cookie_name(v.as_bytes()).map(<[u8]>::to_vec)).collect();
    for v in cookies {
        if cookie_name(v.as_bytes()).is_some_and(|name| own.iter().any(|o| o == name)) {
            continue;
        }
        res.headers_mut().append(header::SET_COOKIE, v);
    }
}

/// The attribution of a landing at `uri` now, from its campaign parameters (first touch).
fn landing(state: &AppState, uri: &Uri) -> Option<Attribution> {
    let query = uri.query().filter(|q| !q.is_empty())?;
    let pairs: Vec<_> = form_urlencoded::parse(query.as_bytes()).collect();
    Attribution::from_query(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())), uri.path(), state.clock.now())
}

/// Marks a response whose attribution cookie the route middleware made from the address alone.
#[derive(Debug, Clone, Copy)]
struct LandingCookie;

/// Whether a response sets the cookie `name`.
fn sets_cookie(res: &Response, name: &str) -> bool {
    res.headers().get_all(header::SET_COOKIE).iter().any(|v| cookie_name(v.as_bytes()) == Some(name.as_bytes()))
}

/// The name of a `Set-Cookie` value (before its `=`).
fn cookie_name(v: &[u8]) -> Option<&[u8]> {
    v.iter().position(|&b| b == b'=').map(|i| &v[..i])
}

/// One structured log line per request.
pub async fn log_request<F: Future<Output = Response>>(req: Request, next: impl FnOnce(Request) -> F) -> Response {
    if !tracing::enabled!(target: "http", tracing::Level::INFO) {
        // Logging at warn (as under load): nothing to gather.
        return next(req).await;
    }
    let start = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let route = req.extensions().get::<MatchedPath>().cloned();
    let device = device_in(req.extensions(), req.headers()).class.as_str();
    let res = next(req).await;
    log_line(&method, &path, route.as_ref(), res.status(), start, device);
    res
}

/// The request log's line.
fn log_line(method: &Method, path: &str, route: Option<&MatchedPath>, status: StatusCode, start: Instant, device: &str) {
    tracing::info!(
        target: "http",
        method = %method,
        path = %path,
        route = route.map_or("", MatchedPath::as_str),
        status = status.as_u16(),
        duration_ms = start.elapsed().as_secs_f64() * 1000.0,
        device,
        "request"
    );
}

/// The headers every response carries ([`secure`]).
pub async fn security_headers<F: Future<Output = Response>>(state: &AppState, req: Request, next: impl FnOnce(Request) -> F) -> Response {
    let mut res = next(req).await;
    secure(state, res.headers_mut());
    res
}

/// The headers every response carries, where the handler set none of its own.
fn secure(state: &AppState, h: &mut HeaderMap) {
    if state.config.secure_cookies() {
        // Served over HTTPS outside development: browsers keep to HTTPS for a year.
        h.entry(header::STRICT_TRANSPORT_SECURITY).or_insert(HeaderValue::from_static("max-age=31536000; includeSubDomains"));
    }
    h.entry(header::CONTENT_SECURITY_POLICY).or_insert(state.csp.clone());
    h.entry("cross-origin-resource-policy").or_insert(HeaderValue::from_static("same-origin"));
    h.entry("x-content-type-options").or_insert(HeaderValue::from_static("nosniff"));
    h.entry("referrer-policy").or_insert(HeaderValue::from_static("strict-origin-when-cross-origin"));
    h.entry("x-frame-options").or_insert(HeaderValue::from_static("DENY"));
    if h.get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"text/html")) {
        h.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-cache"));
    }
}

/// What cookies of a visit a request served from the cache carries: a returning visitor's
/// device id, and the visit's attribution (neither in the key: a page served from the cache
/// shows neither; each is kept, not made again, when the request has it).
#[derive(Debug, Clone, Copy, Default)]
struct Carried {
    device: bool,
    attribution: bool,
}

/// The cache key of a request and the visit's cookies it carries, or `None` when it must not be
/// served from the cache.
fn key_of(req: &Request) -> Option<(String, Carried)> {
    if req.method() != Method::GET {
        return None;
    }
    let path = req.uri().path();
    if cache::PRIVATE_PREFIXES.iter().any(|p| path.starts_with(p)) {
        return None;
    }
    let query = req.uri().query().unwrap_or("");
    if query.contains("appToken") {
        return None;
    }
    // A request out of proportion is refused (`shape`), never answered from the cache.
    if crate::http::shape::outsized(req).is_some() {
        return None;
    }
    let headers = req.headers();
    if headers.contains_key(TOKEN_HEADER) {
        return None;
    }
    let (mut city, mut carried) = ("", Carried::default());
    for pair in headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(';')) {
        match pair.trim().split_once('=') {
            Some((CITY_COOKIE, v)) => city = v,
            Some((DEVICE_COOKIE, v)) if valid_device_id(v) => carried.device = true,
            Some((ATTRIBUTION_COOKIE, _)) => carried.attribution = true,
            Some((_, _)) => return None,
            None if pair.trim().is_empty() => {}
            None => return None,
        }
    }
    let device = device_in(req.extensions(), headers);
    // Pushed piece by piece into one buffer: `format!` with the URI's `Display` cost about 1,800
    // instructions a request (callgrind), on every page served from the cache.
    let uri = req.uri();
    let flag = |on: bool| if on { "1" } else { "0" };
    let mut key = String::with_capacity(64 + city.len() + uri.path().len() + uri.query().map_or(0, str::len));
    for part in [cache::encoding(headers), "|", device.class.as_str(), flag(device.wechat), flag(device.douyin), "|", city, "|"] {
        key.push_str(part);
    }
    // The URI as its `Display` writes it.
    if let Some(scheme) = uri.scheme_str() {
        key.push_str(scheme);
        key.push_str("://");
    }
    key.push_str(uri.authority().map_or("", |a| a.as_str()));
    key.push_str(uri.path());
    if let Some(query) = uri.query() {
        key.push('?');
        key.push_str(query);
    }
    Some((key, carried))
}

/// The response cache (see [`crate::http::cache`]) as a step of the stack (`lib::outer_steps`).
pub async fn response_cache<F: Future<Output = Response>>(state: &AppState, mut req: Request, next: impl FnOnce(Request) -> F) -> Response {
    let cache = &state.cache;
    let key = cache.ttl().and_then(|ttl| Some((ttl, key_of(&req)?)));
    let Some((ttl, key)) = key else {
        let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
        let res = next(req).await;
        if write && (res.status().is_success() || res.status().is_redirection()) {
            cache.clear();
            state.counts.clear();
        }
        return res;
    };
    let (key, carried) = key;
    let refresh = match cache.lookup(&key, ttl) {
        cache::Lookup::Kept(entry, how) if entry.for_returning() || !carried.device => return respond(state, &req, entry, how, carried),
        // The page does something with a returning visitor's device id: rendered for them.
        cache::Lookup::Kept(..) => return next(req).await,
        cache::Lookup::Render(refresh) => refresh,
    };
    let enc = cache::encoding(req.headers());
    req.headers_mut().insert(header::ACCEPT_ENCODING, HeaderValue::from_static(enc));
    let (began, generation) = (Instant::now(), cache.generation());
    let route = req.extensions().get::<MatchedPath>().cloned();
    let res = next(req).await;
    // Its only cookies are the device id and the landing's attribution as the route middleware
    // made them, both made again for each visitor it is served to.
    let landing_made = res.extensions().get::<LandingCookie>().is_some();
    let device_blind = res.extensions().get::<cache::DeviceBlind>().is_some();
    let view_of = res.extensions().get::<cache::ViewOf>().map(|v| v.0);
    let keep = res.status() == StatusCode::OK
        && res.headers().get_all(header::SET_COOKIE).iter().all(|c| match cookie_name(c.as_bytes()) {
            Some(name) if name == DEVICE_COOKIE.as_bytes() => true,
            Some(name) => landing_made && name == ATTRIBUTION_COOKIE.as_bytes(),
            None => false,
        })
        && !res.headers().get(header::CACHE_CONTROL).is_some_and(|v| v.to_str().unwrap_or("").contains("no-store"));
    if !keep {
        return res;
    }
    let (parts, body) = res.into_parts();
    let Ok(body) = axum::body::to_bytes(body, cache::MAX_BODY).await else {
        // Larger than any page we make; what was read is gone, so the visitor is asked to retry.
        tracing::warn!(max = cache::MAX_BODY, "page too large for the response cache");
        let mut res = Response::new(Body::from("页面暂时无法显示，请刷新重试"));
        *res.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        return res;
    };
    let mut headers = parts.headers.clone();
    headers.remove(header::SET_COOKIE);
    let entry = cache::Entry { at: began, status: parts.status, headers, body: body.clone(), route, device_blind, view_of };
    cache.put(key, entry, ttl, generation);
    drop(refresh);
    let mut res = Response::from_parts(parts, Body::from(body));
    res.headers_mut().insert("x-cache", HeaderValue::from_static("miss"));
    res
}

/// A kept page (`x-cache`: `hit`, or `stale` while another request renews it).
fn respond(state: &AppState, req: &Request, e: cache::Entry, how: &'static str, carried: Carried) -> Response {
    let uri = req.uri();
    // A returning visitor's view of a car is kept in their history, as the car's page does.
    if let Some(listing_id) = e.view_of
        && let Some(device_id) = cookie(req.headers(), DEVICE_COOKIE).filter(|v| valid_device_id(v))
        && !crate::http::visitor::is_prefetch(req.headers())
    {
        let ip = crate::http::visitor::client_ip(req.extensions(), req.headers(), &state.config.proxy.trusted);
        state.views.record(ip, store::ViewEvent { device_id: device_id.to_owned(), user_id: None, listing_id, viewed_at: state.clock.now() });
    }
    let mut res = Response::new(Body::from(e.body));
    *res.status_mut() = e.status;
    *res.headers_mut() = e.headers;
    // A first visit gets its own device id, as the route middleware would have issued.
    // Without randomness the visit goes on without a device id (it gets one on a later page).
    if !carried.device
        && let Ok(id) = state.random_id()
        && let Some(c) = set_cookie(&state.config, DEVICE_COOKIE, &id, true)
    {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    // A landing with campaign parameters keeps them for the visit, as the route middleware does:
    // the first touch, unless the visit has one.
    if !carried.attribution
        && let Some(a) = landing(state, uri)
        && let Some(c) = crate::http::cookies::set_visit_cookie(&state.config, ATTRIBUTION_COOKIE, &a.encode())
    {
        res.headers_mut().append(header::SET_COOKIE, c);
    }
    res.headers_mut().insert("x-cache", HeaderValue::from_static(how));
    res
}

/// The response cache's front door, before routing: a page the cache holds (fresh, or expired
/// while another request renews it) is answered here with the headers and log line the stack
/// would have given it, without routing the request or running a layer; anything else goes on
/// to the router, whose [`response_cache`] layer renders, renews and keeps pages. Every layer
/// the request skips is one a kept page does not need: its key already names the device class,
/// the encoding and the city, and a request out of proportion has no key.
#[derive(Clone)]
pub struct CachedPages {
    state: AppState,
    inner: axum::Router,
}

impl CachedPages {
    pub fn new(state: AppState, inner: axum::Router) -> CachedPages {
        CachedPages { state, inner }
    }

    /// The kept page for `req`, if any.
    fn kept(&self, req: &Request) -> Option<Response> {
        let cache = &self.state.cache;
        let ttl = cache.ttl()?;
        let start = Instant::now();
        let (key, carried) = key_of(req)?;
        let (entry, how) = cache.peek(&key, ttl)?;
        if carried.device && !entry.for_returning() {
            return None;
        }
        let route = entry.route.clone();
        let mut res = respond(&self.state, req, entry, how, carried);
        secure(&self.state, res.headers_mut());
        if tracing::enabled!(target: "http", tracing::Level::INFO) {
            log_line(req.method(), req.uri().path(), route.as_ref(), res.status(), start, device_in(req.extensions(), req.headers()).class.as_str());
        }
        Some(res)
    }
}

impl tower::Service<Request> for CachedPages {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = Served;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Served {
        match self.kept(&req) {
            Some(res) => Served::Kept(Some(res)),
            None => Served::Routed(tower::Service::call(&mut self.inner, req)),
        }
    }
}

/// The answer of [`CachedPages`]: a kept page at once, or the router's.
pub enum Served {
    Kept(Option<Response>),
    Routed(axum::routing::future::RouteFuture<std::convert::Infallible>),
}

impl Future for Served {
    type Output = Result<Response, std::convert::Infallible>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        match self.get_mut() {
            Served::Kept(res) => std::task::Poll::Ready(Ok(res.take().unwrap_or_default())),
            Served::Routed(routed) => std::pin::Pin::new(routed).poll(cx),
        }
    }
}

/// Whether a GET asks for a page: not the API, and not a request whose `Accept` names JSON
/// without HTML (a script's fetch).
fn is_page_request(req: &Request) -> bool {
    let accept = req.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    let json_only = accept.contains("json") && !accept.contains("text/html");
    !crate::http::envelope::is_api(req.uri().path()) && !json_only
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, accept: Option<&str>) -> Request {
        let mut b = Request::builder().uri(path);
        if let Some(a) = accept {
            b = b.header(header::ACCEPT, a);
        }
        b.body(Body::empty()).unwrap_or_default()
    }

    #[test]
    fn a_cache_key_names_the_encoding_the_device_the_city_and_the_uri() {
        for (uri, cookie) in [("/carlist?brand=dazhong&sort=age", "hx_city=changsha"), ("/details/195", ""), ("http://a.example/x?y=1", ""), ("/", "hx_city=")]
        {
            let mut req =
                Request::builder().uri(uri).header(header::ACCEPT_ENCODING, "gzip").header(header::USER_AGENT, "Mozilla/5.0 (iPhone) MicroMessenger/8.0");
            if !cookie.is_empty() {
                req = req.header(header::COOKIE, cookie);
            }
            let req = req.body(Body::empty()).unwrap_or_default();
            let city = cookie.strip_prefix("hx_city=").unwrap_or("");
            let (key, _) = key_of(&req).unwrap_or_else(|| panic!("{uri}: not kept"));
            assert_eq!(key, format!("{}|mobile10|{city}|{}", cache::encoding(req.headers()), req.uri()), "{uri}");
        }
    }

    #[test]
    fn only_pages_count_unread_messages() {
        assert!(is_page_request(&get("/space", None)));
        assert!(is_page_request(&get("/space", Some("text/html,application/xhtml+xml,*/*;q=0.8"))));
        assert!(!is_page_request(&get("/space/messages/7/since?after=3", Some("application/json"))), "a live thread's poll");
        assert!(!is_page_request(&get("/api/buycar-api/user/info", None)));
    }
}
