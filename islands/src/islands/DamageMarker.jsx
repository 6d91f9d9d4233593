// Places a damage mark with a tap on the car's outline (the seller's damage map): a tap on a view
// chooses its 部位, puts the place (x and y, whole percent of the view) in the form's hidden
// fields and a pin on the picture, and clears the 方位 list, which is how the place is chosen
// without JavaScript. Props: `DamageMarkerProps` (none needed).
import { useEffect, useState } from "react";
import { mount } from "../mount.js";

/// The place of a tap at (clientX, clientY) on a view drawn in `rect`, in whole percent 0–100.
export function placeOf(rect, clientX, clientY) {
  const clamp = (v) => Math.max(0, Math.min(100, Math.round(v)));
  return { x: clamp(((clientX - rect.left) / rect.width) * 100), y: clamp(((clientY - rect.top) / rect.height) * 100) };
}

const SVG = "http://www.w3.org/2000/svg";

/// Draws the pin at (x, y) percent on `svg` (its viewBox's size), removing any other pin.
function pin(root, svg, x, y) {
  root.querySelectorAll(".dm-pin").forEach((p) => p.remove());
  const [, , w, h] = (svg.getAttribute("viewBox") || "0 0 200 120").split(/\s+/).map(Number);
  const c = document.createElementNS(SVG, "circle");
  c.setAttribute("class", "dm-pin");
  c.setAttribute("cx", String((x * w) / 100));
  c.setAttribute("cy", String((y * h) / 100));
  c.setAttribute("r", "8");
  svg.appendChild(c);
}

export function DamageMarker({ root = document }) {
  const [chosen, setChosen] = useState(null);
  useEffect(() => {
    const form = root.querySelector("form.dm-form");
    if (!form) return undefined;
    const onClick = (e) => {
      const fig = e.target.closest?.(".dm-fig[data-area]");
      // A tap on a numbered mark follows its link to the photo.
      if (!fig || e.target.closest("a")) return;
      const svg = fig.querySelector("svg");
      const { x, y } = placeOf(svg.getBoundingClientRect(), e.clientX, e.clientY);
      const radio = form.querySelector(`input[name="area"][value="${fig.dataset.area}"]`);
      if (radio) radio.checked = true;
      form.querySelector('input[name="x"]').value = String(x);
      form.querySelector('input[name="y"]').value = String(y);
      const spot = form.querySelector('select[name="spot"]');
      if (spot) spot.value = "";
      pin(root, svg, x, y);
      setChosen(fig.querySelector("figcaption")?.textContent || "");
    };
    root.addEventListener("click", onClick);
    return () => root.removeEventListener("click", onClick);
  }, []);
  if (chosen === null) return <p class="meta dm-hint">点按上面的车身图，直接标出位置</p>;
  return (
    <p class="notice ok dm-hint" role="status">
      已在“{chosen}”图上选定位置，再选类型、上传照片即可
    </p>
  );
}

export default function mountDamageMarker(el, props) {
  mount(DamageMarker, el, props);
}
