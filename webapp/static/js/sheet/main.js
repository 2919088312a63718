/* The table's score sheet on the winner's phone (SEM-B5, C4, C6, C8):
   trial entry with the live total and points, confirmed (locked) sums, three
   signatures (finger + PIN) bound to the content hash, then the outbox.
   Every text comes translated from the page (#sheet-strings).
   An ES module the page loads with <script type="module"> (after the classic
   scripts it leans on: sha256.js, outbox.js, signature.js); its sections: numbers,
   content and hash, talking to the server, messages, drafts, the server's figures,
   rendering, actions, signing on one's own phone, offline mode, wiring. */
var D = JSON.parse(document.getElementById("sheet-data").textContent);
var S = JSON.parse(document.getElementById("sheet-strings").textContent);
var N = D.players.length;
// what the table's rule set takes (docs/SYNC.md "Rule sets"): data from the server, no rule set named here
var R = D.rules || { result_kind: "money", negative_note: true, keeper: null, premium_line: null };
var KIND = R.result_kind;
var Outbox = window.ListokOutbox;
var state = { draft: null, item: null, result: null, server: D.sheet, pad: null, busy: false,
  offer: D.draft || null, ownPad: null, entryChosen: false, pins: {}, preview: null, figs: {} };
// PINs the server has not answered a proof for (offline), by start number: in memory only, until the
// sheet goes to the outbox. Drafts never hold a PIN (docs/SYNC.md, "What a phone keeps").
var POLL_SIGNING = 3000, POLL_IDLE = 10000;

function $(id) { return document.getElementById(id); }
function show(el, on) { el.hidden = !on; }
function fmt(text, values) {
  return text.replace(/%\((\w+)\)[sd]/g, function (m, k) { return values[k] !== undefined ? values[k] : m; });
}
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ------------------------------------------------------------------ numbers

/* Numbers as the page's language writes them (Intl.NumberFormat), the server's signs where it has none */
var LANG = S.lang || document.documentElement.lang || "en";
var NF2 = null, NFP = null;
try {
  NF2 = new Intl.NumberFormat(LANG, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  NFP = new Intl.NumberFormat(LANG, { maximumFractionDigits: 2 });
} catch (e) { /* a browser without Intl: the server's signs below */ }
function amount(cents) {
  var c = Math.abs(cents);
  if (NF2) return NF2.format(c / 100);
  var whole = String(Math.floor(c / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, D.money.group);
  return whole + D.money.decimal + ("0" + (c % 100)).slice(-2);
}
function money(cents) {
  if (D.money.whole && cents % 100 === 0) return (cents < 0 ? "-" : "") + D.money.template.replace("{}", String(Math.abs(cents / 100)));
  return (cents < 0 ? "-" : "") + D.money.template.replace("{}", amount(cents));
}

/* A whole number (ZB, PB, a game score): "-35", "+5", "120"; null when empty; NaN when not one */
function parseWhole(text) {
  var t = String(text || "").replace(/[\s\u00a0\u202f]/g, "").replace(/[\u2212\u2013]/g, "-");
  if (!t) return null;
  return /^[+-]?\d{1,7}$/.test(t) ? parseInt(t, 10) : NaN;
}
function isNumber(v) { return typeof v === "number" && !isNaN(v); }
/* An object with its keys sorted at every level: JSON.stringify then gives the canonical form */
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!v || typeof v !== "object") return v;
  var out = {};
  Object.keys(v).sort().forEach(function (k) { out[k] = sortKeys(v[k]); });
  return out;
}

/* "14,50", "14.5", "-1", "−3,20 €" → cents; null when empty; NaN when not an amount */
function parseSum(text) {
  var t = String(text || "").replace(/[\s\u00a0\u202f€]/g, "").replace(/[\u2212\u2013]/g, "-").replace(",", ".");
  if (!t) return null;
  var m = /^([+-]?)(\d{0,6})(?:\.(\d{0,2}))?$/.exec(t);
  if (!m || (!m[2] && !m[3])) return NaN;
  var cents = parseInt(m[2] || "0", 10) * 100 + parseInt(((m[3] || "") + "00").slice(0, 2), 10);
  return m[1] === "-" && cents ? -cents : cents;
}

/* SEM-C6: places 5/3/1, equal sums share the points of the places they span */
function tablePoints(sums) {
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
function pointsText(p) {
  var shown = NFP ? NFP.format(p) : String(Math.round(p * 100) / 100).replace(".", D.money.decimal);
  return fmt(plural(S.points_forms, p), { points: shown });
}

// ------------------------------------------------------------------ content and hash

/* The signed content (docs/SYNC.md): the rule set's own keys only when it has them, as the server hashes it */
function contentOf(e, note, base) {
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
function sha256(text) {
  if (window.crypto && crypto.subtle && window.TextEncoder) {
    return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(hex,
      function () { return window.listokSha256(text); });
  }
  return Promise.resolve(window.listokSha256(text));  // plain HTTP: no WebCrypto
}

// ------------------------------------------------------------------ talking to the server

function api(url, body, timeout) {
  var ctrl = window.AbortController ? new AbortController() : null;
  var timer = ctrl ? setTimeout(function () { ctrl.abort(); }, timeout || 8000) : null;
  var opts = { credentials: "same-origin", cache: "no-store", headers: { "Accept": "application/json" },
    signal: ctrl ? ctrl.signal : undefined };
  if (body) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  return fetch(url, opts).then(function (res) {
    setNet(true);
    return res.json().then(function (d) { return { http: res.status, data: d }; },
      function () { return { http: res.status, data: null }; });
  }, function (err) { setNet(false); throw err; }).finally(function () { if (timer) clearTimeout(timer); });
}

/* The phone always tells the truth: a badge while the server cannot be reached. */
function setNet(online) {
  state.offline = !online;
  show($("net-badge"), !online);
  var note = $("send-offline");
  if (note) { note.textContent = S.send_offline; show(note, !online && !!state.item && state.item.state !== "blocked"); }
  if ($("pin-offline")) show($("pin-offline"), !online || !!state.unchecked);
}

function refreshServer() {
  var r = state.result, url = D.api.table + "?token=" + encodeURIComponent(D.token);
  if (r && r.receipt) url += "&receipt=" + encodeURIComponent(r.receipt);
  return api(url).then(function (ans) {
    if (ans.data && ans.data.status === "ok") {
      if (r && r.receipt && r.ack && !ans.data.mine && !state.resending) {
        // the server does not know the sheet it acknowledged (a standby restored from an older copy)
        state.resending = true;
        Outbox.resend(D.token).finally(function () { state.resending = false; });
        return;
      }
      learnOutcome(ans.data.mine);
      state.server = ans.data.sheet;
      state.offer = ans.data.draft || null;
      state.offerAt = Date.now();
      state.cases = ans.data.open_cases || [];
      // another phone (or the desk) got there first: shown as a fresh load shows it, not under an empty form
      if (state.server && !state.item && isBlank(state.draft)) state.draft = null;
      render();
      if (fixedData(ans.data) !== fixedData(D) || otherLanguage()) {
        renewPage("refresh-page", fixedData(ans.data) + " " + chosenLanguage());
      }
    } else if (ans.data && ans.http === 410) {
      state.gone = true;
      Outbox.forget(D.token);
      render();
    } else if (ans.http === 403 || ans.http === 404) {
      renewPage("drop-page", String(ans.http));  // a fresh load shows the server's own message
    }
  }, function () { /* offline: the page's own data stays */ });
}

/* What the referee decided about the sheet this phone sent: kept with its receipt, so a reload
   (also without Wi-Fi) still says it */
function learnOutcome(mine) {
  var r = state.result;
  if (!r || !mine || mine.receipt !== r.receipt || r.status === "accepted") return;
  var decided = mine.status === "accepted" || mine.status === "superseded" ? "accepted"
    : (mine.status === "rejected" ? "rejected" : null);
  if (!decided || r.status === decided) return;
  r.status = decided;
  r.decided = true;
  Outbox.saveResult(r);
}

function isBlank(d) {
  return !!d && !d.locked && !d.base_version && !d.note && d.typed.every(function (t) { return !t; });
}

/* The language the phone chose since (the `lang` cookie of the language links), when the page is in another:
   a copy made before the choice. A link with ?lang= is its own page. */
function chosenLanguage() {
  var m = /(?:^|;\s*)lang=([^;]*)/.exec(document.cookie || "");
  return m ? m[1] : "";
}
function otherLanguage() {
  var lang = chosenLanguage();
  return !!lang && !/[?&]lang=/.test(location.search) && lang !== document.documentElement.lang;
}
/* What the page was made with that the script does not redraw: the table's players, its total, whose cards. */
function fixedData(t) {
  return JSON.stringify([t.players.map(function (p) { return [p.start_no, p.name, p.club || ""]; }),
    t.total_cents, t.cards_position === undefined ? null : t.cards_position]);
}

/* The page came from the service worker's copy and is out of date (or its link is no longer valid):
   the worker renews or drops its copy, then the page loads again — once for a given state of the
   table (sessionStorage), so never in a loop; never while the players are signing. */
function renewPage(what, mark) {
  var worker = navigator.serviceWorker && navigator.serviceWorker.controller, key = "listok-renewed:" + D.token;
  if (!worker || state.renewing || (state.draft && state.draft.locked)) return;
  if (state.ownPad && !state.ownPad.isEmpty()) return;  // a player is signing on their own phone
  try {
    if (sessionStorage.getItem(key) === what + mark) return;
    sessionStorage.setItem(key, what + mark);
  } catch (e) { return; }
  state.renewing = true;
  new Promise(function (resolve) {
    var ch = new MessageChannel();
    ch.port1.onmessage = function (ev) { resolve(ev.data || {}); };
    worker.postMessage({ type: what, url: location.href }, [ch.port2]);
    setTimeout(function () { resolve({}); }, 15000);
  }).then(function (answer) {
    if (!answer.ok && !answer.dropped && what !== "drop-page") { state.renewing = false; return; }
    return saveDraft(true).then(function () { location.reload(); });
  });
}

/* Online: is the PIN right? Offline or server trouble: the server checks it on submit.
   A right PIN earns a proof for these sums, so the server need not check it again then. */
function checkPin(startNo, pin, contentHash) {
  if (navigator.onLine === false) return Promise.resolve({ ok: true });
  return api(D.api.pin, { token: D.token, start_no: startNo, pin: pin, content_hash: contentHash }).then(function (ans) {
    var d = ans.data;
    if (d && d.status === "ok") return { ok: true, proof: d.proof };
    if (!d || ans.http >= 500) return { ok: true };
    return { ok: false, problem: d };
  }, function () { return { ok: true }; });
}

// ------------------------------------------------------------------ messages

function timeText(iso) {
  var d = new Date(iso);
  return isNaN(d) ? iso : ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
}
function problemText(p) {
  if (!p) return "";
  var sn = p.start_no;
  if (p.status === "locked") return fmt(S.locked, { start_no: sn, time: timeText(p.until) });
  if (p.error === "wrong-pin") {
    return p.attempts_left !== undefined && p.attempts_left !== null
      ? fmt(S.wrong_pin_left, { start_no: sn, left: p.attempts_left }) : fmt(S.wrong_pin, { start_no: sn });
  }
  if (p.error === "stale-version") return S.stale_version;
  if (p.error === "idempotency-conflict") return S.idempotency_conflict;
  if (p.status === "gone") return S.gone;
  if (p.status === "forbidden") return S.forbidden;
  return p.message || S.refused;
}
function resultText(r) {
  if (r.decided) return fmt(r.status === "accepted" ? S.outcome_accepted : S.outcome_rejected, { receipt: r.receipt });
  if (r.status === "dispute") return fmt(S.dispute, { receipt: r.receipt });
  if (r.status === "needs-referee") {
    if (r.reason === "pin-mismatch") {
      return fmt(S.referee_pin_mismatch, { receipt: r.receipt, who: (r.pin_failed || []).join(", ") });
    }
    var text = r.reason === "correction" ? S.referee_correction
      : (r.reason === "pin-reissued" ? S.referee_pin : S.referee_negative);
    return fmt(text, { receipt: r.receipt });
  }
  if (r.retaken) return fmt(S.retaken, { receipt: r.receipt });
  return fmt(S.sent, { receipt: r.receipt });
}

// ------------------------------------------------------------------ drafts

function typedOf(cents) {
  if (KIND !== "money") return String(cents / 100);
  return (cents < 0 ? "-" : "") + amount(cents).split(D.money.group).join("");
}
function newDraft(base) {
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
function withoutPins(d, pins) {
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
function filledIn(d) {
  if (!d.pb) d.pb = D.players.map(function () { return ""; });
  if (!d.games) d.games = [];
  if (typeof d.ended !== "string") d.ended = "";
  if (typeof d.reason !== "string") d.reason = "";
  if (!d.late) d.late = [];
  if (d.keeper_lot === undefined) { d.lot = false; d.keeper_lot = null; }
  return d;
}
var saveTimer = null;
function saveDraft(now) {
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
function entered() {
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

// ------------------------------------------------------------------ the server's figures

/* Points the page may compute itself: money sheets by the rule set's place points (also offline).
   Every other result kind asks the server (POST /api/v1/preview), which applies the rule set. */
function localPoints(sums) {
  return KIND === "money" && D.place_points.length === sums.length ? tablePoints(sums) : null;
}
function figuresKey(e) {
  return JSON.stringify([e.sums, e.scores || null, e.ended || null, e.games && e.games.length ? e.games : null]);
}
var previewTimer = null;
function askPreview(e) {
  var key = figuresKey(e);
  if (state.preview && state.preview.key === key) return;
  state.preview = { key: key, status: "pending" };
  if (previewTimer) clearTimeout(previewTimer);
  previewTimer = setTimeout(function () {
    var content = contentOf(e, "", state.draft ? state.draft.base_version : 0);
    var done = function (value) {
      if (!state.preview || state.preview.key !== key) return;
      value.key = key;
      state.preview = value;
      if (state.draft && !state.draft.locked) renderEntry();
    };
    api(D.api.preview, { token: D.token, content: content }, 5000).then(function (ans) {
      var a = ans.data;
      if (a && a.status === "ok") {
        done({ status: "ok", points: a.points || null, sb: a.sb || null, keeper: a.keeper, problem: a.problem });
      } else if (a && (ans.http === 400 || ans.http === 422)) {
        done({ status: "ok", problem: a });
      } else {
        done({ status: "failed" });  // the server checks again when the sheet is sent
      }
    }, function () { done({ status: "failed" }); });
  }, 250);
}
function figureText(figs, i) {
  if (!figs) return "";
  if (figs.points && figs.points[i] !== null && figs.points[i] !== undefined) return pointsText(figs.points[i]);
  if (figs.sb) return fmt(S.sb, { sb: figs.sb[i] });
  return "";
}

// ------------------------------------------------------------------ rendering

function render() {
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

var PIN_PROBLEMS = { "wrong-pin": 1, "pin-needed": 1, "no-pin": 1 };
/* The first signature of an outbox item the server needs a PIN for (the outbox dropped the PINs it had
   when the server answered), in seat order. */
function pinNeeded(item) {
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

function renderEntry() {
  var d = state.draft, e = entered();
  show($("correction-banner"), !!d.base_version);
  show($("reason-box"), !!d.base_version);
  if (d.base_version && $("reason").value !== d.reason) $("reason").value = d.reason;
  if (d.base_version) $("correction-banner").textContent = fmt(S.correction_banner, { version: d.base_version });
  var figs = null, pv = null;
  if (e.complete && localPoints(e.sums)) figs = { points: localPoints(e.sums) };
  else if (e.complete && KIND !== "money") {
    askPreview(e);
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
function edited() {
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

function signedBy(d, startNo) {
  return d.signatures.filter(function (s) { return s.start_no === startNo; })[0] || null;
}
function nextSigner(d) {
  for (var i = 0; i < N; i++) if (!signedBy(d, D.players[i].start_no)) return i;
  return N;
}

/* Confirmed sums as they are signed: the table, the SEM-C8 note, and whether the referee must sign too. */
function renderLocked(content, base, tableId, noteId, refereeId) {
  if (KIND !== "money") fetchFigures(content);
  sumsTable($(tableId), content, base);
  show($(noteId), !!content.note);
  $(noteId).textContent = content.note ? fmt(S.note_shown, { note: content.note }) : "";
  var referee = content.base_version ? S.referee_will_correction
    : (R.negative_note && content.sums_cents.some(function (s) { return s < 0; }) ? S.referee_will_negative : "");
  $(refereeId).textContent = referee;
  show($(refereeId), !!referee);
}

/* The server's figures for confirmed content this page has none for (a reload, a sheet from another phone). */
function fetchFigures(content) {
  var key = contentKey(content);
  if (state.figs[key] || navigator.onLine === false) return;
  state.figs[key] = { pending: true };
  api(D.api.preview, { token: D.token, content: content }, 5000).then(function (ans) {
    if (ans.data && ans.data.status === "ok") {
      state.figs[key] = { points: ans.data.points || null, sb: ans.data.sb || null, keeper: ans.data.keeper };
      render();
    } else delete state.figs[key];
  }, function () { delete state.figs[key]; });
}
function contentKey(c) {
  return figuresKey({ sums: c.sums_cents, scores: c.scores, ended: c.ended, games: c.premium_games });
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

// ------------------------------------------------------------------ actions

function onInput(i, value) {
  state.draft.typed[i] = value;
  saveDraft(false);
  renderEntry();
}

function toggleSign(i) {
  var v = state.draft.typed[i].trim();
  onInput(i, v.charAt(0) === "-" || v.charAt(0) === "\u2212" ? v.slice(1) : "-" + v);
  $("sum" + i).focus();
}

function confirmSums(ev) {
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

function changeSums() {
  var d = state.draft;
  if (d.signatures.length) return;  // signed sums change only as a correction (SEM-C4)
  d.locked = false;
  d.content = null;
  d.content_hash = null;
  saveDraft(true).then(function () { render(); $("sum0").focus(); });
}

function sign() {
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

function startCorrection() {
  var base = state.server;
  if (!base) return;
  state.draft = newDraft(base);
  state.result = null;
  saveDraft(true).then(function () { render(); $("sum0").focus(); });
}

function reload() {
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

// ------------------------------------------------------------------ signing on one's own phone

function nowIso() { return new Date().toISOString().replace(/\.\d+Z$/, "Z"); }

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

function pullOwnSignatures() {
  var d = state.draft;
  if (!d.published || d.publishedHere !== signedHere(d).join(",")) return publishDraft();
  var url = D.api.table + "?token=" + encodeURIComponent(D.token) + "&draft=" + d.content_hash;
  return api(url).then(function (ans) {
    if (!ans.data || ans.data.status !== "ok") return;
    if (!ans.data.draft) { d.published = false; return publishDraft(); }
    return mergeOwn(d, ans.data.draft.signed);
  }, function () { /* offline: next time */ });
}

var lastIdlePoll = 0;
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

function ownSignedKey() { return "listok-own:" + D.token + ":" + state.offer.content_hash; }

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

function ownSend() {
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

function ownSign() {
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

// ------------------------------------------------------------------ offline mode

function setupOffline() {
  var off = $("offline-off");
  if (!window.isSecureContext || !("serviceWorker" in navigator)) {
    off.textContent = window.isSecureContext ? S.offline_unsupported : S.offline_insecure;
    show(off, true);
    return;
  }
  show(off, false);
  navigator.serviceWorker.register(D.sw, { scope: "/", updateViaCache: "all" }).then(function () {
    return navigator.serviceWorker.ready;
  }).then(function (reg) {
    return new Promise(function (resolve) {
      var ch = new MessageChannel();
      ch.port1.onmessage = function (ev) { resolve(!!(ev.data && ev.data.ok)); };
      reg.active.postMessage({ type: "cache-page", url: location.href }, [ch.port2]);
      setTimeout(function () { resolve(false); }, 15000);
    });
  }).then(function (ok) {
    if (!ok) return;
    show($("offline-ready"), true);
    document.documentElement.setAttribute("data-offline", "ready");
  }).catch(function () { /* no offline mode: the page still works online */ });
}

function fromCache() {
  var nav = window.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
  return !!(nav && nav.transferSize === 0 && nav.workerStart > 0);
}

// ------------------------------------------------------------------ wiring

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
