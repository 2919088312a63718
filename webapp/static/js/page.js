/* Behaviour of the server-rendered pages (every page but the phone's table
   page), wired by data attributes: the Content-Security-Policy allows no
   inline script or handler. Listeners sit on the document, so htmx fragments
   swapped in later need no setup. */
"use strict";
(function () {
  // <button data-print>: print the page
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("[data-print]");
    if (!button) return;
    e.preventDefault();
    window.print();
  });

  // <form data-confirm="question">: asks before sending
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.dataset && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
  }, true);

  // nominations: the live count of ticked players; the server still refuses anything but exactly the quota
  document.addEventListener("change", function (e) {
    var form = e.target.closest && e.target.closest("form.nominate");
    if (!form) return;
    var n = form.querySelectorAll("input[name=nominated]:checked").length;
    var out = form.querySelector("output.nominate-count");
    if (!out) return;
    out.textContent = n;
    out.parentElement.classList.toggle("ok", n === Number(out.dataset.quota));
    out.parentElement.classList.toggle("bad", n !== Number(out.dataset.quota));
  });

  // standings: "find my row" jumps to the start number's row (#p21) and marks it
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-find-row]")) return;
    e.preventDefault();
    var no = (form.elements.no.value || "").replace(/\D/g, "");
    var row = no && document.getElementById("p" + no);
    if (row) { location.hash = "p" + no; row.scrollIntoView({block: "center"}); }
  });

  // results desk: Enter saves a table (htmx swaps it in, marked data-saved); the next table still to enter gets the focus
  document.addEventListener("htmx:afterSettle", function (e) {
    var el = e.target;
    if (!el || !el.matches || !el.matches(".desk-table[data-saved]")) return;
    var tables = Array.prototype.slice.call(document.querySelectorAll(".desk-table"));
    var i = tables.indexOf(el);
    for (var k = 1; k < tables.length; k++) {
      var input = tables[(i + k) % tables.length].querySelector("input[name=sum0]");
      if (input) { input.focus(); input.scrollIntoView({block: "center"}); return; }
    }
    var close = document.querySelector("#progress button[name=close]");
    if (close) close.focus();
  });
})();
