"""ČSM licitovaný mariáš (RULES.md §2, CSM-1..CSM-6; seed 001)."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from .errors import N_, Text
from .model import PremiumGame, Tournament
from .ruleset import Problem, RuleSet, register, split_field
from .standings import PlayerStats, shared_ranks

PREMIUM_LINE = 50  # CSM-3: games worth this many PB or more get a line on the sheet
SIGNATURES = 3  # CSM-3 interpretation: the players of the deal (the pausing dealer may sign too)


@dataclass
class CsmRound:
    round: int
    place: int
    bp: int
    zb: int
    pb: int

    @property
    def sb(self) -> int:
        return self.zb + self.pb


@dataclass
class CsmStats(PlayerStats):
    """CSM-4: `points` is the sum of BP, `money` the sum of SB (both kept for generic callers)."""

    zb: int = 0
    pb: int = 0
    per_round: list[CsmRound] = field(default_factory=list)

    @property
    def bp(self) -> int:
        return int(self.points)

    @property
    def sb(self) -> int:
        return self.zb + self.pb


class CSM(RuleSet):
    """CSM-1: tables of 4, at most 3 tables of 3 (last in table order). CSM-2:
    ZB (integer, a table totals 0) and PB (integer >= 0), SB = ZB + PB. CSM-3:
    premium-game lines. CSM-4: placement points per round across the field.
    CSM-5: 2 rounds, round 1 by rating (the season table), round 2 by standings
    without repeated opponents. CSM-6: the league table (`season_report`)."""

    code = "csm"
    title = "ČSM – licitovaný mariáš"
    title_en = "ČSM – bidding mariáš"  # the pages translate it (i18n.ruleset_title)
    table_sizes = (4, 3)
    stake = Decimal("0.00")  # CSM-2: ZB totals 0
    place_points: dict = {}
    record_points = ()
    rounds = 2
    qualification_rounds = 2
    cuts = {}
    club_rule_rounds = frozenset()
    avoid_repeats = True
    result_kind = "zb+pb"
    currency = "ZB"
    total_rule = "CSM-2"
    split_rule = N_("CSM-1: tables of 3 only when the field is not divisible by 4, at most three")
    max_tables_of_3 = 3  # CSM-1 (II.2)
    premium_line = PREMIUM_LINE
    keeper_kind = "seat"
    keeper_rule = "CSM-3"
    result_fields = ("zb", "pb", "sb")
    points_field = "bp"

    def round_results(self, stats) -> dict[int, dict]:
        return {r.round: {"zb": r.zb, "pb": r.pb, "sb": r.sb, "bp": r.bp} for r in stats.per_round}

    def total_results(self, stats) -> dict:
        return {"zb": stats.zb, "pb": stats.pb, "sb": stats.sb, "bp": stats.bp}

    def table_results(self, table) -> list[dict]:
        scores = table.scores or (Decimal(0),) * len(table.sums)
        return [{"zb": int(zb), "pb": int(pb), "sb": int(zb + pb)} for zb, pb in zip(table.sums, scores)]
    paper_language = "cs"
    # CSM-4: the standings of each half are public once it is closed (no objection window in seed 001)
    public_from_round = 1
    objection_minutes = None
    publication_rule = None
    cites = {"seat-rating": "CSM-5", "seat-standings": "CSM-5"}
    discipline_options = ("disqualify", "withdraw", "substitute")
    keeper_by_lot = True  # CSM-3 (II.3)
    # seed 001 limits a player's time away to 10 % of the playing time (II.25) but names no length
    round_rule = "The ČSM rules name no round length: the organiser calls time."
    seeding = ("season", "rating", "start")  # CSM-5

    def sheet_keeper(self, values=None) -> int:
        """CSM-3: the scorekeeper; position 1 unless a lot (II.3) names another."""
        return 0

    def table_split(self, count: int) -> tuple[int, ...]:
        return split_field(count, (4, 3), {3: self.max_tables_of_3}, self.code)

    def table_points(self, sums):
        """No table points (CSM-4): placement points come from the whole field."""
        return tuple(0 for _ in sums)

    # --- the file ---------------------------------------------------------------
    def read_table(self, reader, raw: dict, players, loc: dict) -> dict:
        items = reader.lst(raw.get("premium_games", []), '"premium_games"', **loc)
        games = []
        for i, g in enumerate(items, 1):
            what = Text(N_("premium game %(n)d"), n=i)
            g = reader.obj(g, what, **loc)
            for key in ("start_no", "game", "pb"):
                if key not in g:
                    reader.fail(Text(N_("%(what)s: missing %(key)s"), what=what, key=f'"{key}"'), **loc)

            def of(key):
                return Text(N_("%(key)s of %(what)s"), key=key, what=what)

            s = reader.integer(g["start_no"], of('"start_no"'), **loc)
            name = reader.text(g["game"], of('"game"'), **loc)
            pb = reader.integer(g["pb"], of('"pb"'), **loc)
            signed = tuple(reader.integer(x, Text(N_("a signature of %(what)s"), what=what), **loc)
                           for x in reader.lst(g.get("signed_by", []), of('"signed_by"'), **loc))
            games.append(PremiumGame(s, name, pb, signed))
        out = {"premium_games": tuple(games)}
        if raw.get("keeper_by_lot") is not None:
            out["keeper_by_lot"] = reader.integer(raw["keeper_by_lot"], '"keeper_by_lot"', **loc)
        return out

    def write_table(self, table, d: dict) -> dict:
        d["sums"] = [int(s) for s in table.sums]
        if table.scores is not None:
            d["score"] = [int(s) for s in table.scores]
        if table.premium_games:
            d["premium_games"] = [{"start_no": g.start_no, "game": g.game, "pb": g.pb,
                                   "signed_by": list(g.signed_by)} for g in table.premium_games]
        if table.keeper_by_lot is not None:
            d["keeper_by_lot"] = table.keeper_by_lot
        return d

    def check_table(self, table) -> str | None:
        problem = self.check_keeper(table.players, table.keeper_by_lot)
        if problem:
            return problem
        for s, zb in zip(table.players, table.sums):
            if zb != zb.to_integral_value():
                return Problem(f"the ZB of start number {s} ({zb}) must be a whole number (CSM-2)",
                               "zb-whole", start_no=s, value=str(zb))
        for s, pb in zip(table.players, table.scores or ()):
            if pb != pb.to_integral_value() or pb < 0:
                return Problem(f"the PB of start number {s} ({pb}) must be a whole number, 0 or more (CSM-2)",
                               "pb-whole", start_no=s, value=str(pb))
        return check_premium_games(table)

    # --- standings ----------------------------------------------------------------
    def collect_stats(self, t: Tournament, upto: int) -> dict[int, CsmStats]:
        """CSM-4: each round ranks the whole field by SB, then ZB; equal players
        share the place and its BP = N - place + 1 (N = players of the round).
        Disqualified players have no result."""
        stats: dict[int, CsmStats] = {}
        for rnd in t.rounds_upto(upto):
            entries = []
            for table in rnd.tables:
                scores = table.scores or (Decimal(0),) * len(table.players)
                for s, zb, pb in zip(table.players, table.sums, scores):
                    if s not in table.disqualified:
                        entries.append((s, int(zb), int(pb)))
            n = len(entries)
            places = shared_ranks([(-(zb + pb), -zb) for _, zb, pb in entries])
            for (s, zb, pb), place in zip(entries, places):
                st = stats.get(s)
                if st is None:
                    st = stats[s] = CsmStats(s, money=Decimal(0))
                bp = n - place + 1
                st.points += bp
                st.zb += zb
                st.pb += pb
                st.money += zb + pb
                st.sums.append(Decimal(zb + pb))
                st.round_points.append(bp)
                st.rounds.append(rnd.number)
                st.per_round.append(CsmRound(rnd.number, place, bp, zb, pb))
        return stats

    def ranking_key(self, stats) -> tuple:
        """CSM-4: BP, then SB, then ZB (start number last, added by the caller)."""
        return (-stats.points, -getattr(stats, "sb", 0), -getattr(stats, "zb", 0))

    def standings_report(self, t: Tournament, after_round: int) -> dict:
        from .report import is_final
        from .standings import standings

        rows = []
        for s in standings(t, after_round, self):
            st = s.stats
            rows.append({
                "place": s.place, "start_no": s.player.start_no, "name": s.player.name,
                "club": s.player.club, "bp": st.bp, "sb": st.sb, "zb": st.zb, "pb": st.pb,
                "rounds": [{"round": r.round, "place": r.place, "bp": r.bp, "zb": r.zb, "pb": r.pb,
                            "sb": r.sb} for r in st.per_round],
                "tie": s.tie,
            })
        return {"ruleset": self.code, "after_round": after_round,
                "final": is_final(t, after_round, self), "standings": rows}

    def season_report(self, tournaments, best: int | None = None, strike: int | None = None) -> dict:
        from .season import csm_season_report

        if best is not None:
            raise ValueError(Text(N_("--best applies to SEM; a ČSM league strikes its worst tournaments with "
                                     "--strike K (CSM-6)")))
        return csm_season_report(tournaments, strike or 0)


def check_premium_games(table) -> str | None:
    """CSM-3: every line names a player of the table, a game and at least 50 PB,
    and carries the signature of its player and of at least two more players
    of the table (the players of the deal; interpretation: the engine does not
    know who dealt, so any three of the table). A player's PB are at least the
    PB of their lines."""
    at_table = set(table.players)
    lines: dict[int, int] = {}
    for i, g in enumerate(table.premium_games, 1):
        what = f"premium game {i}"
        if g.start_no not in at_table:
            return Problem(f"{what}: start number {g.start_no} does not sit at this table",
                           "premium-player", line=i, start_no=g.start_no)
        if not g.game.strip():
            return Problem(f'{what}: "game" is empty', "premium-game", line=i)
        if g.pb < PREMIUM_LINE:
            return Problem(f"{what}: {g.pb} PB is below {PREMIUM_LINE}; only games worth {PREMIUM_LINE} PB or more "
                           f"get a line (CSM-3)", "premium-below", line=i, pb=g.pb, least=PREMIUM_LINE)
        strangers = [s for s in g.signed_by if s not in at_table]
        if strangers:
            return Problem(f"{what}: start number {strangers[0]} signed but does not sit at this table",
                           "premium-signer", line=i, start_no=strangers[0])
        signed = set(g.signed_by)
        need = min(SIGNATURES, len(at_table))
        if g.start_no not in signed or len(signed) < need:
            missing = "the player of the game" if g.start_no not in signed else f"{need - len(signed)} more"
            return Problem(f"{what} ({g.game}, {g.pb} PB of start number {g.start_no}) lacks the signatures of its "
                           f"players: {missing} must sign the line (CSM-3)", "premium-unsigned", line=i,
                           game=g.game, pb=g.pb, start_no=g.start_no, player_missing=g.start_no not in signed,
                           more=max(0, need - len(signed)))
        lines[g.start_no] = lines.get(g.start_no, 0) + g.pb
    scores = dict(zip(table.players, table.scores or ()))
    for s, total in lines.items():
        if s in scores and scores[s] < total:
            return Problem(f"start number {s} has {int(scores[s])} PB but premium-game lines of {total} PB: "
                           f"the PB must be at least the sum of the lines (CSM-3)", "premium-exceeds",
                           start_no=s, pb=int(scores[s]), lines=total)
    return None


CSM_RULES = register(CSM())
