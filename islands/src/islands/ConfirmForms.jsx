// Asks before destructive form posts: every `form[data-confirm]` on the page opens a message box
// with that text; 确定 submits the form as it was going to be submitted, 取消 keeps the page.
// Without JavaScript such forms simply submit. Props: `ConfirmFormsProps` (none needed).
import { useEffect, useState } from "react";
import { mount } from "../mount.js";
import { MessageBox } from "../kit/MessageBox.jsx";

export function ConfirmForms({ root = document }) {
  const [ask, setAsk] = useState(null);
  useEffect(() => {
    const onSubmit = (e) => {
      const form = e.target;
      if (!form.matches?.("form[data-confirm]") || form.dataset.confirmed) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      setAsk({ form, submitter: e.submitter, message: form.dataset.confirm });
    };
    root.addEventListener("submit", onSubmit, true);
    return () => root.removeEventListener("submit", onSubmit, true);
  }, []);
  if (!ask) return null;
  return (
    <MessageBox
      message={ask.message}
      onResolve={({ action }) => {
        setAsk(null);
        if (action !== "confirm") return;
        ask.form.dataset.confirmed = "1";
        if (ask.form.requestSubmit) ask.form.requestSubmit(ask.submitter || undefined);
        else ask.form.submit();
      }}
    />
  );
}

export default function mountConfirmForms(el, props) {
  mount(ConfirmForms, el, props);
}
