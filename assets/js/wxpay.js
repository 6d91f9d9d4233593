// WeChat Pay inside WeChat (JSAPI): hands the signed parameters to WeixinJSBridge and, once
// WeChat says the payment went through, opens the order's result page (which trusts only the
// notify or a query, never this script).
(function () {
  var root = document.querySelector("[data-wxpay]");
  if (!root) return;
  var params = JSON.parse(root.getAttribute("data-wxpay"));
  var state = root.querySelector("[data-wxpay-state]");
  function pay() {
    if (typeof WeixinJSBridge === "undefined") {
      if (state) state.textContent = "请在微信中打开本页付款。";
      return;
    }
    WeixinJSBridge.invoke("getBrandWCPayRequest", params, function (res) {
      if (res.err_msg === "get_brand_wcpay_request:ok") {
        location.replace(root.getAttribute("data-done"));
      } else if (state) {
        state.textContent = res.err_msg === "get_brand_wcpay_request:cancel" ? "已取消付款，可以再次点击支付。" : "付款未完成，请重试或返回选择其他支付方式。";
      }
    });
  }
  root.querySelector("[data-wxpay-go]").addEventListener("click", pay);
})();
