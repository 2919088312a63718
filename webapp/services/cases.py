"""Referee decisions: the queue of open cases, what a case shows, approve and
reject (SEM-C4 corrections, SEM-C8 negative sums, disputes), and the SEM-C9
discrepancy reports players send from the public standings page.

Like every service these change the caller's session and leave the commit to
the caller; a refused decision raises ServiceError and changes nothing.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from flask_babel import format_time, gettext as _
from sqlalchemy import select, update
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import Case, Player, Round, RoundTable, Sheet, Tournament, utcnow
from ..rules import model as rules
from ..rules.points import table_outcome
from ..rules.ruleset import get_ruleset
from . import (chain_rows, corrections, discipline as discipline_service, loaders, pins as pin_service,
               rounds as round_service)
from . import referee_decisions
from .common import NotFoundError, ServiceError, StaleError, audit, bump

# the queue's order: what blocks a table first
KINDS = ("dispute", "correction", "negative-sum", "pin-reissued", "pin-mismatch", "discipline", "c10",
         "discrepancy")
SHEET_KINDS = ("dispute", "correction", "negative-sum", "pin-reissued", "pin-mismatch")
MAX_REPORTS = 5  # SEM-C9 reports per start number and round (spam guard)
REPORT_MAX_CHARS = 1000
MAX_PIN_CHARS = 32  # the phone's PIN field; a longer one is no PIN and not an attempt
NOTE_MAX_CHARS = 500


# --------------------------------------------------------------------------- the queue


@dataclass
class QueueItem:
    case: Case
    tournament: Tournament
    age_seconds: int
    won: Sheet | None = None  # a decided sheet case: the sheet that counts since


def queue(now: datetime | None = None, tournament_ids: set[int] | None = None) -> dict:
    """The open cases of the tournaments `tournament_ids` (None: every tournament),
    grouped by kind (KINDS order), newest
    first in each group, and the last few decisions. `fingerprint` changes
    whenever the page would look different (a case opened or decided, and every
    minute for the ages), so a poller can skip unchanged answers."""
    now = now or utcnow()
    scope = () if tournament_ids is None else (Case.tournament_id.in_(tournament_ids),)
    open_cases = db.session.scalars(
        select(Case).where(Case.status == "open", *scope).order_by(Case.created_at.desc(), Case.id.desc())).all()
    decided = db.session.scalars(
        select(Case).where(Case.status != "open", *scope)
        .order_by(Case.resolved_at.desc(), Case.id.desc()).limit(8)).all()
    ids = {c.tournament_id for c in open_cases} | {c.tournament_id for c in decided}
    tournaments = {t.id: t for t in db.session.scalars(select(Tournament).where(Tournament.id.in_(ids)))} if ids else {}
    groups = []
    for kind in KINDS:
        items = [QueueItem(c, tournaments[c.tournament_id], max(0, int((now - c.created_at).total_seconds())))
                 for c in open_cases if c.kind == kind]
        if items:
            groups.append((kind, items))
    ids = {x for c in decided for x in (c.sheet_id, c.other_sheet_id) if x}
    sheets = {s.id: s for s in db.session.scalars(select(Sheet).where(Sheet.id.in_(ids)))} if ids else {}
    recent = [QueueItem(c, tournaments[c.tournament_id], 0, _winner(c, sheets)) for c in decided]
    state = repr(([(c.id, c.status) for c in open_cases], [(c.id, c.status) for c in decided],
                  int(now.timestamp()) // 60))
    return {"groups": groups, "count": len(open_cases), "recent": recent,
            "several_tournaments": len({c.tournament_id for c in open_cases}) > 1,
            "fingerprint": hashlib.sha1(state.encode()).hexdigest()[:16]}


def _winner(c: Case, sheets: dict[int, Sheet]) -> Sheet | None:
    """The sheet a decided case left counting: the chosen one of a dispute, an approved waiting sheet."""
    if c.kind not in SHEET_KINDS:
        return None
    for sid in (c.sheet_id, c.other_sheet_id):
        s = sheets.get(sid)
        if s is not None and s.status in ("accepted", "superseded"):
            return s
    return None


# --------------------------------------------------------------------------- one case


_PATH_OK = re.compile(r"^[MmLlHhVvCcSsQqTtAaZz0-9eE.,\s+-]*$")
_TOKEN = re.compile(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PAIRS = set("MLCSQT")  # absolute commands whose numbers are x y pairs


def signature_svg(drawing: str | None) -> dict | None:
    """A drawn signature (SVG path data as the phone's pad writes it: "M x y L x y …"
    per stroke, a dot as "M x y l 0 0") ready for a small inline <svg>: the
    path and a viewBox around its absolute points. Anything that is not plain
    path data is not drawn."""
    d = (drawing or "").strip()
    if not d or len(d) > 64 * 1024 or not _PATH_OK.match(d):
        return None
    xs, ys, command, pending = [], [], "", []
    for token in _TOKEN.findall(d):
        if token.isalpha():
            command, pending = token, []
            continue
        if command in _PAIRS:
            pending.append(float(token))
            if len(pending) == 2:
                xs.append(pending[0])
                ys.append(pending[1])
                pending = []
    if not xs:
        return None
    pad = 4.0
    x0, y0 = min(xs) - pad, min(ys) - pad
    w, h = max(max(xs) - min(xs), 1.0) + 2 * pad, max(max(ys) - min(ys), 1.0) + 2 * pad
    return {"path": d, "view_box": f"{x0:g} {y0:g} {w:g} {h:g}"}


@dataclass
class SheetView:
    """One sheet version as the referee sees it."""

    sheet: Sheet
    sums: list[Decimal]
    points: list
    changed: list[bool] = field(default_factory=list)  # per seat: differs from the version it is compared with
    negative: list[bool] = field(default_factory=list)
    signatures: list[dict] = field(default_factory=list)
    disqualified: list[bool] = field(default_factory=list)  # per seat (SEM-D1)


def _sheet_view(rs, tab: RoundTable, sheet: Sheet) -> SheetView:
    sums = [Decimal(s) for s in sheet.sums]
    try:
        outcome = table_outcome(rs, rules.TableResult(
            tab.number, tuple(tab.players), tuple(sums), disqualified=tuple(sheet.disqualified or ()),
            early=bool(sheet.early)))
        points = list(outcome.points)
    except (ValueError, KeyError, IndexError):
        points = [None] * len(sums)
    sigs = []
    for s in sheet.signatures or ():
        if not isinstance(s, dict):
            continue
        sigs.append({"start_no": s.get("start_no"), "signed_at": s.get("signed_at") or "",
                     "valid": bool(sheet.content_hash) and s.get("hash") == sheet.content_hash,
                     "own_phone": bool(s.get("own_phone")), "svg": signature_svg(s.get("drawing"))})
    dq = set(sheet.disqualified or ())
    return SheetView(sheet, sums, points, [False] * len(sums), [x < 0 for x in sums], sigs,
                     [s in dq for s in tab.players])


def _compare(a: SheetView, b: SheetView) -> None:
    for i, (x, y) in enumerate(zip(a.sums, b.sums)):
        a.changed[i] = b.changed[i] = x != y


def get_case(cid: int) -> Case:
    c = db.session.get(Case, cid)
    if c is None:
        raise NotFoundError(f"case {cid}")
    return c


def _table_of(c: Case) -> tuple[Tournament, Round | None, RoundTable | None]:
    t = db.session.get(Tournament, c.tournament_id)
    r = next((x for x in t.rounds if x.number == c.round), None)
    tab = next((x for x in r.tables if x.number == c.table), None) if r is not None and c.table else None
    return t, r, tab


def replaced_version(tab: RoundTable, new: Sheet) -> Sheet | None:
    """The accepted version a SEM-C4 correction changes."""
    if new.base_version:
        return next((s for s in tab.sheets if s.version == new.base_version), None)
    return tab.sheet


def case_page(c: Case) -> dict:
    """Everything the case page shows: the table, the versions side by side with
    their points (the engine's), the changes, the signatures, the note."""
    t, r, tab = _table_of(c)
    rs = get_ruleset(t.ruleset)
    players = {p.start_no: p for p in t.players}
    sheet = db.session.get(Sheet, c.sheet_id) if c.sheet_id else None
    other = db.session.get(Sheet, c.other_sheet_id) if c.other_sheet_id else None
    versions: list[tuple[str, SheetView]] = []
    c10 = discipline = None
    if tab is not None:
        if c.kind == "discipline":
            discipline = _discipline_view(c, t, rs, tab, other, sheet)
            versions += discipline.pop("versions")
        elif c.kind == "c10":
            c10 = _c10_view(c, t, rs, tab)
            versions += c10.pop("versions")
        elif c.kind == "correction" and sheet is not None:
            old = other or replaced_version(tab, sheet)
            new = _sheet_view(rs, tab, sheet)
            if old is not None and old.id != sheet.id:
                before = _sheet_view(rs, tab, old)
                _compare(before, new)
                versions.append(("before", before))
            versions.append(("after", new))
        elif c.kind == "dispute":
            pair = [s for s in (other, sheet) if s is not None]
            views = [_sheet_view(rs, tab, s) for s in pair]
            if len(views) == 2:
                _compare(*views)
            versions += [("first" if i == 0 else "second", v) for i, v in enumerate(views)]
        elif sheet is not None:
            versions.append(("sheet", _sheet_view(rs, tab, sheet)))
        elif tab.sheet is not None:  # a discrepancy: what counts now
            versions.append(("counted", _sheet_view(rs, tab, tab.sheet)))
    reporter = None
    if c.kind == "discrepancy":
        s = (c.payload or {}).get("start_no")
        reporter = players.get(s)
    return {"case": c, "t": t, "round": r, "tab": tab, "players": players, "versions": versions,
            "seats": list(tab.players) if tab is not None else [], "reporter": reporter,
            "note": _case_note(c, sheet), "decidable": c.status == "open", "c10": c10, "discipline": discipline,
            "pin_notes": pin_notes(c)}


def pin_notes(c: Case) -> list[str]:
    """Why the signatures need a look: PINs issued after the round started (services/sheet_submit.py)."""
    notes = []
    for x in (c.payload or {}).get("pin_reissued") or []:
        notes.append(_("PIN of #%(no)d was issued at %(time)s by %(who)s, after the round started.",
                       no=x["start_no"], time=format_time(datetime.fromisoformat(x["issued_at"]), "HH:mm"),
                       who=x.get("issued_by") or "?"))
    for x in (c.payload or {}).get("pin_failed") or []:  # signed offline
        notes.append(_("PIN of #%(no)d was locked after too many wrong PINs when the sheet arrived.", no=x["start_no"])
                     if x.get("locked") else _("PIN of #%(no)d did not match.", no=x["start_no"]))
    return notes


def _c10_view(c: Case, t: Tournament, rs, tab: RoundTable) -> dict:
    """A SEM-C10 proposal: the sheet that counts, the proposed one (not stored
    until approved) with the points the correction gives, and its consequences
    as they would be applied now — or why it can no longer be applied."""
    p = c.payload or {}
    out: dict = {"payload": p, "preview": None, "error": None, "versions": []}
    base = next((s for s in tab.sheets if s.version == p.get("base_version")), None)
    if c.status == "open":
        try:
            out["preview"] = corrections.c10_preview(c, t)
        except ServiceError as e:
            out["error"] = str(e)
    cons = p.get("consequences") or {}
    if base is not None and cons.get("sums"):
        before = _sheet_view(rs, tab, base)
        if c.status == "approved":
            after_sheet = next((s for s in tab.sheets if s.source == "correction" and s.version > base.version),
                               None)
        else:
            after_sheet = None
        if after_sheet is None:  # the proposal as it would be stored: never added to the session
            after_sheet = Sheet(version=max(s.version for s in tab.sheets) + 1, sums=list(cons["sums"]),
                                points=cons.get("points"), created_at=c.created_at, source="correction")
        after = _sheet_view(rs, tab, after_sheet)
        if after_sheet.points:
            after.points = [Fraction(x) for x in after_sheet.points]
        _compare(before, after)
        out["versions"] = [("before", before), ("proposed" if c.status == "open" else "after", after)]
    return out


def _discipline_view(c: Case, t: Tournament, rs, tab: RoundTable, base: Sheet | None, applied: Sheet | None) -> dict:
    """A discipline proposal: the counted sheet and the version the
    disqualification would add (never added to the session until approved),
    the engine's points and money per seat before and after, and, while open,
    why it can no longer be applied."""
    p = c.payload or {}
    pv = p.get("preview") or {}
    out: dict = {"payload": p, "preview": pv, "error": None, "versions": [], "rows": []}
    if c.status == "open" and (tab.sheet is None or tab.sheet.version != p.get("base_version")):
        out["error"] = _("The sheet of round %(r)d, table %(t)d changed since this was proposed (version %(v)d "
                         "then, version %(cur)d now). Reject it: the operator proposes it again.", r=c.round,
                         t=c.table or 0, v=p.get("base_version") or 0,
                         cur=tab.sheet.version if tab.sheet is not None else 0)
    if base is not None:
        before = _sheet_view(rs, tab, base)
        if applied is None:
            applied = Sheet(version=max(s.version for s in tab.sheets) + 1, sums=list(base.sums),
                            disqualified=(pv.get("new") or {}).get("disqualified") or [],
                            early=bool((pv.get("new") or {}).get("early")), created_at=c.created_at)
        after = _sheet_view(rs, tab, applied)
        for i, (x, y) in enumerate(zip(before.disqualified, after.disqualified)):
            after.changed[i] = x != y
        out["versions"] = [("before", before), ("after" if c.status == "approved" else "proposed", after)]
    old, new = pv.get("old") or {}, pv.get("new") or {}
    for i, s in enumerate(pv.get("seats") or ()):
        row = {"start_no": s}
        for side, d in (("old", old), ("new", new)):
            pts, money = (d.get("points") or [])[i:i + 1], (d.get("money") or [])[i:i + 1]
            row[side] = {"points": Fraction(pts[0]) if pts and pts[0] is not None else None,
                         "money": Decimal(money[0]) if money and money[0] is not None else None,
                         "out": s in (d.get("disqualified") or ())}
        row["changed"] = row["old"] != row["new"]
        out["rows"].append(row)
    return out


def _case_note(c: Case, sheet: Sheet | None) -> str:
    """Why the case is here, in the words of whoever asked: the correction's
    reason, the SEM-C8 last-game note, the discrepancy report."""
    p = c.payload or {}
    for key in ("text", "reason", "note"):
        if isinstance(p.get(key), str) and p[key].strip():
            return p[key].strip()
    return (sheet.note or "").strip() if sheet is not None else ""


# --------------------------------------------------------------------------- decisions


def _decided_message(c: Case) -> str:
    when = format_time(c.resolved_at, "HH:mm") if c.resolved_at else ""
    if c.status == "approved":
        return _("%(who)s already approved this case at %(time)s. Nothing was changed.",
                 who=c.resolved_by or "?", time=when)
    return _("%(who)s already rejected this case at %(time)s. Nothing was changed.",
             who=c.resolved_by or "?", time=when)


def _claim(c: Case, status: str, actor: str, note: str) -> None:
    """Mark the case decided, but only if it is still open in the database: of
    two referees deciding at the same moment, the second is refused (on
    PostgreSQL the row lock makes it wait and then match nothing)."""
    if c.status != "open":
        raise StaleError(_decided_message(c))
    now = utcnow()
    result = db.session.execute(
        update(Case).where(Case.id == c.id, Case.status == "open")
        .values(status=status, resolved_by=actor, resolved_at=now, resolution_note=note)
        .execution_options(synchronize_session=False))
    if result.rowcount != 1:
        db.session.refresh(c)
        raise StaleError(_decided_message(c))
    for attr, value in (("status", status), ("resolved_by", actor), ("resolved_at", now),
                        ("resolution_note", note)):
        set_committed_value(c, attr, value)
    chain_rows.touch(db.session, Case, c.id, c.tournament_id)


def _check_round_open(r: Round | None) -> None:
    if r is None or r.status != "published":
        raise ServiceError(_("Round %(n)d is no longer open for results: a change now is a correction "
                             "after publication (SEM-C10) at the operator's desk.", n=r.number if r else 0))


def _close_related(c: Case, actor: str) -> list[int]:
    """Other open cases about sheets this decision settled (a dispute decided
    while one of its sheets also waited for a negative-sum approval)."""
    closed = []
    for other in db.session.scalars(select(Case).where(Case.status == "open", Case.id != c.id,
                                                       Case.tournament_id == c.tournament_id,
                                                       Case.kind.in_(SHEET_KINDS))):
        ids = [i for i in (other.sheet_id, other.other_sheet_id) if i]
        if not ids:
            continue
        states = [db.session.get(Sheet, i).status for i in ids]
        if other.sheet_id and db.session.get(Sheet, other.sheet_id).status == "rejected":
            status = "rejected"
        elif all(s in ("accepted", "superseded", "rejected") for s in states):
            status = "approved"
        else:
            continue
        _claim(other, status, actor, _("Settled with case %(id)d.", id=c.id))
        closed.append(other.id)
    return closed


def _clean_note(note: str | None) -> str:
    return (note or "").strip()[:NOTE_MAX_CHARS]


def approve(c: Case, actor: str, *, choose: int | str | None = None, note: str = "") -> Case:
    """Approve a case. A correction or a negative sum: the waiting sheet becomes
    the one that counts (the version it corrects is kept, superseded). A
    dispute: the chosen sheet counts, the other is rejected. A discrepancy:
    acknowledged (a change of published results is then an SEM-C10 correction)."""
    note = _clean_note(note)
    t, r, tab = _table_of(c)
    chosen = None
    if c.kind == "dispute":
        try:
            chosen = int(choose)
        except (TypeError, ValueError):
            chosen = None
        if chosen not in (c.sheet_id, c.other_sheet_id):
            if c.status != "open":
                raise StaleError(_decided_message(c))
            raise ServiceError(_("Choose the sheet that counts."), field="choose")
    _claim(c, "approved", actor, note)
    payload = {"case": c.id, "kind": c.kind, "round": c.round, "table": c.table, "note": note}
    if c.kind in SHEET_KINDS:
        _check_round_open(r)
    if c.kind == "discipline":
        applied = discipline_service.apply_proposal(c, t, actor)
        c.sheet_id = applied["sheet"]
        payload.update(applied=applied, proposed_by=c.created_by, base_version=(c.payload or {}).get("base_version"))
    if c.kind == "c10":
        old = tab.sheet if tab is not None else None
        row = corrections.approve_c10(c, t, actor)
        payload.update(correction=row.id, old_version=old.version if old else None,
                       old_sums=old.sums if old else None, new_sums=tab.sheet.sums, new_points=tab.sheet.points,
                       record=row.record)
    if c.kind in ("correction", "negative-sum", "pin-reissued", "pin-mismatch"):
        sheet = db.session.get(Sheet, c.sheet_id)
        if sheet is None or sheet.status != "pending":
            raise ServiceError(_("This sheet is no longer waiting for a decision. Nothing was changed."))
        if c.kind == "correction":
            current = tab.sheet
            if sheet.base_version and (current is None or current.version != sheet.base_version):
                raise ServiceError(_("The sheet of table %(t)d changed since this correction was signed "
                                     "(it corrects version %(v)d). Reject it: the table signs it again.",
                                     t=tab.number, v=sheet.base_version))
            payload["old_sums"] = current.sums if current is not None else None
        referee_decisions.accept_pending(sheet, actor)
        payload.update(sheet=sheet.id, version=sheet.version, sums=sheet.sums)
    elif c.kind == "dispute":
        win = db.session.get(Sheet, chosen)
        lose = db.session.get(Sheet, c.other_sheet_id if chosen == c.sheet_id else c.sheet_id)
        if lose is not None and lose.status in ("pending", "dispute"):
            referee_decisions.reject_pending(lose, actor, note)
        elif lose is not None and lose.status == "accepted":
            lose.status = "rejected"  # it counted until now; the chosen sheet takes its place
        db.session.flush()
        if win.status != "accepted":
            referee_decisions.accept_pending(win, actor)
        payload.update(chosen=win.id, chosen_version=win.version, sums=win.sums,
                       rejected=lose.id if lose is not None else None)
    payload["closed_cases"] = _close_related(c, actor)
    if c.kind in SHEET_KINDS:
        bump(t)  # results changed: cached standings are rendered again
    audit("case.approve", actor, payload, t.id)
    return c


def reject(c: Case, actor: str, reason: str) -> Case:
    """Reject a case with a reason: a waiting sheet is rejected (the version that
    counted before keeps counting); a discrepancy report is closed."""
    reason = _clean_note(reason)
    if c.status == "open" and not reason:
        raise ServiceError(_("Say why the case is rejected: the table sees the reason."), field="reason")
    _claim(c, "rejected", actor, reason)
    t, r, tab = _table_of(c)
    payload = {"case": c.id, "kind": c.kind, "round": c.round, "table": c.table, "reason": reason}
    if c.kind in ("c10", "discipline"):
        payload.update(proposal=c.payload)
    if c.kind in SHEET_KINDS:
        sheet = db.session.get(Sheet, c.sheet_id) if c.sheet_id else None
        if sheet is not None and sheet.status in ("pending", "dispute"):
            referee_decisions.reject_pending(sheet, actor, reason)
            payload.update(sheet=sheet.id, version=sheet.version, sums=sheet.sums)
        db.session.flush()
        payload["closed_cases"] = _close_related(c, actor)
    audit("case.reject", actor, payload, t.id)
    return c


# --------------------------------------------------------------------------- SEM-C9 reports


def report_window(t: Tournament, round_no: int | None = None, now: datetime | None = None) -> dict | None:
    """The publication (rounds.publication) of round `round_no`, default the last
    closed round: when the 10 minutes for a discrepancy report end."""
    k = round_no if round_no is not None else loaders.last_closed(t)
    r = next((x for x in t.rounds if x.number == k), None)
    return round_service.publication(r, now)


def reports_sent(t: Tournament, round_no: int, start_no: int) -> int:
    """The player's own reports, those sent with their PIN: what a referee files
    for them, or anything older, does not use up their limit."""
    return sum(1 for c in db.session.scalars(
        select(Case).where(Case.tournament_id == t.id, Case.kind == "discrepancy", Case.round == round_no))
        if (c.payload or {}).get("start_no") == start_no and (c.payload or {}).get("verified") == "pin")


def _int(value, message: str, name: str) -> int:
    try:
        return int(str(value).strip().lstrip("#"))
    except (TypeError, ValueError):
        raise ServiceError(message, field=name) from None


def report_discrepancy(t: Tournament, start_no, table, round_no, text: str,
                       now: datetime | None = None, *, pin: str | None = None, referee: str | None = None) -> Case:
    """SEM-C9: a player reports a discrepancy at their table within 10 minutes of
    the standings' publication; it lands in the referees' queue. The report is
    the player's only with their PIN (pins.check_pin: a wrong one raises PinError,
    whose failure count the caller commits), or when a signed-in referee files it
    (`referee`: their label)."""
    round_no = _int(round_no, _("Choose the round."), "round")
    pub = report_window(t, round_no, now)
    if pub is None:
        raise ServiceError(_("The standings after round %(n)d are not published.", n=round_no), field="round")
    if not pub["open"]:
        raise ServiceError(_("The 10 minutes for reporting a discrepancy after round %(n)d ended at %(time)s. "
                             "Nothing was sent: speak to a referee.", n=round_no,
                             time=format_time(pub["until"], "HH:mm")), field="round")
    start_no = _int(start_no, _("Enter your start number."), "start_no")
    player = db.session.scalar(select(Player).where(Player.tournament_id == t.id, Player.start_no == start_no))
    if player is None:
        raise ServiceError(_("There is no player with start number %(s)d.", s=start_no), field="start_no")
    table = _int(table, _("Enter your table number."), "table")
    r = next(x for x in t.rounds if x.number == round_no)
    tab = next((x for x in r.tables if x.number == table), None)
    if tab is None:
        raise ServiceError(_("Round %(r)d has no table %(t)d.", r=round_no, t=table), field="table")
    if start_no not in tab.players:
        seat = next((x.number for x in r.tables if start_no in x.players), None)
        if seat is None:
            raise ServiceError(_("Start number %(s)d did not play in round %(r)d.", s=start_no, r=round_no),
                               field="start_no")
        raise ServiceError(_("Start number %(s)d played at table %(t)d in round %(r)d, not at table %(x)d.",
                             s=start_no, t=seat, r=round_no, x=table), field="table")
    text = (text or "").strip()
    if not text:
        raise ServiceError(_("Say what is wrong."), field="text")
    if len(text) > REPORT_MAX_CHARS:
        raise ServiceError(_("Keep the report to at most %(n)d characters.", n=REPORT_MAX_CHARS), field="text")
    if referee is None:
        pin = (pin or "").strip()
        if not pin:
            raise ServiceError(_("Enter your PIN."), field="pin")
        if len(pin) > MAX_PIN_CHARS:
            raise ServiceError(_("A PIN is 4 to 6 digits."), field="pin")
        pin_service.lock_tournament(t.id)  # before the player's row, as a sheet does: the report chains
        pin_service.check_pin(t, player, pin, now)
        if reports_sent(t, round_no, start_no) >= MAX_REPORTS:
            raise ServiceError(_("Start number %(s)d has already sent %(n)d reports for round %(r)d: "
                                 "speak to a referee.", s=start_no, n=MAX_REPORTS, r=round_no), field="start_no")
    by = referee or f"#{start_no} {player.name}"
    c = Case(tournament_id=t.id, round=round_no, table=table, kind="discrepancy", status="open",
             payload={"start_no": start_no, "text": text, "verified": "referee" if referee else "pin"},
             created_by=by[:120], created_at=now or utcnow())
    db.session.add(c)
    db.session.flush()
    audit("case.report", referee or f"#{start_no}", {"case": c.id, "round": round_no, "table": table,
                                                    "start_no": start_no, "text": text,
                                                    "verified": "referee" if referee else "pin"}, t.id)
    return c
