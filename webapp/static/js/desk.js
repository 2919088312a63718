/* The live results desk: one small request every 2 s for the whole
   round, answered 304 while nothing changed; when something did, the round
   header is replaced and only the tables whose digest moved are fetched again.
   A table the operator is typing in (focus inside, or a changed field) is left
   as it is and marked "changed on the server: refresh this card". */
"use strict";
(function () {
  var INTERVAL = 2000;
  var desk = null, etag = "", timer = null, inFlight = false;

  function busy(card) {
    if (card.querySelector(".htmx-request") || card.classList.contains("htmx-request")) return true;
    var active = document.activeElement;
    if (active && active !== document.body && card.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)) {
      return true;
    }
    var fields = card.querySelectorAll("input:not([type=hidden]), textarea, select");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.type === "checkbox" || f.type === "radio") { if (f.checked !== f.defaultChecked) return true; }
      else if (f.tagName === "SELECT") {
        for (var k = 0; k < f.options.length; k++) if (f.options[k].selected !== f.options[k].defaultSelected) return true;
      } else if (f.value !== f.defaultValue) return true;
    }
    return false;
  }

  function cardUrl(n) { return desk.dataset.cardUrl.replace(/\/0(\?|$)/, "/" + n + "$1"); }

  function fetchCard(card) {
    var n = card.dataset.table;
    card.setAttribute("data-refreshing", "1");
    return fetch(cardUrl(n), { credentials: "same-origin", cache: "no-store", headers: { "HX-Request": "true" } })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        card.removeAttribute("data-refreshing");
        if (!html || !card.isConnected) return;
        var box = document.createElement("template");
        box.innerHTML = html.trim();
        var fresh = box.content.firstElementChild;
        if (!fresh) return;
        card.replaceWith(fresh);
        if (window.htmx) window.htmx.process(fresh);
      }, function () { card.removeAttribute("data-refreshing"); });
  }

  function markStale(card) {
    if (card.querySelector(".desk-stale")) return;
    card.classList.add("is-stale");
    var p = document.createElement("p");
    p.className = "desk-stale";
    p.setAttribute("role", "status");
    var b = document.createElement("button");
    b.type = "button";
    b.setAttribute("data-refresh-card", "");
    b.textContent = desk.dataset.staleText;
    p.appendChild(b);
    card.insertBefore(p, card.firstElementChild ? card.firstElementChild.nextSibling : null);
  }

  function replaceHtml(id, html) {
    var old = document.getElementById(id);
    if (!old || !html || old.contains(document.activeElement)) return;
    var box = document.createElement("template");
    box.innerHTML = html.trim();
    var fresh = box.content.firstElementChild;
    if (fresh) { old.replaceWith(fresh); if (window.htmx) window.htmx.process(fresh); }
  }

  function note(offline) {
    var el = document.getElementById("desk-live");
    if (!el) return;
    el.hidden = false;
    if (offline) { el.textContent = desk.dataset.offlineText; el.classList.add("error"); }
    else if (el.classList.contains("error")) { el.classList.remove("error"); el.textContent = el.dataset.onlineText; }
  }

  function apply(data) {
    etag = data.etag;
    replaceHtml("desk-counts", data.header);
    if (data.progress) replaceHtml("progress", data.progress);
    Object.keys(data.tables).forEach(function (n) {
      var card = document.getElementById("table-" + n), t = data.tables[n];
      if (!card || card.dataset.digest === t.digest || card.hasAttribute("data-refreshing")) return;
      if (busy(card)) markStale(card);
      else fetchCard(card);
    });
  }

  function poll() {
    if (inFlight || document.hidden) return;
    inFlight = true;
    fetch(desk.dataset.liveUrl, { credentials: "same-origin", cache: "no-store",
      headers: { "Accept": "application/json", "If-None-Match": '"' + etag + '"' } })
      .then(function (res) {
        note(false);
        if (res.status === 304 || !res.ok) return null;
        return res.json();
      })
      .then(function (data) { if (data) apply(data); }, function () { note(true); })
      .finally(function () { inFlight = false; });
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-refresh-card]");
    if (!b) return;
    var card = b.closest(".desk-table");
    if (card) fetchCard(card);
  });

  document.addEventListener("DOMContentLoaded", function () {
    desk = document.querySelector("#desk[data-live-url]");
    if (!desk) return;
    etag = desk.dataset.liveEtag || "";
    var el = document.getElementById("desk-live");
    if (el) { el.hidden = false; el.dataset.onlineText = el.textContent; }
    timer = setInterval(poll, INTERVAL);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) poll(); });
  });
})();
