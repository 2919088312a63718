"""Corrections after publication (SEM-C10): the preview of what a corrected sheet of a closed
round changes (points, the next round's seating, who advances), the proposal and the
approval that apply it.
"""
from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import select

from ..extensions import db
from ..i18n import in_unit
from ..models import Case, Correction as CorrectionRow, Round, RoundTable, Sheet, Tournament, utcnow
from ..rules.corrections import KINDS, CorrectionError, audit_entry, correct_published_sheet
from ..rules.ruleset import get_ruleset
from ..rules.seating import Draw, SeatedTable
from . import rounds as round_service, rule_texts
from .rounds import publication
from .common import ServiceError, StaleError, audit, bump, check_version
from .engine import points_json, rules_player, rules_tournament
from .desk import parse_amount, open_correction


@dataclass
class CorrectionPreview:
    round: Round
    table: RoundTable
    correction: object  # rules.corrections.Correction
    next_round: Round | None
    seat_changes: list[dict]  # per changed table of the next round: number, before, after
    advancing_changes: list[tuple[int, str]]  # (start no, "gains a seat" | "loses the seat")
    warnings: list[str]
    players: dict


def _stored_draw(r: Round) -> Draw:
    return Draw(r.number, tuple(SeatedTable(tab.number, tuple(tab.players), tuple(tab.flags or ()))
                                for tab in r.tables),
                tuple(r.advancing) if r.advancing is not None else None,
                tuple(r.eliminated) if r.eliminated is not None else None)


def no_published_corrections(t: Tournament) -> str | None:
    """Why this tournament has no SEM-C10 corrections (its rule set has no such rule), or None."""
    if get_ruleset(t.ruleset).published_corrections:
        return None
    return _("These rules have no correction after publication (SEM-C10 is a rule of SEM): the sheets of a "
             "closed round count as signed. A wrong sheet is corrected before its round is closed: at the "
             "results desk, through the referee.")


def preview_correction(t: Tournament, round_no, table_no, values, kind: str) -> CorrectionPreview:
    rs = get_ruleset(t.ruleset)
    refusal = no_published_corrections(t)
    if refusal:
        raise ServiceError(refusal)
    try:
        round_no, table_no = int(round_no), int(table_no)
    except (TypeError, ValueError):
        raise ServiceError(_("Choose a round and a table."), field="table") from None
    r = next((x for x in t.rounds if x.number == round_no), None)
    if r is None or r.status != "closed":
        raise ServiceError(_("Round %(n)d is not closed: enter or edit its sheets at the results desk.",
                             n=round_no), field="round")
    tab = next((x for x in r.tables if x.number == table_no), None)
    if tab is None:
        raise ServiceError(_("Round %(r)d has no table %(t)d.", r=round_no, t=table_no), field="table")
    if kind not in KINDS:
        raise ServiceError(_("Choose the kind of correction."), field="kind")
    n = len(tab.players)
    values = (list(values) + [""] * n)[:n]
    rt = rules_tournament(t, closed_only=True)
    recorded = next(x for x in next(x for x in rt.rounds if x.number == round_no).tables if x.table == table_no)
    sums = []
    for i, v in enumerate(values):
        if not str(v or "").strip():
            if tab.players[i] in recorded.disqualified:
                # SEM-D1: a disqualified player's sum counts for nobody; keep it as recorded
                sums.append(recorded.sums[i])
                continue
            raise ServiceError(_("Enter the sum of position %(i)d.", i=i + 1), field=f"sum{i}")
        sums.append(parse_amount(v, i, rs))
    expected = rs.expected_total(n)
    # with a disqualification the sums are those at that moment (SEM-D1c): no table total
    if expected is not None and sum(sums) != expected and not recorded.disqualified:
        raise ServiceError(_("The real sums total %(total)s, the table total must be %(exp)s.",
                             total=in_unit(sum(sums), rs.currency), exp=in_unit(expected, rs.currency)),
                           field="total")
    if tuple(sums) == tuple(recorded.sums) and recorded.points is None:
        raise ServiceError(_("These are the recorded sums: there is nothing to correct."), field="sum0")
    nxt = next((x for x in t.rounds if x.number == round_no + 1), None)
    next_draw = _stored_draw(nxt) if nxt is not None and nxt.status in ("draft", "published") else None
    clubs = {p.start_no: rules_player(p).club_key for p in t.players}
    try:
        c = correct_published_sheet(rs, round_no, recorded, sums, kind, next_draw, clubs)
    except CorrectionError as e:
        raise ServiceError(rule_texts.engine_text(e)) from e

    seat_changes, adv_changes, warnings = [], [], []
    if c.swapped_draw is not None and next_draw is not None:
        for old, new in zip(next_draw.tables, c.swapped_draw.tables):
            if old.players != new.players:
                seat_changes.append({"table": old.table, "before": list(old.players), "after": list(new.players),
                                     "same_club": "same-club" in new.flags and "same-club" not in old.flags})
        if next_draw.advancing is not None:
            before, after = set(next_draw.advancing), set(c.swapped_draw.advancing or ())
            adv_changes = [(s, "gains") for s in sorted(after - before)] + \
                          [(s, "loses") for s in sorted(before - after)]
        busy = [x["table"] for x in seat_changes
                if any(tb.sheets for tb in nxt.tables if tb.number == x["table"])]
        if busy:
            raise ServiceError(_("Round %(n)d already has sheets at tables %(tables)s: the draw can no longer "
                                 "be changed by this correction.", n=nxt.number,
                                 tables=", ".join(str(b) for b in busy)))
    elif nxt is not None and nxt.status == "closed":
        warnings.append(_("Round %(n)d is already played: its draw was made from the recorded values.",
                          n=nxt.number))
    pub = publication(r)
    if pub is not None and not pub.get("open"):
        warnings.append(_("The 10 minutes for reporting a discrepancy after the standings of round %(n)d "
                          "were published have passed (SEM-C9).", n=round_no))
    players = {p.start_no: p for p in t.players}
    return CorrectionPreview(r, tab, c, nxt, seat_changes, adv_changes, warnings, players)


def consequences(pv: CorrectionPreview) -> dict:
    """What a SEM-C10 correction changes besides the sheet, as stored with its
    proposal: approving it later must change exactly this."""
    c = pv.correction
    return {"seat_changes": [{"table": x["table"], "before": x["before"], "after": x["after"]}
                             for x in pv.seat_changes],
            "advancing_changes": [[s, what] for s, what in pv.advancing_changes],
            "sums": [f"{x:.2f}" for x in c.table.sums], "points": points_json(c.table.points),
            "harmed": list(c.harmed), "advantaged": list(c.advantaged), "fee": f"{c.fee:.2f}"}


def propose_correction(t: Tournament, round_no, table_no, values, kind: str, asked_by: str, actor: str,
                       version) -> Case:
    """SEM-C10 from the operator's desk: a proposal (a case of kind "c10") with the
    real sums and what the preview says they change. Nothing changes until a
    referee approves it (approve_c10)."""
    check_version(t, version)
    asked_by = (asked_by or "").strip()[:200]
    if not asked_by:
        raise ServiceError(_("Say who asked for the correction."), field="asked_by")
    pv = preview_correction(t, round_no, table_no, values, kind)
    r, tab = pv.round, pv.table
    waiting = open_correction(tab, ("c10",))
    if waiting is not None:
        raise ServiceError(_("A correction of round %(r)d, table %(t)d is already waiting for the referee "
                             "(case %(id)d). Nothing was sent: wait for the decision.",
                             r=r.number, t=tab.number, id=waiting.id))
    values = (list(values) + [""] * 3)[:len(tab.players)]
    # SEM-D1: a disqualified player's sum may be left empty, it stays as recorded (preview_correction)
    values = [v if str(v or "").strip() or s not in (tab.sheet.disqualified or ()) else tab.sheet.sums[i]
              for i, (v, s) in enumerate(zip(values, tab.players))]
    typed = [f"{x:.2f}" for x in round_service.parse_sums(values, len(tab.players))]
    payload = {"kind": kind, "asked_by": asked_by, "real_sums": typed, "base_version": tab.sheet.version,
               "old_sums": list(tab.sheet.sums), "old_points": tab.sheet.points,
               "consequences": consequences(pv), "warnings": [str(w) for w in pv.warnings]}
    # no sheet_id: the counted sheet is not waiting for anything, the proposal is the payload
    case = Case(tournament_id=t.id, round=r.number, table=tab.number, kind="c10", status="open",
                created_by=actor, payload=payload)
    db.session.add(case)
    db.session.flush()
    bump(t)
    audit("sheet.correction_proposed", actor, {"case": case.id, "round": r.number, "table": tab.number,
                                               **payload}, t.id)
    return case


def c10_proposals(t: Tournament) -> list[Case]:
    """SEM-C10 proposals of the tournament waiting for a referee, oldest first."""
    return list(db.session.scalars(select(Case).where(Case.tournament_id == t.id, Case.kind == "c10",
                                                      Case.status == "open").order_by(Case.id)))


def case_table(c: Case, t: Tournament) -> tuple[Round | None, RoundTable | None, Sheet | None]:
    """The round, table and counted sheet a referee case is about (None where they are gone)."""
    r = next((x for x in t.rounds if x.number == c.round), None)
    tab = next((x for x in r.tables if x.number == c.table), None) if r is not None else None
    return r, tab, tab.sheet if tab is not None else None


def c10_preview(c: Case, t: Tournament) -> CorrectionPreview:
    """The proposal of case c as the correction would be applied now; refused
    (ServiceError, saying what changed) when the table's counted sheet or the
    correction's consequences differ from what was proposed."""
    p = c.payload or {}
    _r, _tab, current = case_table(c, t)
    if current is None or current.version != p.get("base_version"):
        raise StaleError(_("The sheet of round %(r)d, table %(t)d changed since this correction was proposed "
                           "(it corrects version %(v)d, version %(cur)d counts now). Reject it: the operator "
                           "proposes it again.", r=c.round, t=c.table or 0, v=p.get("base_version") or 0,
                           cur=current.version if current else 0))
    pv = preview_correction(t, c.round, c.table, p.get("real_sums") or (), p.get("kind"))
    if consequences(pv) != p.get("consequences"):
        raise StaleError(_("What this correction changes is no longer what was proposed (the draw or the "
                           "results changed meanwhile). Reject it: the operator proposes it again."))
    return pv


def approve_c10(c: Case, t: Tournament, approved_by: str) -> CorrectionRow:
    """A referee approves a SEM-C10 proposal: it is applied as proposed."""
    p = c.payload or {}
    pv = c10_preview(c, t)
    return _apply_c10(t, pv, p.get("kind"), p.get("asked_by") or "", approved_by, approved_by, case=c.id,
                      proposed_by=c.created_by)


def _apply_c10(t: Tournament, pv: CorrectionPreview, kind: str, asked_by: str, approved_by: str, actor: str,
               **extra) -> CorrectionRow:
    """SEM-C10 once a referee approved it: a new accepted sheet version (source
    "correction"), the swapped seats of a published cut-round draw, the
    `corrections[]` record and an audit entry with old and new values."""
    c, tab = pv.correction, pv.table
    old = tab.sheet
    old.status = "superseded"
    sheet = Sheet(table=tab, version=max(s.version for s in tab.sheets) + 1, status="accepted",
                  sums=[f"{s:.2f}" for s in c.table.sums],
                  points=points_json(c.table.points), disqualified=list(c.table.disqualified),
                  early=bool(c.table.early), source="correction", note=f"SEM-C10 {kind}", created_by=actor)
    db.session.add(sheet)
    swapped = []
    if pv.seat_changes or pv.advancing_changes:
        nxt = pv.next_round
        by_no = {x.table: x for x in c.swapped_draw.tables}
        for ntab in nxt.tables:
            new = by_no[ntab.number]
            if list(ntab.players) != list(new.players):
                swapped.append({"table": ntab.number, "before": list(ntab.players), "after": list(new.players)})
                ntab.players = list(new.players)
                ntab.flags = list(new.flags)
        if c.swapped_draw.advancing is not None:
            nxt.advancing = list(c.swapped_draw.advancing)
            nxt.eliminated = list(c.swapped_draw.eliminated or ())
    record = audit_entry(c, asked_by, approved_by, utcnow().isoformat(timespec="seconds") + "Z")
    row = CorrectionRow(tournament=t, record=record, created_by=actor)
    db.session.add(row)
    bump(t)
    db.session.flush()
    audit("sheet.correction", actor, {**record, **extra, "sheet_version": sheet.version,
                                      "old_version": old.version, "old_sums": old.sums, "old_points": old.points,
                                      "new_sums": sheet.sums, "new_points": sheet.points,
                                      "draw_swapped": swapped}, t.id)
    return row
