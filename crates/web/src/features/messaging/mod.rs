//! Talking about a car without giving a number (在线咨询): a signed-in buyer asks a car's seller
//! from the car's page; each thread is a page with a reply form that works without JavaScript;
//! 我的消息 lists a user's threads as a buyer and as a seller, with what they have not read. A
//! phone number or WeChat id in a message is hidden from the other side until both sides have
//! written (`domain::message`); writing is limited per account. A notice of a new message links
//! into its thread, signing its user in once (`links`).

pub mod links;
mod threads;

use crate::http::routes::Routes;

/// The routes of this feature.
pub fn routes(r: &mut Routes) {
    threads::routes(r);
    links::routes(r);
}
