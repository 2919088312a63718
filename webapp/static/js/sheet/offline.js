/* Offline mode: the service worker, where the browser can have one. */
import { D, S, $, show } from "./state.js";

export function setupOffline() {
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
export function fromCache() {
  var nav = window.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
  return !!(nav && nav.transferSize === 0 && nav.workerStart > 0);
}
