/* What the table's phone does: enter, confirm, sign, hand the signed sheet to the outbox,
   start a correction; publish the confirmed sums and take in the signatures the players'
   own phones made. */
import { D, S, N, R, KIND, Outbox, state, $ } from "./state.js";
import { problemText } from "./messages.js";
import { contentOf, sha256, nowIso } from "./content.js";
import { api, checkPin } from "./net.js";
import { newDraft, withoutPins, filledIn, saveDraft, entered } from "./drafts.js";
import { figuresKey, contentKey } from "./figures.js";
import { render, renderEntry, signedBy, nextSigner } from "./render.js";
import { learnOutcome } from "./sync.js";

export function onInput(i, value) {
  state.draft.typed[i] = value;
  saveDraft(false);
  renderEntry();
}
export function toggleSign(i) {
  var v = state.draft.typed[i].trim();
  onInput(i, v.charAt(0) === "-" || v.charAt(0) === "\u2212" ? v.slice(1) : "-" + v);
  $("sum" + i).focus();
}
export function confirmSums(ev) {
  if (ev) ev.preventDefault();
  var e = entered(), d = state.draft, noteNeeded = e.negative && !!R.negative_note;
  if (!e.complete || (D.total_cents !== null && e.total !== D.total_cents) || (noteNeeded && !d.note.trim()) ||
      e.problem || (KIND === "score" && !e.ended) || (d.base_version && !d.reason.trim()) || $("confirm").disabled) {
    return;
  }
  var content = contentOf(e, noteOf(d, noteNeeded), d.base_version);
  var pv = state.preview;
  if (pv && pv.status === "ok" && pv.key === figuresKey(e)) {
    d.figs = { key: contentKey(content), points: pv.points, sb: pv.sb, keeper: pv.keeper };
    state.figs[d.figs.key] = d.figs;
  }
  $("confirm").disabled = true;
  sha256(JSON.stringify(content)).then(function (h) {
    d.content = content;
    d.content_hash = h;
    d.locked = true;
    d.signatures = [];
    return saveDraft(true);
  }).then(function () {
    render();
    $("signing").scrollIntoView({ block: "start" });
    publishDraft();
  });
}
/* The signed note: a correction's reason (the referee reads it in the case), the last game (SEM-C8) */
function noteOf(d, noteNeeded) {
  return [d.base_version ? d.reason.trim() : "", noteNeeded ? d.note.trim() : ""].filter(Boolean).join("\n");
}
export function changeSums() {
  var d = state.draft;
  if (d.signatures.length) return;  // signed sums change only as a correction (SEM-C4)
  d.locked = false;
  d.content = null;
  d.content_hash = null;
  saveDraft(true).then(function () { render(); $("sum0").focus(); });
}
export function sign() {
  if (state.busy) return;
  var d = state.draft, k = nextSigner(d), p = D.players[k];
  var pin = $("pin").value.trim(), err = $("sig-error");
  if (!p) return;
  err.textContent = "";
  if (state.pad.isEmpty()) { err.textContent = S.draw_first; return; }
  if (!pin) { err.textContent = S.pin_first; $("pin").focus(); return; }
  state.busy = true;
  $("sig-ok").disabled = true;
  checkPin(p.start_no, pin, d.content_hash).then(function (res) {
    if (!res.ok) {
      err.textContent = problemText(res.problem);
      $("pin").value = "";
      return;
    }
    if (!signedBy(d, p.start_no)) {
      var sig = { start_no: p.start_no, pin: "", hash: d.content_hash, drawing: state.pad.path(), signed_at: nowIso() };
      if (res.proof) sig.pin_proof = res.proof;  // the proof replaces the PIN
      else { state.pins[p.start_no] = pin; state.unchecked = true; }  // offline: checked when the sheet is sent
      d.signatures.push(sig);
    }
    pin = null;
    $("pin").value = "";
    state.pad.clear();
    if (d.signatures.length < N) return saveDraft(true).then(render).then(publishDraft);
    return finish();
  }).finally(function () { state.busy = false; $("sig-ok").disabled = false; });
}
/* All signed: into the outbox first, and only then does the page say so. */
function finish() {
  var d = state.draft;
  var body = {
    token: D.token, idempotency_key: Outbox.uuid(), content: d.content, content_hash: d.content_hash,
    signatures: d.signatures.map(function (s) {
      if (s.own_phone || s.pin_proof) return s;
      var out = {};
      Object.keys(s).forEach(function (k) { out[k] = s[k]; });
      out.pin = state.pins[s.start_no] || "";
      return out;
    })
  };
  // a PIN not checked at the table: if it is wrong, the sheet goes to the referee
  if (body.signatures.some(function (s) { return !s.own_phone && !s.pin_proof; })) body.pins_unchecked = true;
  return Outbox.add(D.token, body, { base_sums: d.base_sums }).then(function (item) {
    state.item = item;
    state.pins = {};
    state.unchecked = false;
    state.draft = null;
    render();
    window.scrollTo(0, 0);
    return Outbox.flush(true);
  }, function () {
    $("sig-error").textContent = S.storage_failed;
    d.signatures.pop();
  });
}
export function startCorrection() {
  var base = state.server;
  if (!base) return;
  state.draft = newDraft(base);
  state.result = null;
  saveDraft(true).then(function () { render(); $("sum0").focus(); });
}
export function reload() {
  return Promise.all([Outbox.forToken(D.token), Outbox.result(D.token), Outbox.draft(D.token)]).then(function (x) {
    var items = x[0];
    state.item = items.length ? items[items.length - 1] : null;
    state.result = x[1] || null;
    if (!state.item && x[2]) {
      var stored = JSON.stringify(x[2].signatures || []);
      var before = (x[2].signatures || []).map(function (s) { return s.start_no; });
      state.draft = filledIn(withoutPins(x[2], state.pins));
      var kept = state.draft.signatures.map(function (s) { return s.start_no; });
      var lost = before.filter(function (sn) { return kept.indexOf(sn) < 0; });
      if (lost.length) state.lost = lost;
      if (state.draft.figs) state.figs[state.draft.figs.key] = state.draft.figs;
      // a draft a page before this one stored with PINs: rewritten at once
      if (JSON.stringify(state.draft.signatures) !== stored && /"pin":"[^"]/.test(stored)) saveDraft(true);
    }
    if (state.item) state.draft = null;
    if (state.server) learnOutcome({ receipt: state.server.receipt, status: state.server.status });
    if (!state.item && !state.draft && !state.result && !state.server) state.draft = newDraft(null);
    render();
  });
}
/* The winner's phone: the confirmed sums go to the server, where the other players' own phones find them. */
function publishDraft() {
  var d = state.draft;
  if (!d || !d.locked || navigator.onLine === false) return Promise.resolve();
  var here = signedHere(d);
  return api(D.api.drafts, { token: D.token, content: d.content, content_hash: d.content_hash,
    signed_here: here }).then(function (ans) {
    if (state.draft !== d || !ans.data) return;
    if (ans.data.status === "ok") {
      d.published = true;
      d.publishedHere = here.join(",");
      render();
      return mergeOwn(d, ans.data.signed);
    } else if (ans.http === 422) {
      $("sig-error").textContent = problemText(ans.data);  // what the server would refuse on sending, said now
    }
  }, function () { /* offline: published by the next poll */ });
}
/* Who signed on this phone: the players' own phones show them as signed, not as still to sign */
function signedHere(d) {
  return d.signatures.filter(function (s) { return !s.own_phone; }).map(function (s) { return s.start_no; })
    .sort(function (a, b) { return a - b; });
}
function mergeOwn(d, signed) {
  if (state.busy || state.draft !== d || !d.locked) return Promise.resolve();
  var added = false;
  (signed || []).forEach(function (sn) {
    var seated = D.players.some(function (p) { return p.start_no === sn; });
    if (seated && !signedBy(d, sn)) {
      d.signatures.push({ start_no: sn, own_phone: true, hash: d.content_hash });
      added = true;
    }
  });
  if (!added) return Promise.resolve();
  if (d.signatures.length >= N) return finish();
  render();
  return saveDraft(true);
}
export function pullOwnSignatures() {
  var d = state.draft;
  if (!d.published || d.publishedHere !== signedHere(d).join(",")) return publishDraft();
  var url = D.api.table + "?token=" + encodeURIComponent(D.token) + "&draft=" + d.content_hash;
  return api(url).then(function (ans) {
    if (!ans.data || ans.data.status !== "ok") return;
    if (!ans.data.draft) { d.published = false; return publishDraft(); }
    return mergeOwn(d, ans.data.draft.signed);
  }, function () { /* offline: next time */ });
}
