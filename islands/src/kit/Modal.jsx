// A modal dialog: stacked from z-index 2000, closes on Escape and on the backdrop,
// keeps focus inside while open, returns focus to where it was, and restores body scrolling
// 200 ms after the last modal closes (kit/layer.js).
import { useLayoutEffect, useRef } from "react";
import { openLayer } from "./layer.js";

export function Modal({ label, onClose, className = "", children, closeOnBackdrop = true }) {
  const box = useRef(null);
  const layer = useRef(null);
  if (!layer.current) layer.current = openLayer();
  // A layout effect: focus moves in and Escape works from the first frame the dialog is seen.
  useLayoutEffect(() => {
    const before = document.activeElement;
    const focusables = () => [...box.current.querySelectorAll("button, [href], input, select, textarea, [tabindex]:not([tabindex='-1'])")].filter((el) => !el.disabled);
    (box.current.querySelector("[autofocus]") || focusables()[0] || box.current).focus();
    const onKey = (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        onClose();
      } else if (e.key === "Tab") {
        const list = focusables();
        if (!list.length) return;
        const first = list[0];
        const last = list[list.length - 1];
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first.focus();
        }
      }
    };
    const node = box.current;
    node.addEventListener("keydown", onKey);
    return () => {
      node.removeEventListener("keydown", onKey);
      layer.current.close();
      before?.focus?.();
    };
  }, []);
  return (
    <div className="modal-mask" style={{ zIndex: layer.current.z }} onClick={(e) => closeOnBackdrop && e.target === e.currentTarget && onClose()}>
      <div className={"modal " + className} role="dialog" aria-modal="true" aria-label={label} ref={box} tabIndex={-1}>
        {children}
      </div>
    </div>
  );
}
