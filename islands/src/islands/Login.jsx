// The login island: phone + SMS code with a 60 s resend countdown, the seed's mobile-kit messages
// beside their fields, and the WeChat / QQ buttons. It replaces the plain form of
// templates/_macros.html `login_form` and posts to the same endpoints: the code is requested with
// fetch (JSON answer from /sys/login/code), signing in is an ordinary form post so the server's
// redirect and cookies work as without JavaScript. Props: `LoginProps` in crates/web/src/islands.rs.
import { useEffect, useRef, useState } from "react";
import { mount } from "../mount.js";
import { checkCode, checkMobile } from "../kit/validate.js";

export const RESEND_SECONDS = 60;

export function Login({ returnTo = "/", bind = "", mobile: initialMobile = "", mobileError = "", codeError = "", notice: initialNotice = "", sandboxCode = "", wxHref, qqHref, codeUrl = "/sys/login/code", fetchImpl, typed = {} }) {
  const [mobile, setMobile] = useState(typed.mobile || initialMobile);
  const [code, setCode] = useState(typed.code || "");
  const [errors, setErrors] = useState({ mobile: mobileError, code: codeError });
  const [notice, setNotice] = useState(initialNotice);
  const [sandbox, setSandbox] = useState(sandboxCode);
  const [left, setLeft] = useState(initialNotice ? RESEND_SECONDS : 0);
  const [sending, setSending] = useState(false);
  const codeInput = useRef(null);
  const mobileInput = useRef(null);

  useEffect(() => {
    if (left <= 0) return undefined;
    const t = setTimeout(() => setLeft(left - 1), 1000);
    return () => clearTimeout(t);
  }, [left]);

  const send = async () => {
    const problem = checkMobile(mobile);
    setErrors({ ...errors, mobile: problem });
    if (problem) return mobileInput.current?.focus();
    setSending(true);
    try {
      const body = new URLSearchParams({ mobile, return: returnTo, bind });
      const res = await (fetchImpl || window.fetch.bind(window))(codeUrl, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" }, body, credentials: "same-origin" });
      const data = await res.json();
      if (data.success) {
        setNotice(data.data.notice);
        setSandbox(data.data.sandboxCode || "");
        setLeft(RESEND_SECONDS);
        codeInput.current?.focus();
      } else {
        setErrors({ ...errors, mobile: data.msg });
        setNotice("");
      }
    } catch (_) {
      setErrors({ ...errors, mobile: "网络异常，验证码未发送，请稍后重试" });
    } finally {
      setSending(false);
    }
  };

  const submit = (e) => {
    const next = { mobile: checkMobile(mobile), code: checkCode(code) };
    setErrors(next);
    if (next.mobile || next.code) {
      e.preventDefault();
      (next.mobile ? mobileInput : codeInput).current?.focus();
    }
  };

  const field = (key) => (errors[key] ? { "aria-invalid": "true", "aria-describedby": `login-${key}-error` } : {});
  return (
    <>
      <form className="login-form" method="post" action="/sys/login" noValidate onSubmit={submit}>
        <input type="hidden" name="return" value={returnTo} />
        {bind && <input type="hidden" name="bind" value={bind} />}
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {sandbox && (
          <p className="sandbox" role="status">
            开发环境短信沙箱，未真正发送。验证码：<b className="sandbox-code">{sandbox}</b>
          </p>
        )}
        <div className={"field" + (errors.mobile ? " has-error" : "")}>
          <label htmlFor="login-mobile">手机号</label>
          <div className="row">
            <input id="login-mobile" ref={mobileInput} name="mobile" type="tel" inputMode="numeric" autoComplete="tel" maxLength={11} placeholder="请输入手机号" value={mobile} onInput={(e) => setMobile(e.target.value)} {...field("mobile")} />
            <button type="button" className="btn-ghost send-code" disabled={left > 0 || sending} onClick={send}>
              {left > 0 ? `${left}秒后重新获取` : sending ? "发送中…" : notice ? "重新获取" : "获取验证码"}
            </button>
          </div>
          {errors.mobile && (
            <p className="error" id="login-mobile-error" role="alert">
              {errors.mobile}
            </p>
          )}
        </div>
        <div className={"field" + (errors.code ? " has-error" : "")}>
          <label htmlFor="login-code">验证码</label>
          <input id="login-code" ref={codeInput} name="code" type="text" inputMode="numeric" autoComplete="one-time-code" maxLength={6} placeholder="6位短信验证码" value={code} onInput={(e) => setCode(e.target.value)} {...field("code")} />
          {errors.code && (
            <p className="error" id="login-code-error" role="alert">
              {errors.code}
            </p>
          )}
        </div>
        <button type="submit" className="btn btn-block">
          登录
        </button>
        <p className="fine">
          未注册的手机号验证后自动注册；登录即同意<a href="/actives/help/useragree">用户协议</a>和<a href="/actives/help/privacy">隐私政策</a>
        </p>
      </form>
      {!bind && (
        <p className="login-other">
          <a href={wxHref} rel="nofollow" className="wx">
            微信登录
          </a>
          <a href={qqHref} rel="nofollow" className="qq">
            QQ登录
          </a>
        </p>
      )}
    </>
  );
}

export default function mountLogin(el, props) {
  mount(Login, el, props);
}
