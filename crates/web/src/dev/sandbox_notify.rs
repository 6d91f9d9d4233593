//! `usedcar sandbox-notify --order NO`: the notify the sandbox cashier would send for a paid
//! order, signed as the provider signs it, printed as one JSON object (`url`, `headers`, `body`)
//! for a harness to post to the notify endpoint as often and as concurrently as it likes — a
//! provider retries a notify until it hears `success`, and may send it twice at once. Only with
//! the sandbox payment adapter: real providers' keys are not ours to sign with.

use domain::order::Provider;
use serde_json::json;

use crate::adapters::pay::{Checkout, Payments};

/// The notify for order `order_no` as its provider (the order's own) would post it at `now`.
pub async fn notify(store: &store::Store, payments: &Payments, order_no: &str, now: i64) -> Result<serde_json::Value, String> {
    let sandbox = payments.sandbox().ok_or("sandbox-notify needs the sandbox payment adapter (the development environment)")?;
    let order = store.order_by_no(order_no).await.map_err(|e| e.to_string())?.ok_or_else(|| format!("no order {order_no}"))?;
    if order.provider == Provider::Wechat {
        let (headers, body) = sandbox.pay_wechat(&order.order_no, order.amount_fen, now).await.map_err(|e| e.to_string())?;
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned()))
            .chain([("content-type".to_owned(), "application/json".to_owned())])
            .collect();
        return Ok(json!({ "url": "/api/pay/wechat/notify", "headers": headers, "body": body }));
    }
    let checkout = Checkout {
        order_no: order.order_no,
        subject: order.subject,
        amount_fen: order.amount_fen,
        notify_url: String::new(),
        return_url: String::new(),
        phone: false,
    };
    let form = sandbox.pay(&checkout, now).await.map_err(|e| e.to_string())?;
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
    Ok(json!({ "url": "/api/pay/alipay/notify", "headers": [["content-type", "application/x-www-form-urlencoded; charset=utf-8"]], "body": body }))
}
