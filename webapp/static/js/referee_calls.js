// The referee's queue: a table's new call rings and vibrates where the browser
// allows (a page the referee has touched once may play sound; vibration on
// Android). Calls already there when the page opened do not ring.
(function () {
  "use strict";
  var seen = null;
  var audio = null;

  function openCalls() {
    var out = [], els = document.querySelectorAll("[data-call-open]");
    for (var i = 0; i < els.length; i++) out.push(els[i].getAttribute("data-call"));
    return out;
  }

  function ring() {
    if (navigator.vibrate) { try { navigator.vibrate([250, 120, 250]); } catch (e) { /* not allowed */ } }
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      audio = audio || new Ctx();
      var osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.value = 0.2;
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.35);
    } catch (e) { /* no sound before the page was touched */ }
  }

  function check() {
    var now = openCalls(), fresh = false;
    if (seen !== null) {
      for (var i = 0; i < now.length; i++) if (seen.indexOf(now[i]) < 0) fresh = true;
    }
    seen = now;
    document.documentElement.setAttribute("data-calls-rung", String((Number(
      document.documentElement.getAttribute("data-calls-rung")) || 0) + (fresh ? 1 : 0)));
    if (fresh) ring();
  }

  // the first touch unlocks sound on browsers that need a gesture
  document.addEventListener("pointerdown", function () {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx && !audio) { try { audio = new Ctx(); } catch (e) { /* none */ } }
  }, { once: true });
  document.addEventListener("DOMContentLoaded", check);
  document.addEventListener("htmx:afterSettle", check);
})();
