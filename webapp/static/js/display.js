// Larger text and high contrast, kept on this phone (localStorage): applied to
// <html> before the page is drawn (this script is not deferred), switched by
// the buttons in the top bar (templates/base.html).
(function () {
  "use strict";
  var KEY = "listok-display", CHOICES = ["text-large", "contrast-high"];
  var root = document.documentElement;

  function chosen() {
    try { return (localStorage.getItem(KEY) || "").split(" ").filter(function (c) { return CHOICES.indexOf(c) >= 0; }); }
    catch (e) { return []; }
  }
  function apply(list) {
    CHOICES.forEach(function (c) { root.classList.toggle(c, list.indexOf(c) >= 0); });
    var buttons = document.querySelectorAll("[data-display]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", String(list.indexOf(buttons[i].getAttribute("data-display")) >= 0));
    }
  }
  apply(chosen());
  document.addEventListener("DOMContentLoaded", function () {
    apply(chosen());
    document.addEventListener("click", function (ev) {
      var b = ev.target.closest && ev.target.closest("[data-display]");
      if (!b) return;
      var c = b.getAttribute("data-display"), list = chosen();
      list = list.indexOf(c) >= 0 ? list.filter(function (x) { return x !== c; }) : list.concat([c]);
      try { localStorage.setItem(KEY, list.join(" ")); } catch (e) { /* not kept: this page only */ }
      apply(list);
    });
  });
})();
