"""The final report as the rule set reports it (`standings_report`): its own result columns,
SEM-A3 tournament points, SEM-B3 clubs and a final at one table (TH-2); and a stored sheet in
the rule set's result shape for the receipt page.
"""
from __future__ import annotations

from flask_babel import gettext as _

from ..models import RoundTable, Sheet, Tournament
from ..rules.points import table_outcome
from ..rules.report import standings_report
from ..rules.ruleset import RuleSet, get_ruleset
from .common import ServiceError
from .engine import rules_table, rules_tournament
from .loaders import last_closed


# a rule set's result columns (EXCHANGE.md "Rule sets other than SEM"): key in its standings
# report, label, and how the value is written
REPORT_COLUMNS = {
    "money": (("points", "points"), ("money", "money")),
    "zb+pb": (("bp", "int"), ("sb", "int"), ("zb", "int"), ("pb", "int")),
    "score": (("points", "points"), ("score", "int"), ("final_score", "int")),
}


def report_labels() -> dict[str, str]:
    return {"points": _("Points"), "money": _("Money"), "bp": _("BP"), "sb": _("SB"), "zb": _("ZB"),
            "pb": _("PB"), "score": _("Score"), "final_score": _("Final score")}


def final_report(t: Tournament) -> dict:
    """The final results as the rule set reports them (`standings_report`, the same answer as
    `listok standings`): its own columns by `result_kind`, money in its `currency`, SEM-A3
    tournament points and the SEM-B3 clubs where the report has them, and a final at one
    table (TH-2) as its own block of places."""
    rs = get_ruleset(t.ruleset)
    k = last_closed(t)
    if k == 0:
        raise ServiceError(_("No round is closed yet: there are no standings."))
    rt = rules_tournament(t, closed_only=True)
    report = standings_report(rt, after_round=k)
    labels = report_labels()
    columns = [{"key": key, "label": labels[key], "format": fmt} for key, fmt in REPORT_COLUMNS[rs.result_kind]]
    rows = report["standings"]
    with_tp = bool(rows) and rows[0].get("tournament_points") is not None
    finalists = [r for r in rows if r.get("final_score") is not None]
    final_round = next((r for r in t.rounds if r.number == k), None) if finalists else None
    final_table = final_round.tables[0] if final_round is not None and len(final_round.tables) == 1 else None
    names = {p.start_no: p.name for p in t.players}
    clubs = report.get("clubs") or []
    for c in clubs:
        c["counted_players"] = [(s, names.get(s, "")) for s in c["counted"]]
    return {
        "ruleset": rs, "currency": rs.currency, "after": k, "final": report["final"], "columns": columns,
        "rows": [{**r, "values": [r.get(c["key"]) for c in columns]} for r in rows],
        "tournament_points": with_tp, "clubs": clubs if report["final"] else [],
        "finalists": finalists, "final_round": final_round.number if final_round is not None else None,
        "final_ended": final_table.sheet.ended if final_table is not None and final_table.sheet else None,
        "players": len(t.players), "rounds": k,
        "lots": [list(e.order or ()) for e in t.events if e.type == "lot"],
    }


def sheet_shape(rs: RuleSet, tab: RoundTable, sheet: Sheet) -> dict:
    """A stored sheet as the rule set's result shape (RuleSet.result_fields): each seat's parts and
    points, how the game ended (TH-3) and the premium-game lines (CSM-3), for the receipt page."""
    table = rules_table(tab.number, tab.players, sheet)
    rows = rs.table_results(table)
    fields = rs.result_fields
    if rs.place_points or rs.result_kind == "score":
        fields += ("points",)
        for row, p in zip(rows, table_outcome(rs, table).points):
            row["points"] = p
    return {"fields": fields, "rows": rows, "ended": table.ended, "premium_games": table.premium_games}
