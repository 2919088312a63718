/* The draft being entered: as stored (never with a PIN) and as the content takes it. */
import { D, S, R, KIND, Outbox, state } from "./state.js";
import { fmt } from "./messages.js";
import { amount, parseWhole, isNumber, parseSum } from "./numbers.js";

export function isBlank(d) {
  return !!d && !d.locked && !d.base_version && !d.note && d.typed.every(function (t) { return !t; });
}
function typedOf(cents) {
  if (KIND !== "money") return String(cents / 100);
  return (cents < 0 ? "-" : "") + amount(cents).split(D.money.group).join("");
}
export function newDraft(base) {
  return {
    token: D.token, typed: D.players.map(function (_p, i) { return base ? typedOf(base.sums_cents[i]) : ""; }),
    pb: D.players.map(function (_p, i) { return base && base.scores && KIND === "zb+pb" ? String(base.scores[i]) : ""; }),
    ended: (base && base.ended) || "",
    games: ((base && base.premium_games) || []).map(function (g) {
      return { start_no: g.start_no, game: g.game, pb: String(g.pb), signed_by: g.signed_by.slice() };
    }),
    late: (base && base.late) ? base.late.slice() : [],
    lot: !!(base && base.keeper_by_lot), keeper_lot: (base && base.keeper_by_lot) || null,
    note: "", reason: "", locked: false, content: null, content_hash: null, signatures: [],
    base_version: base ? base.version : 0, base_sums: base ? base.sums_cents : null
  };
}
/* A draft as stored: signatures without PINs. One without a proof whose PIN is no longer in memory
   (the page was reloaded) is signed again. */
export function withoutPins(d, pins) {
  d.signatures = d.signatures.filter(function (s) {
    return s.own_phone || s.pin_proof || (pins && pins[s.start_no]);
  }).map(function (s) {
    if (s.own_phone) return s;
    var out = { start_no: s.start_no, pin: "", hash: s.hash, drawing: s.drawing, signed_at: s.signed_at };
    if (s.pin_proof) out.pin_proof = s.pin_proof;
    return out;
  });
  return d;
}
/* A draft an older page stored lacks the fields of other result kinds */
export function filledIn(d) {
  if (!d.pb) d.pb = D.players.map(function () { return ""; });
  if (!d.games) d.games = [];
  if (typeof d.ended !== "string") d.ended = "";
  if (typeof d.reason !== "string") d.reason = "";
  if (!d.late) d.late = [];
  if (d.keeper_lot === undefined) { d.lot = false; d.keeper_lot = null; }
  return d;
}
let saveTimer = null;
export function saveDraft(now) {
  if (saveTimer) clearTimeout(saveTimer);
  var d = state.draft;
  if (!d) return Promise.resolve();
  withoutPins(d, state.pins);
  if (now) return Outbox.saveDraft(d);
  saveTimer = setTimeout(function () { Outbox.saveDraft(d); }, 300);
  return Promise.resolve();
}
/* What is typed, as the content takes it: sums in cents (ZB, a score × 100), ČSM's PB and its lines of
   games worth the rule set's premium line or more (CSM-3), Thousand's score and how the game ended (TH-3). */
export function entered() {
  var d = state.draft;
  var sums = d.typed.map(KIND === "money" ? parseSum : function (t) {
    var v = parseWhole(t);
    return isNumber(v) ? v * 100 : v;
  });
  var complete = sums.every(isNumber), scores = null, games = null, problem = "";
  if (KIND === "zb+pb") {
    scores = (d.pb || []).map(parseWhole);
    complete = complete && scores.every(isNumber);
    games = [];
    (d.games || []).forEach(function (g, k) {
      var pb = parseWhole(g.pb), game = (g.game || "").trim();
      if (!g.start_no || !game || !isNumber(pb)) {
        if (!problem) problem = fmt(S.premium_incomplete, { n: k + 1 });
        return;
      }
      var by = D.players.map(function (p) { return p.start_no; }).filter(function (sn) {
        return g.signed_by.indexOf(sn) >= 0;
      });
      games.push({ game: game, pb: pb, signed_by: by, start_no: g.start_no });
    });
  }
  if (KIND === "score") scores = sums.map(function (v) { return isNumber(v) ? v / 100 : v; });
  var total = complete ? sums.reduce(function (a, b) { return a + b; }, 0) : null;
  var negative = complete && sums.some(function (s) { return s < 0; });
  // BB-1: the late players in seat order; CSM-3: the keeper a lot chose (none without a lot)
  var late = R.late_fee_cents ? D.players.map(function (p) { return p.start_no; }).filter(function (sn) {
    return (d.late || []).indexOf(sn) >= 0;
  }) : [];
  var keeper = R.keeper_by_lot && d.lot ? d.keeper_lot : null;
  if (R.keeper_by_lot && d.lot && !keeper && !problem) problem = S.keeper_choose;
  return { sums: sums, scores: scores, games: games, ended: KIND === "score" ? (d.ended || null) : null,
    complete: complete, total: total, negative: negative, problem: problem, late: late, keeper: keeper };
}
