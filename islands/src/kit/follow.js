// A select that follows another (车系 after 品牌). The server renders every brand's series in
// `<optgroup data-value="brand">` groups, which works without JavaScript; with it, only the chosen
// brand's group is offered, a series of another brand is cleared, and choosing a series first
// sets its brand.

/// Wires `select` to follow `lead`; returns the function that re-applies the lead's value.
export function follow(select, lead) {
  const groups = [...select.querySelectorAll("optgroup[data-value]")];
  const sync = () => {
    const chosen = select.value;
    for (const g of groups) g.remove();
    for (const g of groups) if (!lead.value || g.dataset.value === lead.value) select.appendChild(g);
    // A value whose option is no longer offered falls back to the first (不限) option.
    select.value = [...select.options].some((o) => o.value === chosen) ? chosen : select.options[0]?.value ?? "";
  };
  lead.addEventListener("change", sync);
  select.addEventListener("change", () => {
    const group = select.selectedOptions[0]?.closest("optgroup[data-value]");
    if (group && lead.value !== group.dataset.value) {
      lead.value = group.dataset.value;
      sync();
    }
  });
  sync();
  return sync;
}
