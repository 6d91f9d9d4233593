// The label filter: the label of a value among options, or 未知 when the value is empty,
// the string "null", or matches no option.
export const UNKNOWN = "未知";

export function label(options, value) {
  if (value === undefined || value === null || value === "" || value === "null") return UNKNOWN;
  const hit = (options || []).find((o) => String(o.value) === String(value));
  return hit ? hit.label : UNKNOWN;
}
