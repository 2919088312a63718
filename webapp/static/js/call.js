// "Call the referee" on the table's sheet and on a player's own page
// (templates/table/_call.html, services/calls.py): the call goes to the
// referees' queue; while it is open or taken the page asks every 5 s what
// became of it ("referee Novák is coming", then the note it was closed with).
// A page asks on loading only when this phone has a call out (kept in
// localStorage), so the cached sheet still loads with no request of its own.
(function () {
  "use strict";
  var POLL_MS = 5000, KEEP_MS = 3 * 3600 * 1000;

  function remembered(url) {
    try { return Date.now() - Number(localStorage.getItem("listok-call:" + url) || 0) < KEEP_MS; }
    catch (e) { return true; }
  }
  function remember(url, active) {
    try {
      if (active) localStorage.setItem("listok-call:" + url, String(Date.now()));
      else localStorage.removeItem("listok-call:" + url);
    } catch (e) { /* private mode: the page just does not ask on its next load */ }
  }

  function setup(box) {
    var url = box.getAttribute("data-call-url");
    // the player's key ("my tournament") travels in a header, never in an address a log keeps
    var key = box.getAttribute("data-call-key");
    var keyHeaders = key ? { "X-Listok-Player-Key": key } : {};
    var strings = JSON.parse(box.querySelector("#call-strings").textContent);
    var openBtn = box.querySelector("#call-open"), form = box.querySelector("#call-form");
    var reason = box.querySelector("#call-reason"), send = box.querySelector("#call-send");
    var status = box.querySelector("#call-status");
    var timer = null;

    function fill(text, values) {
      return text.replace(/%\((\w+)\)s/g, function (m, k) { return values[k] === undefined ? m : values[k]; });
    }
    function say(text, kind) {
      status.textContent = text;
      status.className = "call-status" + (kind ? " call-" + kind : "");
      status.hidden = !text;
    }
    function show(state) {
      var active = state.status === "open" || state.status === "taken";
      if (state.status === "open") say(fill(strings.sent, { t: state.table || box.getAttribute("data-table") }), "open");
      else if (state.status === "taken") say(fill(strings.taken, { name: state.taken_by }), "taken");
      else if (state.status === "closed") say(fill(strings.closed, { note: state.note }), "closed");
      openBtn.hidden = active;
      remember(url, active);
      if (active) form.hidden = true;
      clearTimeout(timer);
      if (active) timer = setTimeout(poll, POLL_MS);
    }
    function poll() {
      fetch(url, { credentials: "same-origin", cache: "no-store", headers: keyHeaders })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (state) { if (state) show(state); else timer = setTimeout(poll, POLL_MS); },
              function () { timer = setTimeout(poll, POLL_MS); });
    }
    openBtn.addEventListener("click", function () {
      form.hidden = false;
      openBtn.hidden = true;
      reason.focus();
    });
    send.addEventListener("click", function () {
      send.disabled = true;
      fetch(url, { method: "POST", credentials: "same-origin", cache: "no-store",
                   headers: Object.assign({ "Content-Type": "application/json" }, keyHeaders),
                   body: JSON.stringify({ reason: reason.value }) })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (a) {
          send.disabled = false;
          if (a.ok) { reason.value = ""; show(a.body); }
          else say(a.body.message || strings.refused, "refused");
        }, function () {
          send.disabled = false;
          say(strings.offline, "refused");
        });
    });
    if (remembered(url)) poll();
  }

  function start() {
    var box = document.getElementById("call-box");
    if (box) setup(box);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
