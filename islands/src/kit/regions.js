// Province/city lookups for the region picker: search by Chinese name or pinyin, and the A–Z
// index bar.
export const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");

/// Cities whose name contains the query or whose pinyin starts with it (case-insensitive, spaces
/// ignored), at most `limit`.
export function searchCities(groups, query, limit = 30) {
  const q = String(query || "").trim().toLowerCase().replace(/\s+/g, "");
  if (!q || !groups) return [];
  const out = [];
  for (const g of groups)
    for (const p of g.provinces)
      for (const c of p.cities) {
        if (c.name.includes(q) || c.py.startsWith(q) || (p.name.includes(q) && q.length > 1)) out.push({ ...c, province: p.name });
        if (out.length >= limit) return out;
      }
  return out;
}

/// The city of a slug, with its province, or null.
export function findCity(groups, py) {
  for (const g of groups || []) for (const p of g.provinces) for (const c of p.cities) if (c.py === py) return { ...c, province: p.name };
  return null;
}

/// The index bar: every letter, marked when a group exists for it.
export function indexBar(groups) {
  const present = new Set((groups || []).map((g) => g.letter));
  return LETTERS.map((letter) => ({ letter, present: present.has(letter) }));
}
