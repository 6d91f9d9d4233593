//! Brief overview: the pure rules of 二手车网, with no I/O.
//!
//! Everything here is a function of its inputs: the clock is passed in, nothing reads files,
//! the network or a database. The web server and the store build on these types.
//!
//! ```
//! use domain::validate::Mobile;
//! assert!(Mobile::parse("13812345678").is_ok());
//! assert_eq!(domain::time::relative(1_000, 1_000 + 3 * 3600), "3小时前");
//! ```

/// Declares an enum whose values are kept as text (a state, role, kind): `ALL` in declaration
/// order, `parse` (strict: a text that spells no value is `None`, never a default) and `as_str`
/// (the stored form), and `label` (what people read) when every value names one.
///
/// ```
/// domain::stored_enum! {
///     /// A light.
///     pub enum Light { Red = "red" => "红灯", Green = "green" => "绿灯" }
/// }
/// assert_eq!(Light::parse("red"), Some(Light::Red));
/// assert_eq!(Light::parse("Red"), None);
/// assert_eq!(Light::Green.as_str(), "green");
/// assert_eq!(Light::Green.label(), "绿灯");
/// assert_eq!(Light::ALL, [Light::Red, Light::Green]);
/// ```
#[macro_export]
macro_rules! stored_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $var:ident = $stored:literal => $label:literal),+ $(,)? }
    ) => {
        $crate::stored_enum! { $(#[$meta])* $vis enum $name { $($(#[$vmeta])* $var = $stored),+ } }
        impl $name {
            /// What people read.
            pub fn label(self) -> &'static str {
                match self { $($name::$var => $label),+ }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $var:ident = $stored:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$vmeta])* $var),+ }
        impl $name {
            /// Every value, in the order declared.
            pub const ALL: [$name; [$($stored),+].len()] = [$($name::$var),+];

            /// Reads a stored value.
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($stored => Some($name::$var),)+ _ => None }
            }

            /// The stored form.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $stored),+ }
            }
        }
        impl ::core::str::FromStr for $name {
            type Err = ();

            /// The value its stored form spells (as a form or query sends it).
            fn from_str(text: &str) -> Result<$name, ()> {
                $name::parse(text).ok_or(())
            }
        }
    };
}

/// A set of a [`stored_enum!`]'s values (a key's scopes, a webhook's events), one bit each in
/// the enum's order: `of`, `has`, `is_empty`, `list` (in that order), `labels` (joined with
/// 、), and `from_parts` for the type's own stored form to read its parts with.
macro_rules! bit_set {
    ($(#[$meta:meta])* $vis:vis struct $name:ident of $member:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        $vis struct $name(u8);

        const _: () = assert!($member::ALL.len() <= 8, "a bit set holds eight values");

        impl $name {
            fn bit(m: $member) -> u8 {
                1 << $member::ALL.iter().position(|x| *x == m).unwrap_or(0)
            }

            /// The set of `list`.
            pub fn of(list: &[$member]) -> $name {
                $name(list.iter().fold(0, |acc, m| acc | $name::bit(*m)))
            }

            /// Whether `m` is in the set.
            pub fn has(self, m: $member) -> bool {
                self.0 & $name::bit(m) != 0
            }

            /// Whether the set is empty.
            pub fn is_empty(self) -> bool {
                self.0 == 0
            }

            /// The values in the set, in the enum's order.
            pub fn list(self) -> Vec<$member> {
                $member::ALL.into_iter().filter(|m| self.has(*m)).collect()
            }

            /// What people read: the labels joined with 、.
            pub fn labels(self) -> String {
                self.list().iter().map(|m| m.label()).collect::<Vec<_>>().join("、")
            }

            /// The set of `parts`, each a stored value; `None` when one is not, or none is given.
            fn from_parts<'a>(parts: impl Iterator<Item = &'a str>) -> Option<$name> {
                let mut set = $name::default();
                for part in parts {
                    set = $name(set.0 | $name::bit($member::parse(part)?));
                }
                (!set.is_empty()).then_some(set)
            }
        }
    };
}
pub(crate) use bit_set;

pub mod alert;
pub mod appeal;
pub mod appraisal;
pub mod attribution;
pub mod audio;
pub mod auth;
pub mod battery;
pub mod catalog;
pub mod cost;
pub mod csv;
pub mod damage;
pub mod dealer_api;
pub mod desk;
pub mod device;
pub mod disclosure;
pub mod filter;
pub mod image;
pub mod inspection;
pub mod insurance;
pub mod lead;
pub mod legal;
pub mod limit;
pub mod live;
pub mod loan;
pub mod message;
pub mod money;
pub mod moving;
pub mod net;
pub mod odometer;
pub mod order;
pub mod origin;
pub mod package;
pub mod payout;
pub mod plate;
pub mod programme;
pub mod purchase;
pub mod region;
pub mod report;
pub mod reservation;
pub mod review;
pub mod rng;
pub mod search;
pub mod selling;
pub mod service;
pub mod shop;
pub mod stats;
pub mod stock_feed;
pub mod stock_import;
pub mod text;
pub mod time;
pub mod understand;
pub mod validate;
pub mod valuation;
pub mod vip;
pub mod webhook;
