"""The standings pages: everything they show after a closed round (the same engine function as
`listok standings`), which values were corrected (SEM-C10, C5, C4), who advances into a cut
round (SEM-B9..B11), and the lot that orders players tied on every key (TH-4).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from flask_babel import gettext as _

from ..extensions import db
from ..models import Event as EventRow, RoundTable, Sheet, Tournament
from ..rules import model as rules
from ..rules.report import ReportError, standings_report
from ..rules.ruleset import RuleSet, get_ruleset
from ..rules.seating import DrawError, draw
from ..rules.standings import card_disqualifications, collect_stats, field_status, standings
from .rounds import publication
from .common import ServiceError, audit, bump, check_version
from .engine import rules_tournament
from .loaders import last_closed


@dataclass
class RoundCell:
    round: int
    table: int | None
    sum: Decimal | None
    points: Fraction | None
    corrected: str | None = None  # "C10" (published correction) | "C5" (wrong total) | "C4" (referee) | None
    disqualified: bool = False
    old_sum: Decimal | None = None  # SEM-C4: the sum before the referee-approved correction
    values: dict | None = None  # the rule set's own parts of the result (RuleSet.round_results)


def c4_replaced(tab: RoundTable) -> Sheet | None:
    """The accepted version that the table's counted sheet replaced through a
    referee-approved correction before hand-in (SEM-C4), else None. Such a
    sheet names the version it corrects (`base_version`); the sync service
    stores it only on the referee's approval."""
    sheet = tab.sheet
    if sheet is None or not sheet.base_version:
        return None
    return next((s for s in tab.sheets if s.version == sheet.base_version and s.status == "superseded"), None)


def c4_old_by_seat(tab: RoundTable) -> list[Decimal | None] | None:
    """Per seat, the sum before an SEM-C4 correction changed it (None where it did
    not change); None when the counted sheet is no such correction."""
    prev = c4_replaced(tab)
    if prev is None:
        return None
    return [Decimal(before) if Decimal(before) != Decimal(after) else None
            for before, after in zip(prev.sums, tab.sheet.sums)]


def c4_old_sums(t: Tournament) -> dict[tuple[int, int], Decimal]:
    """(round, start no) → the sum before an SEM-C4 correction changed it."""
    old: dict[tuple[int, int], Decimal] = {}
    for r in t.rounds:
        for tab in r.tables:
            for s, before in zip(tab.players, c4_old_by_seat(tab) or ()):
                if before is not None:
                    old[(r.number, s)] = before
    return old


def correction_marks(t: Tournament) -> dict[tuple[int, int], str]:
    """(round, start no) whose values were corrected: SEM-C10 corrections (old ≠ new),
    SEM-C5 administrative corrections (entered ≠ counted sum) and SEM-C4
    corrections the referee approved before hand-in (old ≠ new version)."""
    marks: dict[tuple[int, int], str] = {}
    for r in t.rounds:
        for tab in r.tables:
            sheet = tab.sheet
            if sheet is not None and sheet.entered_sums:
                for s, entered, counted in zip(tab.players, sheet.entered_sums, sheet.sums):
                    if Decimal(entered) != Decimal(counted):
                        marks[(r.number, s)] = "C5"
    for key in c4_old_sums(t):
        marks[key] = "C4"
    for c in t.corrections:
        rec = c.record or {}
        old, new = rec.get("old") or {}, rec.get("new") or {}
        for s, values in new.items():
            if old.get(s) != values:
                marks[(int(rec.get("round", 0)), int(s))] = "C10"
    return marks


def table_numbers(t: Tournament) -> dict[tuple[int, int], int]:
    return {(r.number, s): tab.number for r in t.rounds for tab in r.tables for s in tab.players}


def _cut_info(t: Tournament, rt: rules.Tournament, rs: RuleSet, k: int, final: bool) -> dict | None:
    """Who advances from round k into the cut round k+1 (SEM-B9..B11): the
    stored draw when round k+1 is drawn, otherwise the engine's draw as a preview."""
    n = k + 1
    if final or n > rs.rounds or rs.round_kind(n) != "cut":
        return None
    stored = next((r for r in t.rounds if r.number == n), None)
    if stored is not None and stored.advancing is not None:
        return {"round": n, "advancing": list(stored.advancing), "eliminated": list(stored.eliminated or ()),
                "preview": False, "threshold": rs.cuts.get(n), "error": None}
    try:
        d = draw(rt if k >= rt.last_round else replace(rt, rounds=rt.rounds_upto(k)), n, rs)
    except DrawError as e:
        return {"round": n, "advancing": [], "eliminated": [], "preview": True, "threshold": rs.cuts.get(n),
                "error": str(e)}
    return {"round": n, "advancing": list(d.advancing or ()), "eliminated": list(d.eliminated or ()),
            "preview": True, "threshold": rs.cuts.get(n), "error": None}


def standings_page(t: Tournament, after: int | None = None) -> dict:
    """Everything the standings pages show after round `after` (default: the last
    closed round), computed by the same engine function as `listok standings`."""
    rs = get_ruleset(t.ruleset)
    k_max = last_closed(t)
    if k_max == 0:
        raise ServiceError(_("No round is closed yet: there are no standings."))
    k = k_max if after is None else after
    rt = rules_tournament(t, closed_only=True)
    try:
        report = standings_report(rt, after_round=k)
    except ReportError:
        raise ServiceError(_("There are no standings after round %(n)d.", n=k)) from None
    stats = collect_stats(rs, rt, k)
    tables = table_numbers(t)
    marks = correction_marks(t)
    c4_old = c4_old_sums(t)
    status = field_status(rt, k)
    floor = min(k, rs.qualification_rounds)
    rows = []
    prev_stage = None
    for row in report["standings"]:
        s = row["start_no"]
        st = stats.get(s)
        cells = {}
        if st is not None:
            for rnd, m, pts in zip(st.rounds, st.sums, st.round_points):
                cells[rnd] = RoundCell(rnd, tables.get((rnd, s)), m, pts, marks.get((rnd, s)),
                                       old_sum=c4_old.get((rnd, s)) if marks.get((rnd, s)) == "C4" else None)
        if st is not None:  # a rule set's own report rows (ČSM, Thousand) get the shared columns too
            row = {"points": st.points, "money": st.money, "last_round": st.last_round,
                   "records": {str(p): st.records.get(p, 0) for p in rs.record_points},
                   "tournament_points": None, **row}
        stage = max(row["last_round"], floor)
        rows.append({**row, "stage": stage, "new_stage": stage != prev_stage,
                     "cells": [cells.get(n) for n in range(1, k + 1)],
                     "withdrawn": s in status.withdrawn})
        prev_stage = stage
    cut = _cut_info(t, rt, rs, k, report["final"])
    if cut is not None:
        adv, elim = set(cut["advancing"]), set(cut["eliminated"])
        last_adv = max((i for i, row in enumerate(rows) if row["start_no"] in adv), default=None)
        for i, row in enumerate(rows):
            row["cut"] = "advances" if row["start_no"] in adv else "eliminated" if row["start_no"] in elim else None
            row["cut_line"] = last_adv is not None and i == last_adv + 1 and bool(elim)
    names = {p.start_no: p.name for p in t.players}
    clubs = report.get("clubs")
    if clubs:
        for c in clubs:
            c["counted_players"] = [(s, names.get(s, "")) for s in c["counted"]]
    r = next((x for x in t.rounds if x.number == k), None)
    return {
        "card_dq": card_dq_tables(rt, k),
        "after": k, "last_closed": k_max, "rounds": list(range(1, k + 1)), "final": report["final"],
        "rows": rows, "clubs": clubs, "cut": cut, "publication": publication(r, rs=rs),
        "qualification_rounds": rs.qualification_rounds, "ruleset": rs,
        "any_tie": any(row["tie"] for row in rows),
        "must_nominate": _must_nominate(t, rt) if clubs else [],
        "unranked": sorted(set(status.disqualified) | set(status.unranked_substitutes)),
        "disqualified": sorted(status.disqualified), "unranked_substitutes": sorted(status.unranked_substitutes),
    }


def card_dq_tables(rt: rules.Tournament, upto: int) -> list[dict]:
    """The tables where a card that disqualifies (SEM-E6, E8) disqualified the player
    (SEM-D1), for the standings footnote: round, table, start number, the D1 case."""
    cards = card_disqualifications(rt)
    out = []
    for rnd in rt.rounds_upto(upto):
        for tr in rnd.tables:
            for s in tr.disqualified:
                if cards.get(s) == rnd.number:
                    remaining = len(tr.players) - len(tr.disqualified)
                    out.append({"round": rnd.number, "table": tr.table, "start_no": s,
                                "rule": "D1a" if remaining == 0 else "D1b" if remaining == 1 else "D1c"})
    return out


def _must_nominate(t: Tournament, rt: rules.Tournament) -> list[str]:
    """SEM-B3a: the clubs whose duty to nominate was fixed at round 1."""
    from ..rules.season import NOMINATE_ABOVE, nomination_duty

    return sorted(c for c, k in nomination_duty(rt).items() if k > NOMINATE_ABOVE)


def public_standings_round(t: Tournament) -> int | None:
    """The last closed round whose standings the public sees: from the rule set's
    `public_from_round` on (SEM-C9: round 2), the same for every public page."""
    k = last_closed(t)
    return k if k >= public_from_round(t) else None


def public_from_round(t: Tournament) -> int:
    return get_ruleset(t.ruleset).public_from_round


def tie_groups(t: Tournament, after: int) -> list[dict]:
    """Players equal on every ranking key after round `after`, where the rule set settles
    such ties by a recorded lot (TH-4): [{"players": [(start_no, name), …], "by": "lot" |
    "start number"}], in standings order. Empty for other rule sets."""
    rs = get_ruleset(t.ruleset)
    if not rs.lot_ties:
        return []
    rows = standings(rules_tournament(t, closed_only=True), after, rs)
    groups = []
    for i, j in rs.equal_runs(rows):
        group = rows[i:j + 1]
        groups.append({"players": [(r.player.start_no, r.player.name) for r in group],
                       "places": (group[0].place, group[-1].place),
                       "by": "lot" if all(r.tie == "lot" for r in group) else "start number"})
    return groups


def record_lot(t: Tournament, after, order_text: str, actor: str, version) -> EventRow:
    """TH-4: the order a lot drawn by the judge put tied players in, best first, as a `lot`
    event of the tournament file. It must name exactly the players of one tie after round `after`."""
    check_version(t, version)
    rs = get_ruleset(t.ruleset)
    if not rs.lot_ties:
        raise ServiceError(_("Under these rules a tie is not decided by a lot."))
    try:
        k = int(after)
    except (TypeError, ValueError):
        k = -1
    if not 1 <= k <= last_closed(t):
        raise ServiceError(_("There are no standings after round %(n)d.", n=max(k, 0)))
    try:
        order = [int(x) for x in str(order_text or "").replace(",", " ").replace(";", " ").split()]
    except ValueError:
        raise ServiceError(_("Write the start numbers in the order the lot gave, best first, separated by "
                             "spaces or commas."), field="order") from None
    groups = [{s for s, _name in g["players"]} for g in tie_groups(t, k)]
    if len(set(order)) != len(order) or set(order) not in groups:
        raise ServiceError(_("The lot orders the players of one tie, each once: %(groups)s.",
                             groups="; ".join(", ".join(str(s) for s in sorted(g)) for g in groups)
                             or _("there is no tie")), field="order")
    ev = EventRow(tournament=t, type="lot", start_no=0, round=k, order=order, created_by=actor)
    db.session.add(ev)
    bump(t)
    db.session.flush()
    audit("standings.lot", actor, {"after_round": k, "order": order, "rule": "TH-4"}, t.id)
    return ev
