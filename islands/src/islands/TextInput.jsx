// Text input and textarea: a current/limit counter that turns to the exceeded state when over the
// limit (the text is kept, never cut), clearable, show-password, and a textarea that grows with
// its text between min and max rows. It replaces a plain input with the same name, so
// the form posts exactly as without it. Props: `TextInputProps` in crates/web/src/islands.rs.
import { useLayoutEffect, useRef, useState } from "react";
import { mount } from "../mount.js";

/// Counts characters as a visitor sees them (an emoji is one).
export const length = (text) => Array.from(text || "").length;
export const counter = (text, max) => `${length(text)}/${max}`;
export const exceeded = (text, max) => max > 0 && length(text) > max;

export function TextInput({ id, name, label, value = "", maxLength = 0, multiline = false, rows = 3, minRows = 2, maxRows = 8, autosize = true, clearable = false, showPassword = false, type = "text", placeholder = "", inputMode, autoComplete, error = "", typed = {} }) {
  const [text, setText] = useState(typed[name] ?? value);
  const [reveal, setReveal] = useState(false);
  const ref = useRef(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!multiline || !autosize || !el) return;
    const line = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.style.height = "auto";
    const pad = el.offsetHeight - el.clientHeight;
    el.style.height = Math.min(Math.max(el.scrollHeight, minRows * line), maxRows * line) + pad + "px";
  }, [text, multiline, autosize]);
  const over = exceeded(text, maxLength);
  const described = [error && `${id}-error`, maxLength && `${id}-count`].filter(Boolean).join(" ") || undefined;
  const common = { id, name, ref, value: text, placeholder, onInput: (e) => setText(e.target.value), "aria-invalid": over || error ? "true" : undefined, "aria-describedby": described, inputMode, autoComplete };
  return (
    <div className={"ti" + (over ? " is-exceed" : "") + (multiline ? " ti-area" : "")}>
      {label && <label htmlFor={id}>{label}</label>}
      <div className="ti-box">
        {multiline ? <textarea rows={rows} {...common} /> : <input type={showPassword && reveal ? "text" : type} {...common} />}
        {clearable && text && (
          <button type="button" className="ti-clear" aria-label="清空" onClick={() => (setText(""), ref.current?.focus())}>
            ×
          </button>
        )}
        {showPassword && (
          <button type="button" className="ti-eye" aria-label={reveal ? "隐藏密码" : "显示密码"} aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
            {reveal ? "隐藏" : "显示"}
          </button>
        )}
      </div>
      {maxLength > 0 && (
        <p className="ti-count" id={`${id}-count`} aria-live="polite">
          {over ? `已超出${length(text) - maxLength}字 · ` : ""}
          {counter(text, maxLength)}
        </p>
      )}
      {error && (
        <p className="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export default function mountTextInput(el, props) {
  mount(TextInput, el, props);
}
