// Message box on the modal: alert, confirm and prompt. A prompt's input is checked by a pattern
// and/or a validator; a failure shows the validator's text or 输入的数据不合法!
import { useState } from "react";
import { Modal } from "./Modal.jsx";

export const INVALID_INPUT = "输入的数据不合法!";

/// The prompt's verdict: "" when fine, else the message to show.
export function checkPrompt(value, { inputPattern, inputValidator, inputErrorMessage } = {}) {
  if (inputPattern && !new RegExp(inputPattern).test(value)) return inputErrorMessage || INVALID_INPUT;
  if (inputValidator) {
    const verdict = inputValidator(value);
    if (verdict === false) return inputErrorMessage || INVALID_INPUT;
    if (typeof verdict === "string") return verdict;
  }
  return "";
}

export function MessageBox({ kind = "confirm", title = "提示", message, confirmText = "确定", cancelText = "取消", inputPlaceholder = "", onResolve, ...rules }) {
  const [value, setValue] = useState(rules.inputValue || "");
  const [error, setError] = useState("");
  const confirm = () => {
    if (kind === "prompt") {
      const problem = checkPrompt(value, rules);
      setError(problem);
      if (problem) return;
    }
    onResolve({ action: "confirm", value });
  };
  const cancel = () => onResolve({ action: kind === "alert" ? "confirm" : "cancel", value });
  return (
    <Modal label={title} className="msgbox" onClose={cancel}>
      <h2 className="msgbox-title">{title}</h2>
      <p className="msgbox-text">{message}</p>
      {kind === "prompt" && (
        <div className="field">
          <input type="text" aria-label={message} placeholder={inputPlaceholder} value={value} aria-invalid={error ? "true" : undefined} onInput={(e) => setValue(e.target.value)} onKeyDown={(e) => e.key === "Enter" && confirm()} autoFocus />
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
      <div className="msgbox-actions">
        {kind !== "alert" && (
          <button type="button" className="btn-ghost" onClick={cancel}>
            {cancelText}
          </button>
        )}
        <button type="button" className="btn" onClick={confirm}>
          {confirmText}
        </button>
      </div>
    </Modal>
  );
}
