/* The page's data (#sheet-data), its texts (#sheet-strings), what the table's rule set
   takes, `state` (the one object every module of the sheet reads and changes) and the
   helpers for the page's elements. */
export const D = JSON.parse(document.getElementById("sheet-data").textContent);
export const S = JSON.parse(document.getElementById("sheet-strings").textContent);
export const N = D.players.length;
// what the table's rule set takes (docs/SYNC.md "Rule sets"): data from the server, no rule set named here
export const R = D.rules || { result_kind: "money", negative_note: true, keeper: null, premium_line: null };
export const KIND = R.result_kind;
export const Outbox = window.ListokOutbox;
export const state = { draft: null, item: null, result: null, server: D.sheet, pad: null, busy: false,
  offer: D.draft || null, ownPad: null, entryChosen: false, pins: {}, preview: null, figs: {} };
// PINs the server has not answered a proof for (offline), by start number: in memory only, until the
// sheet goes to the outbox. Drafts never hold a PIN (docs/SYNC.md, "What a phone keeps").
export function $(id) { return document.getElementById(id); }
export function show(el, on) { el.hidden = !on; }
export function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
