"""A player's public page: where they play now or next, their rounds, their place after each
closed round and the chart of it; what every player's page shares is read once (ClosedRounds).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..models import Tournament
from ..rules.ruleset import get_ruleset
from ..rules.standings import collect_stats, field_status, standings
from . import rounds as round_service
from .common import NotFoundError
from .engine import rules_tournament
from .loaders import last_closed
from .standings import RoundCell, c4_old_sums, correction_marks


@dataclass(frozen=True)
class ClosedRounds:
    """What every player's page reads of the closed rounds: the same for all of them
    as long as the public version is (the running round's phone sheets leave it)."""

    after: int
    status: object  # rules.standings.FieldStatus
    stats: dict
    rankings: dict  # after round n (from the rule set's public_from_round on): {start no: its standings row}
    sizes: dict  # after round n: how many are ranked


def closed_rounds(t: Tournament) -> ClosedRounds:
    rs = get_ruleset(t.ruleset)
    k = last_closed(t)
    rt = rules_tournament(t, closed_only=True)
    rankings, sizes = {}, {}
    if k >= rs.public_from_round:
        for n in range(1, k + 1):
            ranking = standings(rt, n, rs)
            rankings[n] = {s.player.start_no: s for s in ranking}
            sizes[n] = len(ranking)
    return ClosedRounds(k, field_status(rt, k), collect_stats(rs, rt, k), rankings, sizes)


def player_page(t: Tournament, start_no: int, closed: ClosedRounds | None = None) -> dict:
    """`closed`: closed_rounds(t), which every player's page of this public version shares."""
    p = next((x for x in t.players if x.start_no == start_no), None)
    if p is None:
        raise NotFoundError(f"start number {start_no}")
    rs = get_ruleset(t.ruleset)
    closed = closed or closed_rounds(t)
    k, status = closed.after, closed.status
    marks = correction_marks(t)
    c4_old = c4_old_sums(t)

    # where they play now or next: the newest published round that seats them
    seat = None
    latest = t.rounds[-1] if t.rounds else None
    for r in reversed(t.rounds):
        if r.status == "draft":
            continue
        found = round_service.seat_of(r, start_no)
        if found is not None and r.status == "published":
            tab, i = found
            seat = {"round": r.number, "table": tab.number, "position": i + 1,
                    "players": [x for x in tab.players], "cards": rs.cards_position(r.number),
                    "sheet_in": tab.sheet is not None}
        break

    results = []
    stats = closed.stats.get(start_no)
    by_round = rs.round_results(stats) if stats is not None else {}
    for r in t.rounds:
        if r.status != "closed":
            continue
        found = round_service.seat_of(r, start_no)
        if found is None:
            continue
        tab, i = found
        values = by_round.get(r.number, {})
        dq = start_no in (tab.sheet.disqualified if tab.sheet is not None else ())
        mark = marks.get((r.number, start_no))
        results.append(RoundCell(r.number, tab.number, values.get("sum"), values.get(rs.points_field), mark, dq,
                                 old_sum=c4_old.get((r.number, start_no)) if mark == "C4" else None,
                                 values=values))

    place = None
    history: list[tuple[int, int]] = []
    total = None
    field_size = 0
    visible = k >= rs.public_from_round
    if visible:
        for n in range(1, k + 1):
            field_size = closed.sizes[n]
            s = closed.rankings[n].get(start_no)
            if s is not None:
                history.append((n, s.place))
                if n == k:
                    place, total = s.place, s
    cut_out = next((r.number for r in t.rounds if r.status != "draft" and start_no in (r.eliminated or ())), None)
    players = {x.start_no: x for x in t.players}
    return {
        "player": p, "seat": seat, "results": results, "place": place, "history": history,
        "points": total.stats.points if total else (stats.points if stats else None),
        "money": total.stats.money if total else (stats.money if stats else None),
        "totals": rs.total_results(total.stats if total else stats) if (total or stats) else None,
        "ruleset": rs,
        "visible": visible, "after": k, "field_size": field_size, "players": players,
        "disqualified": start_no in status.disqualified, "withdrawn": status.withdrawn.get(start_no),
        "unranked_substitute": start_no in status.unranked_substitutes,
        "finished": t.status == "finished", "latest": latest, "eliminated_before": cut_out,
        "chart": place_chart(history, max(field_size, 1)) if len(history) >= 1 else None,
    }


def place_chart(history: list[tuple[int, int]], field_size: int, width: int = 320, height: int = 140) -> dict:
    """Coordinates of the place-after-each-round chart (server-rendered SVG):
    place 1 at the top, the last place at the bottom."""
    pad_l, pad_r, pad_t, pad_b = 36, 16, 14, 24
    rounds = [n for n, _ in history]
    first, last = (min(rounds), max(rounds)) if rounds else (1, 1)
    span = max(last - first, 1)
    inner_w, inner_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(n):
        return round(pad_l + (n - first) * inner_w / span, 1) if last > first else pad_l + inner_w / 2

    def y(place):
        return round(pad_t + (place - 1) * inner_h / max(field_size - 1, 1), 1)

    points = [{"round": n, "place": pl, "x": x(n), "y": y(pl)} for n, pl in history]
    return {"width": width, "height": height, "points": points,
            "polyline": " ".join(f"{pt['x']},{pt['y']}" for pt in points),
            "top": y(1), "bottom": y(field_size), "left": pad_l, "right": width - pad_r,
            "field_size": field_size, "baseline": height - 6}
