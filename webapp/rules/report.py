"""The JSON-ready answers of the `listok` command (EXCHANGE.md), shared with the
server: plain dicts of str/int/float/None/list, money as strings with two
decimals, points as JSON numbers. Nothing here prints or reads files."""
from __future__ import annotations

from dataclasses import replace

from .exchange import json_number, money_text
from .errors import N_, Nn_, Text
from .model import Tournament
from .ruleset import RuleSet, get_ruleset
from .standings import standings


class ReportError(ValueError):
    """A question the tournament cannot answer (a round it does not have …)."""


def _upto(t: Tournament, k: int) -> Tournament:
    return t if k >= t.last_round else replace(t, rounds=t.rounds_upto(k))


def is_final(t: Tournament, after_round: int | None = None, rs: RuleSet | None = None, *,
             ranking: list | None = None) -> bool:
    """Whether the tournament is over after `after_round` (default: the last
    round in the file): the rule set's last round is played, or the cut into
    the next round lets nobody through (its draw is empty). `ranking`: the
    standings after that round, if the caller has them."""
    rs = rs or get_ruleset(t.ruleset)
    k = t.last_round if after_round is None else after_round
    if k >= rs.rounds:
        return True
    if k == 0 or k < t.last_round or rs.round_kind(k + 1) != "cut":
        return False
    from .seating import TABLE_SIZE, DrawError, cut_leaves_nobody, draw  # seating is the heaviest module

    try:
        if tuple(rs.table_sizes) == (TABLE_SIZE,):  # the cut alone decides: nobody need be seated
            return cut_leaves_nobody(_upto(t, k), k + 1, rs, ranking=ranking)
        return not draw(_upto(t, k), k + 1, rs, ranking=ranking).tables
    except DrawError:
        # the standings stand on their own; a draw problem is reported by `draw`
        return False


def _rounds_had(t: Tournament) -> Text:
    return Text(N_("rounds 1..%(last)d"), last=t.last_round) if t.last_round else Text(N_("no rounds"))


def _check_after_round(t: Tournament, after_round: int | None) -> int:
    if after_round is None:
        return t.last_round
    if not 1 <= after_round <= t.last_round:
        raise ReportError(Text(N_("cannot give standings after round %(r)d: the file has %(have)s"), r=after_round,
                               have=_rounds_had(t)))
    return after_round


BRIEF_KEYS = ("place", "start_no", "name", "club", "points", "money", "tie")


def standings_report(t: Tournament, after_round: int | None = None, *, brief: bool = False) -> dict:
    """`brief`: what the hall screen shows (the rows' BRIEF_KEYS and `after_round`), without what
    only the full report needs (whether the tournament is over, its tournament points, each row's
    sums and records, the clubs), which the projector need not compute once a round closes. A rule
    set with a report of its own gives it whole."""
    rs = get_ruleset(t.ruleset)
    k = _check_after_round(t, after_round)
    own = rs.standings_report(t, k)
    if own is not None:
        return own
    ranking = standings(t, k, rs)
    if brief:
        return {"ruleset": t.ruleset, "after_round": k, "standings": [
            {"place": s.place, "start_no": s.player.start_no, "name": s.player.name, "club": s.player.club,
             "points": json_number(s.stats.points), "money": money_text(s.stats.money), "tie": s.tie}
            for s in ranking]}
    final = is_final(t, k, rs, ranking=ranking)
    tp = rs.tournament_points(ranking) if final else None  # SEM-A3
    rows = []
    for s in ranking:
        st = s.stats
        points = None
        if tp is not None:
            x = tp[s.player.start_no]
            points = {"placement": x.placement, "bonus": x.bonus, "total": x.total}
        rows.append({
            "place": s.place,
            "start_no": s.player.start_no,
            "name": s.player.name,
            "club": s.player.club,
            "points": json_number(st.points),
            "money": money_text(st.money),
            "records": {str(p): st.records.get(p, 0) for p in rs.record_points},
            "sums": [money_text(m) for m in st.sums],
            "last_round": st.last_round,
            "tie": s.tie,
            "tournament_points": points,
        })
    report = {"ruleset": t.ruleset, "after_round": k, "final": final, "standings": rows}
    if final and tp is not None and rs.club_championship:
        from .season import club_results

        report["clubs"] = [
            {"place": c.place, "club": c.club, "score": c.score,
             "game_points": json_number(c.game_points),
             "counted": list(c.counted), "jokers": list(c.jokers)}
            for c in club_results(_upto(t, k), ranking, tp)
        ]
    return report


def draw_report(t: Tournament, round_no: int) -> dict:
    """The seating for `round_no` from the results of rounds 1..round_no-1
    (later rounds in the file are ignored, so a past draw can be re-checked)."""
    rs = get_ruleset(t.ruleset)
    if not 1 <= round_no <= rs.rounds:
        raise ReportError(Text(N_("round %(r)d does not exist: the rule set '%(code)s' has rounds 1..%(rounds)d"),
                               r=round_no, code=rs.code, rounds=rs.rounds))
    if round_no > t.last_round + 1:
        raise ReportError(Text(N_("cannot draw round %(r)d: it needs the results of rounds 1..%(prev)d, the file has "
                                  "%(have)s"), r=round_no, prev=round_no - 1, have=_rounds_had(t)))
    from .seating import draw

    d = draw(_upto(t, round_no - 1), round_no, rs)
    return {
        "round": d.round,
        "tables": [{"table": st.table, "players": list(st.players), "flags": list(st.flags)}
                   for st in d.tables],
        "advancing": None if d.advancing is None else list(d.advancing),
        "eliminated": None if d.eliminated is None else list(d.eliminated),
    }


def require_final(tournaments) -> None:
    """Season tables and ratings are built from finished tournaments only."""
    for t in tournaments:
        if not is_final(t):
            rs = get_ruleset(t.ruleset)
            raise ReportError(Text(Nn_("tournament '%(name)s' is not finished (results for %(have)d of %(num)d "
                                       "rounds)", "tournament '%(name)s' is not finished (results for %(have)d of "
                                       "%(num)d rounds)"), name=t.name, have=t.last_round, num=rs.rounds))


def season_report(tournaments, best: int | None = None, strike: int | None = None) -> dict:
    """The season tables of the rule set of `tournaments` (one rule set only)."""
    tournaments = list(tournaments)
    codes = sorted({t.ruleset for t in tournaments})
    if len(codes) > 1:
        raise ReportError(Text(N_("the files mix rule sets (%(codes)s): a season table takes tournaments of one rule "
                                  "set"), codes=", ".join(codes)))
    require_final(tournaments)
    rs = get_ruleset(codes[0] if codes else "sem")
    answer = rs.season_report(tournaments, best, strike)
    if answer is None:
        from .season import placement_season_report

        if strike is not None:
            raise ValueError(Text(N_("--strike applies to the rule set 'csm', not '%(code)s'"), code=rs.code))
        answer = placement_season_report(tournaments, best if best is not None else 11)
    return answer


def sem_season_report(tournaments, best: int = 11) -> dict:
    """SEM-A4, A5."""
    from .season import season_table

    tournaments = list(tournaments)
    table = season_table(tournaments, best)
    return {
        "players": [
            {"place": p.place, "id": p.id, "name": p.name, "club": p.club,
             "points": json_number(p.points), "game_points": json_number(p.game_points),
             "money": money_text(p.money),
             "counted": list(p.counted), "dropped": list(p.dropped)}
            for p in table.players
        ],
        "clubs": [
            {"place": c.place, "club": c.club, "points": json_number(c.points),
             "game_points": json_number(c.game_points)}
            for c in table.clubs
        ],
    }


def rating_report(tournaments, window: int = 12) -> dict:
    from .season import ratings

    tournaments = list(tournaments)
    require_final(tournaments)
    return {
        "ratings": [
            {"id": r.id, "name": r.name, "rating": json_number(r.rating), "tournaments": r.tournaments}
            for r in ratings(tournaments, window)
        ]
    }
