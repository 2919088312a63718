/* A player's own phone: sign the sums another phone confirmed, or send them once everybody
   has signed and that phone has not. */
import { D, S, Outbox, state, $ } from "./state.js";
import { problemText } from "./messages.js";
import { nowIso } from "./content.js";
import { api } from "./net.js";
import { render, ownSignedKey } from "./render.js";
import { refreshServer } from "./sync.js";

export function ownSend() {
  var o = state.offer;
  if (!o || state.busy || state.item) return;
  var body = {
    token: D.token, idempotency_key: Outbox.uuid(), content: o.content, content_hash: o.content_hash,
    signatures: D.players.map(function (p) { return { start_no: p.start_no, own_phone: true, hash: o.content_hash }; })
  };
  Outbox.add(D.token, body, {}).then(function (item) {
    state.item = item;
    render();
    window.scrollTo(0, 0);
    return Outbox.flush(true);
  }, function () { $("own-error").textContent = S.storage_failed; });
}
export function ownSign() {
  if (state.busy || !state.offer) return;
  var o = state.offer, err = $("own-error"), chosen = $("own-who").querySelector("input:checked");
  var pin = $("own-pin").value.trim();
  err.textContent = "";
  if (!chosen) { err.textContent = S.own_choose; return; }
  if (state.ownPad.isEmpty()) { err.textContent = S.draw_first; return; }
  if (!pin) { err.textContent = S.pin_first; $("own-pin").focus(); return; }
  var who = parseInt(chosen.value, 10);
  state.busy = true;
  $("own-ok").disabled = true;
  api(D.api.signatures, {
    token: D.token, content_hash: o.content_hash, start_no: who, pin: pin, drawing: state.ownPad.path(),
    signed_at: nowIso()
  }).then(function (ans) {
    var data = ans.data;
    $("own-pin").value = "";
    if (data && data.status === "ok") {
      try { sessionStorage.setItem(ownSignedKey(), String(who)); } catch (e) { /* shown until a reload */ }
      state.offer = { content: data.content, content_hash: data.content_hash, signed: data.signed, sent: data.sent,
        missing: data.missing, complete: data.complete, send_in: data.send_in, signed_here: data.signed_here };
      state.offerAt = Date.now();
      state.ownPad.clear();
      render();
    } else if (!data || ans.http >= 500) {
      err.textContent = S.own_unreachable;
    } else {
      err.textContent = problemText(data);
      if (data.error === "no-draft") refreshServer();
    }
  }, function () {
    err.textContent = S.own_unreachable;
  }).finally(function () { state.busy = false; $("own-ok").disabled = false; });
}
