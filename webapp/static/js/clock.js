// The round clock (the rule set's round length: SEM-B4, TH-2). Counts down from the server's start time measured
// against the server's "now" (both sent as data attributes), so a laptop or a
// projector with a wrong clock still shows the right time left.
(function () {
  "use strict";

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function update(el) {
    if (el.clockOffset === undefined) {
      el.clockOffset = Date.parse(el.dataset.now) - Date.now();
      if (isNaN(el.clockOffset)) el.clockOffset = 0;  // no server "now" given: trust this device's clock
    }
    var end = Date.parse(el.dataset.startedAt) + Number(el.dataset.minutes) * 60000;
    var left = Math.ceil((end - (Date.now() + el.clockOffset)) / 1000);
    var out = el.querySelector("[data-clock-display]");
    if (!out || isNaN(left)) return;
    if (left > 0) {
      out.textContent = pad(Math.floor(left / 60)) + ":" + pad(left % 60);
    } else {
      out.textContent = el.dataset.overText;
    }
    el.classList.add("running");
    el.classList.toggle("ending", left > 0 && left <= 300);
    el.classList.toggle("over", left <= 0);
  }

  function tick() {
    var clocks = document.querySelectorAll("[data-clock]");
    for (var i = 0; i < clocks.length; i++) update(clocks[i]);
  }

  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:load", tick);  // a polled fragment brings a new clock
  setInterval(tick, 1000);
})();
