/* Drawing the page from `state`: the status box, the entry form, the signing, and signing
   on one's own phone. */
import { D, S, N, R, KIND, state, $, show, el } from "./state.js";
import { fmt, timeText, problemText, resultText } from "./messages.js";
import { money, isNumber } from "./numbers.js";
import { saveDraft, entered, isBlank } from "./drafts.js";
import { localPoints, contentKey, askPreview, fetchFigures, figureText } from "./figures.js";

export function render() {
  var d = state.draft, item = state.item, mode;
  if (item) mode = "outbox";
  else if (state.gone) mode = "done";  // the round is over: nothing can be sent any more
  else if (ownMode()) mode = "own";
  else if (d) mode = d.locked ? "signing" : "entry";
  else mode = "done";
  document.documentElement.setAttribute("data-sheet-mode", mode);
  show($("no-sheet"), !state.server && !state.result && !item && !state.gone && mode !== "own");
  show($("entry"), mode === "entry");
  show($("signing"), mode === "signing");
  show($("own"), mode === "own");
  renderStatus(mode);
  if (mode === "entry") renderEntry();
  if (mode === "signing") renderSigning();
  if (mode === "own") renderOwn();
}
/* Another phone confirmed sums for this table and this one has nothing of its own going:
   a player signs them here, on their own phone. */
function ownMode() {
  var o = state.offer;
  return !!o && !o.sent && !state.entryChosen && !state.item && (!state.draft || isBlank(state.draft));
}
/* A sheet's results as a table: sum (ZB, score), PB, points or SB; how the game ended and the premium-game
   lines below. `figs`: the server's points or SB, where the page does not compute them itself. */
function sumsTable(table, shown, base, figs) {
  table.textContent = "";
  var sums = shown.sums_cents, local = localPoints(sums);
  figs = local ? { points: local } : (figs || (shown.points || shown.sb ? shown : state.figs[contentKey(shown)]));
  var body = el("tbody");
  D.players.forEach(function (p, i) {
    var tr = el("tr");
    var who = el("td");
    who.appendChild(el("span", "seat-no", String(p.start_no)));
    who.appendChild(document.createTextNode(" " + p.name));
    var sum = el("td", "num sum-cell", money(sums[i]));
    if (base && base[i] !== sums[i]) sum.classList.add("red-pen");
    tr.appendChild(who);
    tr.appendChild(sum);
    if (KIND === "zb+pb") tr.appendChild(el("td", "num pb-cell", shown.scores ? fmt(S.pb, { pb: shown.scores[i] }) : ""));
    tr.appendChild(el("td", "num", figureText(figs, i)));
    body.appendChild(tr);
  });
  table.appendChild(body);
  var foot = el("tfoot"), cols = KIND === "zb+pb" ? 4 : 3;
  var line = function (text, cls) {
    var tr = el("tr", cls), td = el("td", "", text);
    td.colSpan = cols;
    tr.appendChild(td);
    foot.appendChild(tr);
  };
  if (shown.ended) line(shown.ended === "win" ? S.ended_win : S.ended_time, "ended-line");
  (shown.premium_games || []).forEach(function (g, k) {
    line(fmt(S.premium_line, { n: k + 1, start_no: g.start_no, name: nameOf(g.start_no), game: g.game, pb: g.pb,
      by: g.signed_by.join(", ") }), "premium-line");
  });
  var fees = lateText(shown.late);
  if (fees) line(fees, "late-line");
  var keeper = keeperText(shown.keeper_by_lot);
  if (keeper) line(keeper, "keeper-line");
  if (foot.childNodes.length) table.appendChild(foot);
}
/* BB-1: each late player pays the fee to each other player; the line shows every player's net fee
   (the sums already include it, so the table total stays what it is). */
function lateText(late) {
  if (!R.late_fee_cents || !late || !late.length) return "";
  var fee = R.late_fee_cents;
  var parts = D.players.map(function (p) {
    var others = late.filter(function (sn) { return sn !== p.start_no; }).length;
    var net = fee * others - (late.indexOf(p.start_no) >= 0 ? fee * (N - 1) : 0);
    return fmt(S.late_part, { start_no: p.start_no, name: p.name, amount: (net > 0 ? "+" : "") + money(net) });
  });
  return fmt(S.late_line, { who: parts.join("; ") });
}
/* CSM-3: who keeps the sheet: the player a lot chose, else the rule set's keeper */
function keeperText(lot) {
  if (!R.keeper_by_lot) return "";
  if (lot) return fmt(S.keeper_lot_line, { start_no: lot, name: nameOf(lot) });
  var p = R.keeper !== null && R.keeper !== undefined ? D.players[R.keeper] : null;
  return p ? fmt(S.keeper_line, { start_no: p.start_no, name: p.name, position: R.keeper + 1 }) : "";
}
function nameOf(startNo) {
  var p = D.players.filter(function (x) { return x.start_no === startNo; })[0];
  return p ? p.name : "";
}
const PIN_PROBLEMS = { "wrong-pin": 1, "pin-needed": 1, "no-pin": 1 };
/* The first signature of an outbox item the server needs a PIN for (the outbox dropped the PINs it had
   when the server answered), in seat order. */
export function pinNeeded(item) {
  var sig = item.body.signatures.filter(function (s) { return !s.own_phone && !s.pin && !s.pin_proof; })[0];
  return sig ? sig.start_no : null;
}
function renderStatus(mode) {
  var box = $("status"), server = state.server, r = state.result, item = state.item;
  var title = "", message = "", kind = "", shown = null, base = null, receipt = "";
  var buttons = { "send-now": false, discard: false, repin: false, correct: false };
  if (mode === "outbox") {
    shown = item.body.content;
    base = item.base_sums || null;
    if (item.state === "blocked") {
      var p = item.problem || {};
      kind = "is-blocked";
      title = S.not_sent;
      message = problemText(p);
      var needed = PIN_PROBLEMS[p.error] ? pinNeeded(item) : null;
      if (needed) {
        var who = D.players.filter(function (x) { return x.start_no === needed; })[0];
        $("repin-label").textContent = fmt(S.pin_of, { start_no: needed, name: who ? who.name : "" });
        buttons.repin = true;
      } else if (p.status === "locked") {
        buttons["send-now"] = true;
      } else {
        buttons.discard = true;
      }
    } else {
      kind = "is-waiting";
      title = S.waiting_title;
      message = S.waiting;
      buttons["send-now"] = true;
    }
  } else if (state.gone) {
    title = S.gone_title;
    message = S.gone;
  } else if (r && !(r.status === "accepted" && server && server.receipt !== r.receipt)) {
    // this phone's own sheet, unless the server has since counted another one
    kind = r.status === "accepted" ? "is-sent" : "is-referee";
    title = r.status === "accepted" ? S.sent_title : (r.status === "rejected" ? S.rejected_title : S.referee_title);
    message = resultText(r);
    receipt = r.receipt;
    shown = server && server.receipt === r.receipt ? server : { sums_cents: r.sums_cents };
    buttons.correct = mode === "done" && !!server && server.status === "accepted";
  } else if (server) {
    // another phone (or the results desk) got there first
    kind = server.status === "accepted" ? "is-sent" : "is-referee";
    title = S.received_title;
    message = fmt(server.status === "accepted" ? S.received : S.received_pending, { receipt: server.receipt || "–" });
    shown = server;
    buttons.correct = server.status === "accepted";
  }
  if (mode === "entry" || mode === "signing") {
    // a correction being made, or nothing known yet: the form says it all
    if (!server || (state.draft && state.draft.base_version)) title = "";
    buttons.correct = false;
    receipt = "";
  }
  var news = "";
  if (mode !== "entry" && mode !== "signing" && !item && server) {
    var cases = state.cases || [];
    if (cases.indexOf("dispute") >= 0) news = S.case_dispute;
    else if (cases.length || server.status === "pending") news = S.case_referee;
    else if (r && r.receipt && server.receipt && r.receipt !== server.receipt && server.status === "accepted") {
      news = fmt(S.other_counts, { receipt: server.receipt });
    } else if (server.corrected) news = S.case_corrected;
  }
  $("status-case").textContent = news;
  show($("status-case"), !!news && !!title);
  if (news && kind === "is-sent") kind = "is-referee";
  box.className = "card status-box " + kind;
  $("status-title").textContent = title;
  $("status-text").textContent = message;
  $("receipt").textContent = receipt;
  show($("receipt"), !!receipt && message.indexOf(receipt) < 0);  // the code once
  Object.keys(buttons).forEach(function (id) { show($(id), buttons[id]); });
  show($("send-offline"), buttons["send-now"] && !!state.offline);
  $("send-offline").textContent = S.send_offline;
  if (buttons.repin && document.activeElement !== $("repin-pin")) $("repin-pin").value = "";
  var table = $("status-sums");
  show(table, !!shown && !!title);
  if (shown) sumsTable(table, shown, base);
  show(box, !!title);
}
export function renderEntry() {
  var d = state.draft, e = entered();
  show($("correction-banner"), !!d.base_version);
  show($("reason-box"), !!d.base_version);
  if (d.base_version && $("reason").value !== d.reason) $("reason").value = d.reason;
  if (d.base_version) $("correction-banner").textContent = fmt(S.correction_banner, { version: d.base_version });
  var figs = null, pv = null;
  if (e.complete && localPoints(e.sums)) figs = { points: localPoints(e.sums) };
  else if (e.complete && KIND !== "money") {
    askPreview(e, renderEntry);
    pv = state.preview;
    if (pv.status === "ok") figs = pv;
  }
  D.players.forEach(function (p, i) {
    var input = $("sum" + i), out = $("points" + i), s = e.sums[i];
    if (input.value !== d.typed[i]) input.value = d.typed[i];
    var bad = typeof s === "number" && isNaN(s);
    input.classList.toggle("is-bad", bad);
    input.setAttribute("aria-invalid", bad ? "true" : "false");
    input.classList.toggle("red-pen", !!d.base_sums && !bad && s !== null && s !== d.base_sums[i]);
    var pbBad = false;
    if (KIND === "zb+pb") {
      var pbInput = $("pb" + i);
      if (pbInput.value !== d.pb[i]) pbInput.value = d.pb[i];
      pbBad = typeof e.scores[i] === "number" && isNaN(e.scores[i]);
      pbInput.classList.toggle("is-bad", pbBad);
      pbInput.setAttribute("aria-invalid", pbBad ? "true" : "false");
    }
    out.textContent = bad ? (KIND === "money" ? S.not_amount : S.not_whole) : (pbBad ? S.not_whole : figureText(figs, i));
    out.classList.toggle("error", bad || pbBad);
  });
  if (KIND === "score") {
    $("ended-win").checked = d.ended === "win";
    $("ended-time").checked = d.ended === "time";
  }
  if (KIND === "zb+pb") renderPremium();
  if (R.late_fee_cents) {
    D.players.forEach(function (p, i) { $("late" + i).checked = d.late.indexOf(p.start_no) >= 0; });
    var fees = lateText(e.late);
    $("late-entry-line").textContent = fees;
    show($("late-entry-line"), !!fees);
  }
  if (R.keeper_by_lot) {
    $("keeper-lot").checked = !!d.lot;
    $("keeper-who").disabled = !d.lot;
    var want = d.lot && d.keeper_lot ? String(d.keeper_lot) : "";
    if ($("keeper-who").value !== want) $("keeper-who").value = want;
  }
  var partial = e.sums.reduce(function (a, s) { return a + (isNumber(s) ? s : 0); }, 0);
  $("total").textContent = money(partial);
  var hint = "", ok = false;
  if (!e.complete) hint = N === 3 && KIND === "money" ? S.enter_all : S.enter_all_n;
  else if (D.total_cents === null) ok = true;  // a rule set without a fixed table total
  else if (e.total < D.total_cents) hint = fmt(S.total_short, { missing: money(D.total_cents - e.total) });
  else if (e.total > D.total_cents) hint = fmt(S.total_over, { over: money(e.total - D.total_cents) });
  else ok = true;
  $("total-line").classList.toggle("is-ok", ok);
  var noteNeeded = e.negative && !!R.negative_note;  // SEM-C8 where the rule set has it
  show($("note-box"), noteNeeded);
  if ($("note").value !== d.note) $("note").value = d.note;
  if (ok && KIND === "score" && !e.ended) { hint = S.choose_ended; ok = false; }
  if (ok && e.problem) { hint = e.problem; ok = false; }
  if (ok && noteNeeded && !d.note.trim()) { hint = S.note_needed; ok = false; }
  if (ok && d.base_version && !d.reason.trim()) { hint = S.reason_needed; ok = false; }
  if (ok && pv && pv.status === "pending") { hint = S.checking; ok = false; }
  if (ok && pv && pv.status === "ok" && pv.problem) { hint = pv.problem.message || S.refused; ok = false; }
  $("total-hint").textContent = ok ? (D.total_cents === null ? S.all_entered : S.total_ok) : hint;
  $("total-hint").classList.toggle("is-ok", ok);
  $("confirm").disabled = !ok;
}
/* ČSM's lines of games worth the premium line or more (CSM-3): player, game, PB, and which players of the
   table sign the line. Redrawn only when a line comes or goes, so typing keeps its focus. */
function renderPremium() {
  var d = state.draft, box = $("premium-lines"), shape = String(d.games.length);
  if (box.getAttribute("data-shape") === shape) return;
  box.setAttribute("data-shape", shape);
  box.textContent = "";
  d.games.forEach(function (g, k) {
    var line = el("div", "premium-edit");
    line.setAttribute("data-line", String(k));
    line.appendChild(el("p", "premium-title", fmt(S.pg_title, { n: k + 1 })));
    var lab = el("label", "", S.pg_player), sel = el("select");
    sel.id = "pg-player" + k;
    lab.htmlFor = sel.id;
    var none = el("option", "", "–");
    none.value = "";
    sel.appendChild(none);
    D.players.forEach(function (p) {
      var o = el("option", "", p.start_no + " " + p.name);
      o.value = String(p.start_no);
      sel.appendChild(o);
    });
    sel.value = g.start_no ? String(g.start_no) : "";
    sel.addEventListener("change", function () {
      var sn = parseInt(sel.value, 10) || null;
      // the player of the game signs their line (CSM-3): ticked and locked; the one chosen before is let go
      if (g.start_no && g.start_no !== sn) g.signed_by = g.signed_by.filter(function (x) { return x !== g.start_no; });
      if (sn && g.signed_by.indexOf(sn) < 0) g.signed_by.push(sn);
      g.start_no = sn;
      box.removeAttribute("data-shape");
      edited();
    });
    line.appendChild(lab);
    line.appendChild(sel);
    var gl = el("label", "", S.pg_game), game = el("input");
    game.id = "pg-game" + k;
    game.maxLength = 60;
    game.autocomplete = "off";
    game.value = g.game;
    gl.htmlFor = game.id;
    game.addEventListener("input", function () { g.game = game.value; edited(); });
    line.appendChild(gl);
    line.appendChild(game);
    var pl = el("label", "", S.pg_pb), pb = el("input");
    pb.id = "pg-pb" + k;
    pb.inputMode = "numeric";
    pb.autocomplete = "off";
    pb.maxLength = 6;
    pb.value = g.pb;
    pl.htmlFor = pb.id;
    pb.addEventListener("input", function () { g.pb = pb.value; edited(); });
    line.appendChild(pl);
    line.appendChild(pb);
    var by = el("fieldset", "premium-by");
    by.appendChild(el("legend", "", S.pg_by));
    D.players.forEach(function (p) {
      var l = el("label", "check"), c = el("input");
      c.type = "checkbox";
      c.id = "pg-by" + k + "-" + p.start_no;
      c.value = String(p.start_no);
      c.checked = g.signed_by.indexOf(p.start_no) >= 0 || g.start_no === p.start_no;
      c.disabled = g.start_no === p.start_no;
      c.addEventListener("change", function () {
        g.signed_by = g.signed_by.filter(function (x) { return x !== p.start_no; });
        if (c.checked) g.signed_by.push(p.start_no);
        edited();
      });
      l.appendChild(c);
      l.appendChild(document.createTextNode(" " + p.start_no + " " + p.name));
      by.appendChild(l);
    });
    line.appendChild(by);
    var rm = el("button", "premium-remove", S.pg_remove);
    rm.type = "button";
    rm.id = "pg-remove" + k;
    rm.addEventListener("click", function () { d.games.splice(k, 1); edited(); });
    line.appendChild(rm);
    box.appendChild(line);
  });
}
export function edited() {
  saveDraft(false);
  renderEntry();
}
/* The premium-game lines (their numbers) a player's signature also confirms (CSM-3) */
function premiumLinesOf(content, startNo) {
  var out = [];
  ((content && content.premium_games) || []).forEach(function (g, k) {
    if (g.signed_by.indexOf(startNo) >= 0) out.push(k + 1);
  });
  return out;
}
export function signedBy(d, startNo) {
  return d.signatures.filter(function (s) { return s.start_no === startNo; })[0] || null;
}
export function nextSigner(d) {
  for (var i = 0; i < N; i++) if (!signedBy(d, D.players[i].start_no)) return i;
  return N;
}
/* Confirmed sums as they are signed: the table, the SEM-C8 note, and whether the referee must sign too. */
function renderLocked(content, base, tableId, noteId, refereeId) {
  if (KIND !== "money") fetchFigures(content, render);
  sumsTable($(tableId), content, base);
  show($(noteId), !!content.note);
  $(noteId).textContent = content.note ? fmt(S.note_shown, { note: content.note }) : "";
  var referee = content.base_version ? S.referee_will_correction
    : (R.negative_note && content.sums_cents.some(function (s) { return s < 0; }) ? S.referee_will_negative : "");
  $(refereeId).textContent = referee;
  show($(refereeId), !!referee);
}
function renderSigning() {
  var d = state.draft, k = nextSigner(d);
  renderLocked(d.content, d.base_sums, "locked-sums", "locked-note", "referee-needed");
  // who submits the sheet (SEM-C4, TH-6): the server said when the results were confirmed
  var figs = state.figs[contentKey(d.content)], keeper = figs && typeof figs.keeper === "number" ? figs.keeper : null;
  var keeperText = keeper !== null && R.keeper === null && D.players[keeper] && KIND !== "money"
    ? fmt(S.keeper_sends, { name: D.players[keeper].name }) : "";
  $("keeper-line").textContent = keeperText;
  show($("keeper-line"), !!keeperText);
  var lost = (state.lost || []).filter(function (sn) { return !signedBy(d, sn); });
  $("sig-lost").textContent = lost.length ? fmt(S.signatures_lost, { who: lost.map(function (sn) {
    return sn + " " + nameOf(sn); }).join(", ") }) : "";
  show($("sig-lost"), lost.length > 0);
  show($("change"), d.signatures.length === 0);
  show($("change-gone"), d.signatures.length > 0);
  show($("own-hint"), !!d.published);
  var list = $("signers");
  list.textContent = "";
  D.players.forEach(function (p, i) {
    var signed = signedBy(d, p.start_no);
    var li = el("li", signed ? "is-signed" : (i === k ? "is-next" : ""));
    li.appendChild(el("span", "seat-no", String(p.start_no)));
    li.appendChild(document.createTextNode(" " + p.name + " "));
    li.appendChild(el("b", "sig-state", signed ? (signed.own_phone ? S.own_signed_mark : S.signed_mark)
      : (i === k ? S.signing_now : S.to_sign)));
    var lines = premiumLinesOf(d.content, p.start_no);
    if (lines.length) li.appendChild(el("small", "sig-premium", " " + fmt(S.also_premium, { n: lines.join(", ") })));
    if (i === k) li.setAttribute("aria-current", "step");
    list.appendChild(li);
  });
  show($("pin-offline"), navigator.onLine === false || !!state.offline || !!state.unchecked);
  if (k >= N) return;
  var p = D.players[k];
  $("sig-turn").textContent = fmt(S.sign_as, { position: k + 1, start_no: p.start_no, name: p.name });
  $("pin-label").textContent = fmt(S.pin_of, { start_no: p.start_no, name: p.name });
  if (!state.pad) {
    state.pad = window.ListokSignature.create($("sig-pad"));
  } else {
    state.pad.fit();
  }
}
export function ownSignedKey() { return "listok-own:" + D.token + ":" + state.offer.content_hash; }
/* Who still has to sign; once everybody has and the winner's phone has not sent the sheet
   within the server's time, this phone sends it (every signature is on the server already). */
function renderForward() {
  var o = state.offer, box = $("own-forward"), text = "", ready = false;
  var missing = o.missing || D.players.map(function (p) { return p.start_no; }).filter(function (sn) {
    return o.signed.indexOf(sn) < 0;
  });
  if (missing.length) {
    text = fmt(S.own_missing, { who: D.players.filter(function (p) { return missing.indexOf(p.start_no) >= 0; })
      .map(function (p) { return p.start_no + " " + p.name; }).join(", ") });
  } else if ((o.signed_here || []).length) {
    text = S.own_all_signed_there;  // the keeper's phone holds some signatures: it sends
  } else if (typeof o.send_in === "number") {
    var at = (state.offerAt || Date.now()) + o.send_in * 1000;
    ready = Date.now() >= at;
    text = ready ? S.own_send_ready : fmt(S.own_all_signed, { time: timeText(new Date(at).toISOString()) });
  }
  $("own-missing").textContent = text;
  show($("own-send"), ready);
  show(box, !!text);
}
function renderOwn() {
  var o = state.offer, c = o.content, mine = null;
  renderForward();
  try { mine = parseInt(sessionStorage.getItem(ownSignedKey()), 10) || null; } catch (e) { /* private mode */ }
  renderLocked(c, null, "own-sums", "own-note", "own-referee");
  var me = mine && o.signed.indexOf(mine) >= 0 ? D.players.filter(function (p) { return p.start_no === mine; })[0] : null;
  show($("own-done"), !!me);
  $("own-done").textContent = me ? fmt(S.own_done, { name: me.name }) : "";
  show($("own-form"), !me);
  if (me) return;
  var here = o.signed_here || [];
  var box = $("own-who"), chosen = box.querySelector("input:checked");
  var key = o.content_hash + o.signed.join(",") + "/" + here.join(",");
  var keep = chosen ? parseInt(chosen.value, 10) : null;
  if (!state.ownPad) state.ownPad = window.ListokSignature.create($("own-pad"));
  if (box.getAttribute("data-key") === key) return;  // polled again, nothing new: leave the choice alone
  box.setAttribute("data-key", key);
  box.textContent = "";
  D.players.forEach(function (p) {
    var there = here.indexOf(p.start_no) >= 0, done = there || o.signed.indexOf(p.start_no) >= 0;
    var label = el("label", "own-choice" + (done ? " is-signed" : ""));
    var input = el("input");
    input.type = "radio";
    input.name = "own-who";
    input.value = String(p.start_no);
    input.disabled = done;
    input.checked = !done && keep === p.start_no;
    label.appendChild(input);
    label.appendChild(el("span", "seat-no", String(p.start_no)));
    label.appendChild(document.createTextNode(" " + p.name));
    if (done) label.appendChild(el("b", "sig-state", there ? S.signed_there : S.signed_mark));
    box.appendChild(label);
  });
}
