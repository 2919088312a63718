"""What a phone reads of its table (docs/SYNC.md): one player's PIN checked at once (with a proof
for the sheet being signed), the table's state (the sheet it is shown, open cases, the rule
set's fields and the figures the server computes) and the preview of results being entered.
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from ..extensions import db
from ..models import Case, Round, RoundTable, Sheet, Tournament
from ..rules.points import table_outcome
from ..rules.ruleset import get_ruleset
from ..sync import protocol
from .common import audit
from .engine import rules_table
from .pins import PinError, check_pin, pin_proof
from .sheets import (Answer, SyncRefusal, check_for_token, pin_refusal, read_token, seated_player, table_players,
                     text_cents, token_table)
from .sheet_submit import check_players, check_sums, content_table
from .own_phone import draft_state


def check_table_pin(token: str, start_no: int, pin: str, content_hash: str | None = None) -> Answer:
    """POST /api/v1/pin: one player's PIN, checked at once (failures count).
    Given the content hash being signed, a right PIN earns a proof the phone
    sends with the sheet, so the PIN is not hashed again then."""
    t, _r, tab = token_table(token)
    player = seated_player(t, tab, start_no)
    lockouts = []
    try:
        check_pin(t, player, pin, chain_later=lockouts)
    except PinError as e:
        if lockouts:
            # this request holds the player's row and not the tournament's, which the chain takes and a
            # sheet waiting for this player holds: the attempt and the lock are committed first
            db.session.commit()
            for entry in lockouts:
                audit(*entry)
        raise pin_refusal(e) from e
    if content_hash is None:
        return Answer(200, {"status": "ok"})
    return Answer(200, {"status": "ok", "proof": pin_proof(t.id, start_no, content_hash, player.pin_hash)})


def shown_sheet(tab: RoundTable) -> Sheet | None:
    """The sheet a phone is shown: the counted one, else the newest waiting for a referee."""
    if tab.sheet is not None:
        return tab.sheet
    waiting = [s for s in tab.sheets if s.status in ("pending", "dispute")]
    return waiting[-1] if waiting else None


def table_state(token: str, draft_hash: str | None = None, receipt: str | None = None) -> dict:
    """GET /api/v1/table: what the server has for the token's table; with
    `draft_hash`, that draft, else the newest one no sheet has been sent for; with
    `receipt`, what became of that sheet of the table (the phone that sent it learns
    the referee's decision)."""
    t, r, tab = token_table(token)
    mine = next(({"receipt": s.receipt, "status": s.status} for s in tab.sheets if receipt and s.receipt == receipt),
                None)
    rs = get_ruleset(t.ruleset)
    by_no = table_players(t, tab)
    expected = rs.expected_total(len(tab.players))
    sheet = shown_sheet(tab)
    return {
        "status": "ok", "round": r.number, "table": tab.number,
        "players": [{"start_no": s, "name": by_no[s].name if s in by_no else "?",
                     "club": (by_no[s].club or "") if s in by_no else ""} for s in tab.players],
        "cards_position": rs.cards_position(r.number),
        "total_cents": text_cents(f"{expected:.2f}") if expected is not None else None,
        "sheet": None if sheet is None else {
            "version": sheet.version, "receipt": sheet.receipt, "sums_cents": [text_cents(x) for x in sheet.sums],
            "status": sheet.status,
            # red pen: it replaced an earlier counted version, or SEM-C5 changed its sums
            "corrected": sheet.entered_sums is not None or any(s.status == "superseded" for s in tab.sheets),
            **sheet_figures(rs, tab, sheet)},
        "rules": rule_fields(rs, len(tab.players)),
        "draft": draft_state(tab, draft_hash),
        # What became of the table's sheets since (a dispute, the referee, a correction)
        "open_cases": open_case_kinds(t, r, tab),
        "mine": mine,
    }


def open_case_kinds(t: Tournament, r: Round, tab: RoundTable) -> list[str]:
    return list(db.session.scalars(select(Case.kind).where(
        Case.tournament_id == t.id, Case.round == r.number, Case.table == tab.number,
        Case.status == "open").order_by(Case.id)))

def rule_fields(rs, n_players: int) -> dict:
    """What a phone needs to take this rule set's results (docs/SYNC.md "Rule sets"), as data: the
    page's script names no rule set."""
    return {"result_kind": rs.result_kind, "currency": rs.currency, "table_size": n_players,
            "negative_note": rs.negative_sum_note, "keeper": rs.sheet_keeper(None),
            "premium_line": rs.premium_line, "table_points": has_table_points(rs),
            "late_fee_cents": int(rs.late_fee * 100) if rs.late_fee is not None else None,
            "keeper_by_lot": rs.keeper_by_lot}


def has_table_points(rs) -> bool:
    """Whether a table's results give its players points of their own (not CSM-4's field-wide BP)."""
    return bool(rs.place_points) or rs.result_kind == "score"


def _points(values) -> list:
    return [None if p is None else float(p) for p in values]


def figures(rs, table) -> dict:
    """The numbers the server computes for a table's results: its points (SEM-C6, SMU-3, TH-3) or
    ČSM's SB (CSM-2), and who keeps the sheet (SEM-C4, TH-6)."""
    out: dict = {"keeper": rs.sheet_keeper(list(table.scores if table.scores is not None else table.sums))}
    if has_table_points(rs):
        out["points"] = _points(table_outcome(rs, table).points)
    if rs.result_kind == "zb+pb" and table.scores is not None:
        out["sb"] = [int(zb + pb) for zb, pb in zip(table.sums, table.scores)]
    return out


def sheet_figures(rs, tab: RoundTable, sheet: Sheet) -> dict:
    """A stored sheet's rule-set fields and figures, for the phone's status box."""
    table_facts = {k: v for k, v in (("late", sheet.late), ("keeper_by_lot", sheet.keeper_by_lot)) if v is not None}
    if rs.result_kind == "money":
        return table_facts  # the page computes money sheets' points itself, also offline
    out = {k: v for k, v in (("scores", protocol.stored_field({"scores": sheet.scores}, "scores")),
                             ("ended", sheet.ended), ("premium_games", sheet.premium_games)) if v is not None}
    if "scores" in out:
        out["scores"] = [int(Decimal(x)) for x in out["scores"]]
    f = figures(rs, rules_table(tab.number, tab.players, sheet))
    f.pop("keeper", None)
    return {**table_facts, **out, **f}


def preview(token: str, c: protocol.Content) -> Answer:
    """POST /api/v1/preview: the points and the keeper the server computes for results being
    entered on a phone, and the first reason it would refuse them; nothing is stored."""
    check_for_token(c, *read_token(token))
    t, _r, tab = token_table(token)
    check_players(tab, c)
    rs = get_ruleset(t.ruleset)
    problem = None
    try:
        check_sums(t, tab, c)
    except SyncRefusal as e:
        problem = {"error": e.body.get("error"), "message": e.body.get("message"), "field": e.body.get("field")}
    return Answer(200, {"status": "ok", "problem": problem, **figures(rs, content_table(tab, c))})
