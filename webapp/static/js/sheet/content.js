/* The signed content and its hash (docs/SYNC.md). */
import { D } from "./state.js";

/* An object with its keys sorted at every level: JSON.stringify then gives the canonical form */
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!v || typeof v !== "object") return v;
  var out = {};
  Object.keys(v).sort().forEach(function (k) { out[k] = sortKeys(v[k]); });
  return out;
}
/* The signed content (docs/SYNC.md): the rule set's own keys only when it has them, as the server hashes it */
export function contentOf(e, note, base) {
  var c = {
    base_version: base, note: note, players: D.players.map(function (p) { return p.start_no; }),
    protocol: D.protocol, round: D.round, sums_cents: e.sums, table: D.table, tournament: D.tournament
  };
  if (e.scores) c.scores = e.scores;
  if (e.ended) c.ended = e.ended;
  if (e.games && e.games.length) c.premium_games = e.games;
  if (e.late && e.late.length) c.late = e.late;  // BB-1: only when someone was late
  if (e.keeper) c.keeper_by_lot = e.keeper;  // CSM-3: only when a lot chose the keeper
  return sortKeys(c);
}
function hex(buf) {
  return Array.prototype.map.call(new Uint8Array(buf), function (b) { return (b + 0x100).toString(16).slice(1); }).join("");
}
export function sha256(text) {
  if (window.crypto && crypto.subtle && window.TextEncoder) {
    return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(hex,
      function () { return window.listokSha256(text); });
  }
  return Promise.resolve(window.listokSha256(text));  // plain HTTP: no WebCrypto
}
export function nowIso() { return new Date().toISOString().replace(/\.\d+Z$/, "Z"); }
