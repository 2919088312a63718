/* The server's state of the table onto the page, and the service worker's copy of the page
   renewed or dropped when it is out of date. */
import { D, Outbox, state } from "./state.js";
import { api } from "./net.js";
import { saveDraft, isBlank } from "./drafts.js";
import { render } from "./render.js";

export function refreshServer() {
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
export function learnOutcome(mine) {
  var r = state.result;
  if (!r || !mine || mine.receipt !== r.receipt || r.status === "accepted") return;
  var decided = mine.status === "accepted" || mine.status === "superseded" ? "accepted"
    : (mine.status === "rejected" ? "rejected" : null);
  if (!decided || r.status === decided) return;
  r.status = decided;
  r.decided = true;
  Outbox.saveResult(r);
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
