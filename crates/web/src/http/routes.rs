//! The routes' table: every feature module adds its routes to one [`Routes`] (its `routes`
//! function), each route naming who may use it ([`Access`], which picks its route middleware)
//! and, where a large body is expected, its body limit. [`Routes::inventory`] lists every method
//! and path; `crates/web/tests/routes.txt` is its snapshot, so a route added or removed is a
//! visible diff. It lives below the features, which add to it, and the router, which gathers
//! them (`router::all`), so neither imports the other's way back.

use std::collections::BTreeMap;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::routing::MethodRouter;

use crate::state::AppState;

/// Who may use a route: the route middleware it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    /// Anyone: `auth`, the specification's default route middleware (the session, no sign-in needed).
    Public,
    /// A signed-in user: `auth`, `user`; anonymous visitors get the login form (401).
    User,
    /// A user who owns a shop: `auth`, `user`, `dealer`.
    Dealer,
    /// Reviewers and consultants: `auth`, `user`, `staff`; others get 403, anonymous visitors the
    /// login form.
    Staff,
    /// No route middleware and no session: the API, providers' notifies, files and sitemaps,
    /// which answer for themselves.
    Plain,
    /// The dealer API: no session; a shop's API key (`Authorization: Bearer`), counted against
    /// its limit, every call logged with the key.
    DealerKey,
}

impl Access {
    /// Its name in the inventory.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Public => "public",
            Access::User => "user",
            Access::Dealer => "dealer",
            Access::Staff => "staff",
            Access::Plain => "plain",
            Access::DealerKey => "key",
        }
    }
}

/// One path: who may use it, its methods, its body limit and its handlers.
struct Entry {
    access: Access,
    methods: Vec<&'static str>,
    limit: Option<usize>,
    router: MethodRouter<AppState>,
}

/// Every route of the site, as the feature modules add them.
#[derive(Default)]
pub struct Routes {
    entries: BTreeMap<&'static str, Entry>,
}

impl Routes {
    fn add(&mut self, access: Access, path: &'static str, method: &'static str, router: MethodRouter<AppState>) -> &mut Self {
        match self.entries.remove(path) {
            Some(e) => {
                assert_eq!(e.access, access, "{path}: every method of a path has the same access");
                assert!(!e.methods.contains(&method), "{path}: {method} added twice");
                let mut methods = e.methods;
                methods.push(method);
                self.entries.insert(path, Entry { access, methods, limit: e.limit, router: e.router.merge(router) });
            }
            None => {
                self.entries.insert(path, Entry { access, methods: vec![method], limit: None, router });
            }
        }
        self
    }

    /// `GET` (and `HEAD`) of `path`.
    pub fn get<H: Handler<T, AppState>, T: 'static>(&mut self, access: Access, path: &'static str, handler: H) -> &mut Self {
        self.add(access, path, "GET", axum::routing::get(handler))
    }

    /// `POST` to `path`.
    pub fn post<H: Handler<T, AppState>, T: 'static>(&mut self, access: Access, path: &'static str, handler: H) -> &mut Self {
        self.add(access, path, "POST", axum::routing::post(handler))
    }

    /// `PATCH` of `path`.
    pub fn patch<H: Handler<T, AppState>, T: 'static>(&mut self, access: Access, path: &'static str, handler: H) -> &mut Self {
        self.add(access, path, "PATCH", axum::routing::patch(handler))
    }

    /// `PUT` of `path`.
    pub fn put<H: Handler<T, AppState>, T: 'static>(&mut self, access: Access, path: &'static str, handler: H) -> &mut Self {
        self.add(access, path, "PUT", axum::routing::put(handler))
    }

    /// `DELETE` of `path`.
    pub fn delete<H: Handler<T, AppState>, T: 'static>(&mut self, access: Access, path: &'static str, handler: H) -> &mut Self {
        self.add(access, path, "DELETE", axum::routing::delete(handler))
    }

    /// Every method of `path`.
    pub fn any<H: Handler<T, AppState>, T: 'static>(&mut self, access: Access, path: &'static str, handler: H) -> &mut Self {
        self.add(access, path, "ANY", axum::routing::any(handler))
    }

    /// The largest body `path` takes (axum's default is 2 MB).
    pub fn limit(&mut self, path: &'static str, bytes: usize) -> &mut Self {
        let entry = self.entries.get_mut(path).unwrap_or_else(|| panic!("{path}: a limit for a route not added"));
        entry.limit = Some(bytes);
        self
    }

    /// Every method and path with its access level and body limit, one line each, by path.
    pub fn inventory(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|(path, e)| {
                let limit = e.limit.map_or(String::new(), |b| format!("  limit {} KiB", b / 1024));
                format!("{:<9} {:<7} {path}{limit}", e.methods.join(","), e.access.as_str())
            })
            .collect()
    }

    /// The router: the routes of each access level under the layer `guard` gives it (the route
    /// middleware of [`Access::middleware`]; the router supplies it, as it lives above `http`).
    pub fn build(self, guard: impl Fn(Access, Router<AppState>) -> Router<AppState>) -> Router<AppState> {
        let mut groups: BTreeMap<Access, Router<AppState>> = BTreeMap::new();
        for (path, e) in self.entries {
            let router = match e.limit {
                Some(bytes) => e.router.layer(DefaultBodyLimit::max(bytes)),
                None => e.router,
            };
            let group = groups.remove(&e.access).unwrap_or_default();
            groups.insert(e.access, group.route(path, router));
        }
        groups.into_iter().fold(Router::new(), |app, (access, group)| app.merge(guard(access, group)))
    }
}
