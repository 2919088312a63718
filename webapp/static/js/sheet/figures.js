/* The figures beside the sums: points a money sheet computes here, the rest from the server
   (POST /api/v1/preview). The callers pass what to redraw when the answer comes. */
import { D, S, KIND, state } from "./state.js";
import { fmt } from "./messages.js";
import { tablePoints, pointsText } from "./numbers.js";
import { contentOf } from "./content.js";
import { api } from "./net.js";

/* Points the page may compute itself: money sheets by the rule set's place points (also offline).
   Every other result kind asks the server (POST /api/v1/preview), which applies the rule set. */
export function localPoints(sums) {
  return KIND === "money" && D.place_points.length === sums.length ? tablePoints(sums) : null;
}
export function figuresKey(e) {
  return JSON.stringify([e.sums, e.scores || null, e.ended || null, e.games && e.games.length ? e.games : null]);
}
let previewTimer = null;
export function askPreview(e, redraw) {
  var key = figuresKey(e);
  if (state.preview && state.preview.key === key) return;
  state.preview = { key: key, status: "pending" };
  if (previewTimer) clearTimeout(previewTimer);
  previewTimer = setTimeout(function () {
    var content = contentOf(e, "", state.draft ? state.draft.base_version : 0);
    var done = function (value) {
      if (!state.preview || state.preview.key !== key) return;
      value.key = key;
      state.preview = value;
      if (state.draft && !state.draft.locked) redraw();
    };
    api(D.api.preview, { token: D.token, content: content }, 5000).then(function (ans) {
      var a = ans.data;
      if (a && a.status === "ok") {
        done({ status: "ok", points: a.points || null, sb: a.sb || null, keeper: a.keeper, problem: a.problem });
      } else if (a && (ans.http === 400 || ans.http === 422)) {
        done({ status: "ok", problem: a });
      } else {
        done({ status: "failed" });  // the server checks again when the sheet is sent
      }
    }, function () { done({ status: "failed" }); });
  }, 250);
}
export function figureText(figs, i) {
  if (!figs) return "";
  if (figs.points && figs.points[i] !== null && figs.points[i] !== undefined) return pointsText(figs.points[i]);
  if (figs.sb) return fmt(S.sb, { sb: figs.sb[i] });
  return "";
}
/* The server's figures for confirmed content this page has none for (a reload, a sheet from another phone). */
export function fetchFigures(content, redraw) {
  var key = contentKey(content);
  if (state.figs[key] || navigator.onLine === false) return;
  state.figs[key] = { pending: true };
  api(D.api.preview, { token: D.token, content: content }, 5000).then(function (ans) {
    if (ans.data && ans.data.status === "ok") {
      state.figs[key] = { points: ans.data.points || null, sb: ans.data.sb || null, keeper: ans.data.keeper };
      redraw();
    } else delete state.figs[key];
  }, function () { delete state.figs[key]; });
}
export function contentKey(c) {
  return figuresKey({ sums: c.sums_cents, scores: c.scores, ended: c.ended, games: c.premium_games });
}
