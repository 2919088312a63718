/* Talking to the server: one JSON request, the offline badge, a PIN check. */
import { D, S, state, $, show } from "./state.js";

export function api(url, body, timeout) {
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
export function setNet(online) {
  state.offline = !online;
  show($("net-badge"), !online);
  var note = $("send-offline");
  if (note) { note.textContent = S.send_offline; show(note, !online && !!state.item && state.item.state !== "blocked"); }
  if ($("pin-offline")) show($("pin-offline"), !online || !!state.unchecked);
}
/* Online: is the PIN right? Offline or server trouble: the server checks it on submit.
   A right PIN earns a proof for these sums, so the server need not check it again then. */
export function checkPin(startNo, pin, contentHash) {
  if (navigator.onLine === false) return Promise.resolve({ ok: true });
  return api(D.api.pin, { token: D.token, start_no: startNo, pin: pin, content_hash: contentHash }).then(function (ans) {
    var d = ans.data;
    if (d && d.status === "ok") return { ok: true, proof: d.proof };
    if (!d || ans.http >= 500) return { ok: true };
    return { ok: false, problem: d };
  }, function () { return { ok: true }; });
}
