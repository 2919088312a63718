/* Numbers: written as the page's language writes them, read as typed, and the points of
   a money table (SEM-C6). */
import { D, S } from "./state.js";
import { fmt } from "./messages.js";

/* Numbers as the page's language writes them (Intl.NumberFormat), the server's signs where it has none */
const LANG = S.lang || document.documentElement.lang || "en";
let NF2 = null, NFP = null;
try {
  NF2 = new Intl.NumberFormat(LANG, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  NFP = new Intl.NumberFormat(LANG, { maximumFractionDigits: 2 });
} catch (e) { /* a browser without Intl: the server's signs below */ }
export function amount(cents) {
  var c = Math.abs(cents);
  if (NF2) return NF2.format(c / 100);
  var whole = String(Math.floor(c / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, D.money.group);
  return whole + D.money.decimal + ("0" + (c % 100)).slice(-2);
}
export function money(cents) {
  if (D.money.whole && cents % 100 === 0) return (cents < 0 ? "-" : "") + D.money.template.replace("{}", String(Math.abs(cents / 100)));
  return (cents < 0 ? "-" : "") + D.money.template.replace("{}", amount(cents));
}
/* A whole number (ZB, PB, a game score): "-35", "+5", "120"; null when empty; NaN when not one */
export function parseWhole(text) {
  var t = String(text || "").replace(/[\s\u00a0\u202f]/g, "").replace(/[\u2212\u2013]/g, "-");
  if (!t) return null;
  return /^[+-]?\d{1,7}$/.test(t) ? parseInt(t, 10) : NaN;
}
export function isNumber(v) { return typeof v === "number" && !isNaN(v); }
/* "14,50", "14.5", "-1", "−3,20 €" → cents; null when empty; NaN when not an amount */
export function parseSum(text) {
  var t = String(text || "").replace(/[\s\u00a0\u202f€]/g, "").replace(/[\u2212\u2013]/g, "-").replace(",", ".");
  if (!t) return null;
  var m = /^([+-]?)(\d{0,6})(?:\.(\d{0,2}))?$/.exec(t);
  if (!m || (!m[2] && !m[3])) return NaN;
  var cents = parseInt(m[2] || "0", 10) * 100 + parseInt(((m[3] || "") + "00").slice(0, 2), 10);
  return m[1] === "-" && cents ? -cents : cents;
}
/* SEM-C6: places 5/3/1, equal sums share the points of the places they span */
export function tablePoints(sums) {
  var order = sums.map(function (_s, i) { return i; }).sort(function (a, b) { return sums[b] - sums[a]; });
  var pts = [], place = 0, by = D.place_points;
  while (place < order.length) {
    var end = place;
    while (end + 1 < order.length && sums[order[end + 1]] === sums[order[place]]) end++;
    var total = 0, k;
    for (k = place; k <= end; k++) total += by[k];
    for (k = place; k <= end; k++) pts[order[k]] = total / (end - place + 1);
    place = end + 1;
  }
  return pts;
}
/* "1 pt", "3 pts", "2,5 b.": the plural form the number takes in the page's language */
function plural(forms, n) {
  var cat = "other";
  try { cat = new Intl.PluralRules(LANG).select(n); } catch (e) { cat = n === 1 ? "one" : "other"; }
  return forms[cat] || forms.other;
}
export function pointsText(p) {
  var shown = NFP ? NFP.format(p) : String(Math.round(p * 100) / 100).replace(".", D.money.decimal);
  return fmt(plural(S.points_forms, p), { points: shown });
}
