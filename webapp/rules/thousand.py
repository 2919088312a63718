"""Thousand — Тысяча (RULES.md §2, TH-1..TH-6; seed 003)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from .errors import N_, Text
from .model import Tournament
from .points import TableOutcome
from .ruleset import Problem, RuleSet, register, split_field
from .standings import PlayerStats

WIN = 1000  # TH-3
BARREL = 880
ENDINGS = ("win", "time")
FINAL_ROUND = 5


def bracket(score: Decimal, ended: str | None) -> int:
    """TH-3: < 0 → -1; 0..439 → 0; 440..879 → 1; 880 → 2 when time ran out,
    1 when another player won; 1000 or more (the win) → 3."""
    if score < 0:
        return -1
    if score < 440:
        return 0
    if score >= WIN:
        return 3
    if score == BARREL and ended == "time":
        return 2
    return 1


@dataclass
class ThousandStats(PlayerStats):
    """`points` and `money` (the score, "висты") over the Swiss rounds; the final apart."""

    final_score: Decimal | None = None


class Thousand(RuleSet):
    """TH-1: tables of 3, tables of 4 for the rest (last in table order). TH-2:
    4 Swiss rounds (round 1 by lot or rating, rounds 2-4 by standings without
    repeated opponents) and a final of the best 4 as round 5, everything reset.
    TH-3: brackets, no table total. TH-4: points, score, a recorded lot. TH-5:
    late entry after round 1, withdrawals, the frozen table of two."""

    code = "thousand"
    title = "Тысяча"
    # the pages translate it (i18n.ruleset_title); every language keeps the game's own name, Тысяча
    title_en = "Thousand (Тысяча)"
    table_sizes = (3, 4)
    stake = Decimal("0")
    place_points: dict = {}
    record_points = ()
    rounds = FINAL_ROUND
    qualification_rounds = 4
    cuts = {}
    club_rule_rounds = frozenset()
    avoid_repeats = True
    final_size = 4
    result_kind = "score"
    currency = None
    total_rule = "TH-3"
    split_rule = N_("TH-1: as many tables of 3 as possible, tables of 4 for the rest")
    cut_rule = "TH-2"
    time_called_rule = "TH-3"
    round_length = 60  # TH-2: the Swiss rounds
    round_rule = ("TH-2: a Swiss round lasts 60 minutes; when time runs out the game ends and is scored as it "
                  "stands (TH-3). The final is played to a win without a time limit.")

    def round_minutes(self, round_no: int) -> int | None:
        """TH-2: 60 minutes a Swiss round; the final has no time limit."""
        return None if round_no == FINAL_ROUND else self.round_length
    withdrawal_rule = "TH-5"
    withdraw_during_round = True
    late_entry_round = 2
    lot_ties = True
    keeper_kind = "best"
    keeper_rule = "TH-6"
    result_fields = ("score",)

    def round_results(self, stats) -> dict[int, dict]:
        """TH-2: the Swiss rounds' scores and points, then the final's score (its points are not counted)."""
        swiss = [r for r in stats.rounds if r != FINAL_ROUND]
        out = {r: {"score": v, "points": p} for r, v, p in zip(swiss, stats.sums, stats.round_points)}
        if stats.final_score is not None:
            out[FINAL_ROUND] = {"score": stats.final_score, "points": None, "final": True}
        return out

    def total_results(self, stats) -> dict:
        out = {"score": stats.money, "points": stats.points}
        if stats.final_score is not None:
            out["final_score"] = stats.final_score
        return out

    def table_results(self, table) -> list[dict]:
        return [{"score": v} for v in (table.scores if table.scores is not None else table.sums)]
    paper_language = "ru"
    public_from_round = 1  # TH-2: the Swiss rounds seat by the standings everybody sees
    objection_minutes = None
    publication_rule = None
    cites = {"seat-rating": "TH-2", "seat-standings": "TH-2", "withdraw": "TH-5", "substitute": "TH-5"}
    discipline_options = ("withdraw", "substitute", "disqualify")

    def expected_total(self, n_players: int):
        return None  # TH-3: no table total

    def table_split(self, count: int) -> tuple[int, ...]:
        return split_field(count, (3, 4), {}, self.code)

    def round_kind(self, round_no: int) -> str:
        if round_no == 1:
            return "lot"
        if round_no == FINAL_ROUND:
            return "cut"  # the final: only the best 4 play on
        return "standings"

    def table_points(self, sums):
        return tuple(bracket(s, "time") for s in sums)

    # --- the file ---------------------------------------------------------------
    def allows_sheet_size(self, size: int, raw: dict) -> bool:
        return size in self.table_sizes or (size == 2 and raw.get("frozen") is True)

    def read_table(self, reader, raw: dict, players, loc: dict) -> dict:
        frozen = reader.flag(raw.get("frozen", False), '"frozen"', **loc)
        ended = raw.get("ended")
        if ended is None and not frozen:
            reader.fail(Text(N_('missing "ended" ("win" or "time", TH-3)')), **loc)
        if ended is not None and ended not in ENDINGS:
            reader.fail(Text(N_('"ended" must be "win" or "time", not %(value)s'), value=repr(ended)), **loc)
        return {"ended": ended, "frozen": frozen}

    def write_table(self, table, d: dict) -> dict:
        d.pop("sums", None)
        d["score"] = [int(s) if s == s.to_integral_value() else float(s) for s in table.scores or table.sums]
        if table.ended is not None:
            d["ended"] = table.ended
        if table.frozen:
            d["frozen"] = True
        return d

    def check_table(self, table) -> str | None:
        scores = table.scores or ()
        for s, v in zip(table.players, scores):
            if v % 5:
                return Problem(f"the score {v} of start number {s} is not a multiple of 5 (TH-3)",
                               "score-step", start_no=s, score=int(v))
        if table.frozen:
            if len(table.players) != 2:
                return Problem("a frozen table (TH-5) holds the two players left after a withdrawal",
                               "frozen-size")
            if any(v >= WIN for v in scores):
                return Problem("a frozen table (TH-5) has no winner: it stopped at the withdrawal",
                               "frozen-winner")
            return None
        winners = [s for s, v in zip(table.players, scores) if v >= WIN]
        if len(winners) > 1:
            return Problem(f"start numbers {', '.join(map(str, winners))} both reached {WIN}: "
                           f"a table is won once (TH-3)", "won-twice", start_nos=tuple(winners), win=WIN)
        if table.ended == "win" and not winners:
            return Problem(f'the table ended by a win ("ended": "win") but nobody reached {WIN} (TH-3)',
                           "win-without-winner", win=WIN)
        if table.ended == "time" and winners:
            return Problem(f'start number {winners[0]} reached {WIN}: the table ended by a win, not by time (TH-3)',
                           "time-with-winner", start_no=winners[0], win=WIN)
        for s, v in zip(table.players, scores):
            if BARREL < v < WIN:
                return Problem(f"the score {v} of start number {s} cannot stand at the end of a game: "
                               f"above {BARREL} only {WIN} (the win) counts (TH-3)", "score-barrel",
                               start_no=s, score=int(v), barrel=BARREL, win=WIN)
        return None

    def check_tournament(self, t: Tournament):
        played: dict[int, int] = {}
        for rnd in t.rounds:
            for table in rnd.tables:
                for s in table.players:
                    played.setdefault(s, rnd.number)
                if rnd.number == FINAL_ROUND:
                    if len(rnd.tables) != 1 or len(table.players) != self.final_size:
                        return (Text(N_("the final (round %(r)d) is one table of %(size)d (TH-2)"), r=FINAL_ROUND,
                                     size=self.final_size), {"round": rnd.number, "table": table.table})
                    if table.ended != "win":
                        return (Text(N_('the final is played to a win ("ended": "win", TH-2)')),
                                {"round": rnd.number, "table": table.table})
        for p in t.players:
            where = {"where": Text(N_("start number %(s)d"), s=p.start_no)}
            late = p.substitute_for is None and p.status != "substitute"
            if late and p.from_round is not None and p.from_round > 2:
                return (Text(N_("a late entry is accepted after round 1 only, not from round %(r)d (TH-5)"),
                             r=p.from_round), where)
            if p.from_round is not None and p.start_no in played and played[p.start_no] < p.from_round:
                return (Text(N_("enters from round %(r)d but plays in round %(played)d (TH-5)"), r=p.from_round,
                             played=played[p.start_no]), where)
            if p.substitute_for is not None and p.substitute_for in played:
                first = played[p.substitute_for]
                mine = played.get(p.start_no)
                if mine is not None and first < mine:
                    return (Text(N_("substitutes for start number %(s)d, who played round %(r)d: substitutes only "
                                    "for players who have not played (TH-5)"), s=p.substitute_for, r=first), where)
        return None

    # --- standings ----------------------------------------------------------------
    def outcome(self, table) -> TableOutcome:
        """TH-3 brackets; TH-5: both players of a frozen table get 2 points."""
        scores = tuple(table.scores if table.scores is not None else table.sums)
        if table.frozen:
            points = tuple(2 for _ in scores)
        else:
            points = tuple(bracket(v, table.ended) for v in scores)
        dq = set(table.disqualified)
        return TableOutcome(table.players,
                            tuple(None if s in dq else v for s, v in zip(table.players, scores)),
                            tuple(None if s in dq else p for s, p in zip(table.players, points)))

    def collect_stats(self, t: Tournament, upto: int) -> dict[int, ThousandStats]:
        """Points and score over the Swiss rounds; the final's score apart (TH-2: reset)."""
        stats: dict[int, ThousandStats] = {}
        for rnd in t.rounds_upto(upto):
            for table in rnd.tables:
                out = self.outcome(table)
                for s, v, p in zip(out.players, out.money, out.points):
                    if p is None:
                        continue
                    st = stats.get(s)
                    if st is None:
                        st = stats[s] = ThousandStats(s, money=Decimal(0))
                    st.rounds.append(rnd.number)
                    if rnd.number == FINAL_ROUND:
                        st.final_score = v
                        continue
                    st.points += p
                    st.money += v
                    st.sums.append(v)
                    st.round_points.append(p)
        return stats

    def ranking_key(self, stats) -> tuple:
        """TH-4: points, then the score; the finalists (a stage of their own) by the final's score."""
        final = getattr(stats, "final_score", None)
        if final is not None:
            return (-final, 0)
        return (-stats.points, -stats.money)

    def settle_ties(self, t: Tournament, rows: list) -> list:
        """TH-4: players equal on every key are put in the order of the last
        `lot` event that names them all ("tie": "lot"); without one the start
        number decides ("tie": "start number", the operator records a lot)."""
        lots = [ev.order for ev in t.events if ev.type == "lot"]
        if not lots or not rows:
            return rows
        result = list(rows)
        for i, j in self.equal_runs(result):  # a run keeps its length and its keys: the runs stay valid
            group = result[i:j + 1]
            who = {r.player.start_no for r in group}
            lot = next((o for o in reversed(lots) if who <= set(o)), None)
            if lot is not None:
                pos = {s: k for k, s in enumerate(lot)}
                group.sort(key=lambda r: pos[r.player.start_no])
                result[i:j + 1] = [replace(r, place=i + k + 1, tie="lot") for k, r in enumerate(group)]
        return result

    def standings_report(self, t: Tournament, after_round: int) -> dict:
        from .exchange import json_number
        from .report import is_final
        from .standings import standings

        rows = []
        for s in standings(t, after_round, self):
            st = s.stats
            rows.append({
                "place": s.place, "start_no": s.player.start_no, "name": s.player.name,
                "points": json_number(st.points), "score": json_number(st.money),
                "last_round": st.last_round, "tie": s.tie,
                "final_score": None if st.final_score is None else json_number(st.final_score),
            })
        return {"ruleset": self.code, "after_round": after_round,
                "final": is_final(t, after_round, self), "standings": rows}


THOUSAND_RULES = register(Thousand())
