/* The table's score sheet on the winner's phone (SEM-B5, C4, C6, C8):
   trial entry with the live total and points, confirmed (locked) sums, three
   signatures (finger + PIN) bound to the content hash, then the outbox.
   Every text comes translated from the page (#sheet-strings).
   The entry module: the page loads it with <script type="module"> after the classic
   scripts it leans on (sha256.js, outbox.js, signature.js, as window globals); it wires
   the page and starts. Its imports are loaded by their plain URLs, which the service
   worker precaches (views/table.py). */
import { D, S, N, KIND, Outbox, state, $ } from "./state.js";
import { setNet } from "./net.js";
import { newDraft, saveDraft, isBlank } from "./drafts.js";
import { render, pinNeeded, renderEntry, edited } from "./render.js";
import { refreshServer } from "./sync.js";
import { onInput, toggleSign, confirmSums, changeSums, sign, startCorrection, reload, pullOwnSignatures } from "./actions.js";
import { ownSend, ownSign } from "./own.js";
import { setupOffline, fromCache } from "./offline.js";

const POLL_SIGNING = 3000, POLL_IDLE = 10000;
let lastIdlePoll = 0;
function poll() {
  if (document.hidden || navigator.onLine === false || state.busy || state.renewing) return;
  var mode = document.documentElement.getAttribute("data-sheet-mode"), d = state.draft;
  if (mode === "signing" && d && d.locked) { pullOwnSignatures(); return; }
  var now = Date.now();
  if (mode === "own" || ((mode === "done" || (mode === "entry" && isBlank(d))) && now - lastIdlePoll >= POLL_IDLE)) {
    lastIdlePoll = now;
    refreshServer();
  }
}
function wire() {
  D.players.forEach(function (_p, i) {
    var input = $("sum" + i);
    input.addEventListener("input", function () { onInput(i, input.value); });
    var next = function (ev) {
      if (ev.key !== "Enter") return;
      ev.preventDefault();
      if (KIND === "zb+pb" && ev.target === input) $("pb" + i).focus();
      else if (i < N - 1) $("sum" + (i + 1)).focus();
      else if (!$("confirm").disabled) confirmSums();
      else if (!$("note-box").hidden) $("note").focus();
    };
    input.addEventListener("keydown", next);
    $("toggle" + i).addEventListener("click", function () { toggleSign(i); });
    var pb = $("pb" + i);
    if (pb) {
      pb.addEventListener("input", function () { state.draft.pb[i] = pb.value; edited(); });
      pb.addEventListener("keydown", next);
    }
  });
  ["win", "time"].forEach(function (how) {
    var radio = $("ended-" + how);
    if (radio) radio.addEventListener("change", function () { if (radio.checked) { state.draft.ended = how; edited(); } });
  });
  D.players.forEach(function (p, i) {
    var box = $("late" + i);  // BB-1
    if (box) box.addEventListener("change", function () {
      state.draft.late = state.draft.late.filter(function (x) { return x !== p.start_no; });
      if (box.checked) state.draft.late.push(p.start_no);
      edited();
    });
  });
  if ($("keeper-lot")) {  // CSM-3
    $("keeper-lot").addEventListener("change", function () {
      state.draft.lot = $("keeper-lot").checked;
      if (!state.draft.lot) state.draft.keeper_lot = null;
      edited();
    });
    $("keeper-who").addEventListener("change", function () {
      state.draft.keeper_lot = parseInt($("keeper-who").value, 10) || null;
      edited();
    });
  }
  if ($("premium-add")) {
    $("premium-add").addEventListener("click", function () {
      state.draft.games.push({ start_no: null, game: "", pb: "", signed_by: [] });
      edited();
      $("pg-player" + (state.draft.games.length - 1)).focus();
    });
  }
  $("note").addEventListener("input", function () { state.draft.note = $("note").value; saveDraft(false); renderEntry(); });
  $("reason").addEventListener("input", function () { state.draft.reason = $("reason").value; saveDraft(false); renderEntry(); });
  $("entry").addEventListener("submit", confirmSums);
  $("change").addEventListener("click", changeSums);
  $("sig-clear").addEventListener("click", function () { state.pad.clear(); $("sig-error").textContent = ""; });
  $("sig-ok").addEventListener("click", sign);
  $("pin").addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); sign(); } });
  $("send-now").addEventListener("click", function () {
    var item = state.item;
    if (navigator.onLine === false) setNet(false);
    if (item && item.state === "blocked") Outbox.retry(item.idempotency_key);
    else Outbox.flush(true);
  });
  $("repin-send").addEventListener("click", function () {
    var item = state.item, pin = $("repin-pin").value.trim(), who = item && pinNeeded(item);
    $("repin-pin").value = "";
    if (!pin || !who) return;
    var set = function (it) {
      it.body.signatures.forEach(function (s) { if (s.start_no === who) { s.pin = pin; delete s.pin_proof; } });
    };
    set(item);
    // the next player's PIN first, if another is needed; the sheet goes when none is missing
    if (pinNeeded(item)) Outbox.update(item.idempotency_key, set).then(reload);
    else Outbox.retry(item.idempotency_key, set);
  });
  $("discard").addEventListener("click", function () {
    if (!state.item || !window.confirm(S.discard_confirm)) return;
    Outbox.discard(state.item.idempotency_key).then(reload);
  });
  $("correct").addEventListener("click", startCorrection);
  $("own-ok").addEventListener("click", ownSign);
  $("own-send").addEventListener("click", ownSend);
  $("own-pin").addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); ownSign(); } });
  $("own-clear").addEventListener("click", function () { state.ownPad.clear(); $("own-error").textContent = ""; });
  $("own-enter").addEventListener("click", function () {
    state.entryChosen = true;
    if (!state.draft) state.draft = newDraft(null);
    render();
    $("sum0").focus();
  });
  setInterval(poll, POLL_SIGNING);
  document.addEventListener("visibilitychange", poll);
  Outbox.onChange(function (ev) {
    if (ev.token && ev.token !== D.token) return;
    reload().then(function () {
      if (ev.type === "sent" || ev.type === "blocked") refreshServer();
    });
  });
  window.addEventListener("online", function () { setNet(true); refreshServer(); });
  window.addEventListener("offline", function () { setNet(false); render(); });
}

wire();
if (navigator.onLine === false) setNet(false);
setupOffline();
reload().then(function () {
  Outbox.start();
  // under the service worker the page may be its copy: what the server has now, at once
  var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
  var waiting = state.result && state.result.status !== "accepted" && state.result.status !== "rejected";
  if ((fromCache() || worker || waiting) && navigator.onLine !== false) refreshServer();
});
