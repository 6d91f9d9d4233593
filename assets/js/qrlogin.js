// Desktop QR login: ask every second whether the phone confirmed; sign in when it has.
// The page works without this script through its "我已在手机上确认" button.
(function () {
  var root = document.querySelector("[data-qr-ticket]");
  if (!root || !window.fetch) return;
  var state = root.querySelector(".qr-state");
  var body = new URLSearchParams({ t: root.getAttribute("data-qr-ticket"), return: root.getAttribute("data-return") || "/" });
  var stopped = false;
  function poll() {
    if (stopped) return;
    fetch("/sys/WQlogin/claim", { method: "POST", headers: { Accept: "application/json" }, body: body, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (r) {
        if (r.status === "ok") {
          stopped = true;
          if (state) state.textContent = "登录成功，正在跳转…";
          location.replace(r.to || "/");
        } else if (r.status === "expired") {
          stopped = true;
          if (state) state.textContent = "二维码已过期，正在刷新…";
          location.reload();
        } else {
          setTimeout(poll, 1000);
        }
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 1000);
})();
