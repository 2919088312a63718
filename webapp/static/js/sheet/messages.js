/* The page's texts with their values filled in: what a refusal or a result says. */
import { S } from "./state.js";

export function fmt(text, values) {
  return text.replace(/%\((\w+)\)[sd]/g, function (m, k) { return values[k] !== undefined ? values[k] : m; });
}
export function timeText(iso) {
  var d = new Date(iso);
  return isNaN(d) ? iso : ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
}
export function problemText(p) {
  if (!p) return "";
  var sn = p.start_no;
  if (p.status === "locked") return fmt(S.locked, { start_no: sn, time: timeText(p.until) });
  if (p.error === "wrong-pin") {
    return p.attempts_left !== undefined && p.attempts_left !== null
      ? fmt(S.wrong_pin_left, { start_no: sn, left: p.attempts_left }) : fmt(S.wrong_pin, { start_no: sn });
  }
  if (p.error === "stale-version") return S.stale_version;
  if (p.error === "idempotency-conflict") return S.idempotency_conflict;
  if (p.status === "gone") return S.gone;
  if (p.status === "forbidden") return S.forbidden;
  return p.message || S.refused;
}
export function resultText(r) {
  if (r.decided) return fmt(r.status === "accepted" ? S.outcome_accepted : S.outcome_rejected, { receipt: r.receipt });
  if (r.status === "dispute") return fmt(S.dispute, { receipt: r.receipt });
  if (r.status === "needs-referee") {
    if (r.reason === "pin-mismatch") {
      return fmt(S.referee_pin_mismatch, { receipt: r.receipt, who: (r.pin_failed || []).join(", ") });
    }
    var text = r.reason === "correction" ? S.referee_correction
      : (r.reason === "pin-reissued" ? S.referee_pin : S.referee_negative);
    return fmt(text, { receipt: r.receipt });
  }
  if (r.retaken) return fmt(S.retaken, { receipt: r.receipt });
  return fmt(S.sent, { receipt: r.receipt });
}
