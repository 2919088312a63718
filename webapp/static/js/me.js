// "My tournament" (views/public/me.py): the phone keeps the player's start
// number and key for this tournament (localStorage), polls the player's part
// every few seconds with its ETag (the browser revalidates: a 304 costs the
// server one small query), keeps the last one it got and shows its age when
// the server cannot be reached. The round clock (clock.js) is set against the
// server's clock: the answer's Date header.
(function () {
  "use strict";
  var root = document.getElementById("me");
  if (!root) return;
  var KEY = "listok-me-" + root.getAttribute("data-tid");
  var S = JSON.parse(document.getElementById("me-strings").textContent);
  var form = document.getElementById("me-sign-on"), box = document.getElementById("me-now");
  var ageLine = document.getElementById("me-age"), forget = document.getElementById("me-forget");
  var callBox = document.getElementById("call-box");
  var lang = document.documentElement.lang || undefined;
  var stopped = false;
  var POLL_MS = Number(root.getAttribute("data-poll")) * 1000 || 15000;

  function load() { try { return JSON.parse(localStorage.getItem(KEY)) || null; } catch (e) { return null; } }
  function save(o) { try { localStorage.setItem(KEY, JSON.stringify(o)); } catch (e) { /* private mode: not kept */ } }
  function fill(text, values) {
    return text.replace(/%\((\w+)\)s/g, function (m, k) { return values[k] === undefined ? m : values[k]; });
  }
  function hhmm(ms) { return new Date(ms).toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" }); }
  function age(ms) {
    var minutes = Math.max(0, Math.round((Date.now() - ms) / 60000));
    if (window.Intl && Intl.RelativeTimeFormat) {
      return new Intl.RelativeTimeFormat(lang, { numeric: "auto" }).format(-minutes, "minute");
    }
    return minutes + " min";
  }

  // the personal QR of the PIN slip: /t/<id>/me#n=<start number>&k=<key>
  var fromLink = /[#&]n=(\d+)&k=([\w.\-]+)/.exec(location.hash);
  if (fromLink) {
    save({ start_no: Number(fromLink[1]), key: fromLink[2] });
    history.replaceState(null, "", location.pathname + location.search);
  }
  var me = load();

  function signOn(message) {
    if (callBox) callBox.remove();
    form.hidden = false;
    document.getElementById("me-error").textContent = message || "";
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var err = document.getElementById("me-error");
      err.textContent = "";
      fetch(root.getAttribute("data-sign-on"), {
        method: "POST", credentials: "same-origin", cache: "no-store", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ start_no: document.getElementById("me-start-no").value,
                               pin: document.getElementById("me-pin").value })
      }).then(function (r) { return r.json(); }).then(function (a) {
        if (a.status !== "ok") { err.textContent = a.message; return; }
        save({ start_no: a.start_no, key: a.key });
        location.reload();
      }, function () { err.textContent = S.failed; });
    });
  }

  if (!me || !me.key) { signOn(""); return; }

  // a key the server no longer takes (the PIN was issued anew): forgotten, sign on again;
  // no answer (offline) keeps it
  fetch(root.getAttribute("data-key"), {
    method: "POST", credentials: "same-origin", cache: "no-store", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ key: me.key })
  }).then(function (r) {
    if (r.ok) {
      return r.json().then(function (a) {
        if (a.start_no !== me.start_no) { me.start_no = a.start_no; delete me.html; save(me); location.reload(); }
      });
    }
    if (r.status !== 403) return;
    return r.json().then(function (a) {
      try { localStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
      stopped = true;
      box.innerHTML = "";
      ageLine.hidden = true;
      forget.hidden = true;
      signOn(a.message);
    });
  }).catch(function () { /* offline: the page as last loaded */ });

  if (callBox) {
    callBox.setAttribute("data-call-url", root.getAttribute("data-call"));
    callBox.setAttribute("data-call-key", me.key);
  }
  forget.hidden = false;
  forget.addEventListener("click", function () {
    try { localStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
    location.reload();
  });
  var nowUrl = root.getAttribute("data-now").replace(/\/0\/now$/, "/" + me.start_no + "/now");

  function render() {
    box.innerHTML = me.html;
    var clocks = box.querySelectorAll("[data-clock]");
    for (var i = 0; i < clocks.length; i++) clocks[i].setAttribute("data-now", new Date(Date.now() + (me.offset || 0)).toISOString());
    if (callBox) callBox.hidden = !box.querySelector("[data-me-table]");
  }
  function say(text, offline) {
    ageLine.textContent = text;
    ageLine.classList.toggle("is-offline", !!offline);
    ageLine.hidden = false;
  }
  function poll() {
    if (stopped) return;
    if (document.hidden) { setTimeout(poll, POLL_MS); return; }
    fetch(nowUrl, { credentials: "same-origin", cache: "no-cache" }).then(function (r) {
      if (!r.ok) throw new Error(String(r.status));
      var server = Date.parse(r.headers.get("Date") || "");
      return r.text().then(function (html) {
        if (stopped) return;
        me.offset = isNaN(server) ? 0 : server - Date.now();
        me.at = Date.now();
        if (html !== me.html) { me.html = html; render(); }
        save(me);
        say(fill(S.updated, { time: hhmm(me.at) }), false);
      });
    }).catch(function () {
      say(me.html ? fill(S.offline, { time: hhmm(me.at), age: age(me.at) }) : S.never, true);
    }).then(function () { setTimeout(poll, POLL_MS); });
  }

  if (me.html) render();
  poll();
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register(root.getAttribute("data-sw"), { scope: "/", updateViaCache: "all" })
      .catch(function () { /* offline mode off: the page still works online */ });
  }
})();
