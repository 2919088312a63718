"""SMU: Slovácká mariášová unie (RULES.md §2, SMU-1..SMU-4; seed 004)."""
from __future__ import annotations

from decimal import Decimal

from .errors import N_
from .ruleset import Officials, RuleSet, register, split_field


class SMU(RuleSet):
    """SMU-1: tables of 3, one or two tables of 4 (pauzírovaný) when the field
    is not divisible by 3, last in table order. SMU-2: a 1 Kč game, sums are
    net Kč, a table totals 0, negative sums are normal. SMU-3: 5-3-1 and
    5-3-2-1, equal sums share the points of the places they span (halves,
    thirds). SMU-4: standings as SEM-B12, a fixed number of rounds (default 5),
    round 1 by rating (SEM-B2), later rounds by standings (SEM-B7), club rule
    in every round; three referees named from the players (SMU-G2), none deciding
    a case at their own table."""

    code = "smu"
    title = "Slovácká mariášová unie"
    title_en = "Slovácko Mariáš Union"  # the pages translate it (i18n.ruleset_title)
    table_sizes = (3, 4)
    stake = Decimal("0.00")  # SMU-2: net Kč, every table totals 0
    place_points = {3: (5, 3, 1), 4: (5, 3, 2, 1)}
    rounds = 5
    qualification_rounds = 5
    cuts = {}
    club_rule_rounds = frozenset({1, 2, 3, 4, 5})
    currency = "Kč"
    total_rule = "SMU-2"
    split_rule = N_("SMU-1: tables of 4 only when the field is not divisible by 3, at most two")
    max_tables_of_4 = 2  # SMU-1
    keeper_kind = "seat"
    keeper_rule = "SMU-1"
    round_rule = "The SMU rules name no round length: the referees call time (SMU-4)."  # seed 004
    paper_language = "cs"
    # SMU-4 has no publication rule: the standings are public after every closed round
    public_from_round = 1
    objection_minutes = None
    publication_rule = None
    cites = {"seat-rating": "SMU-4", "seat-standings": "SMU-4", "club-rule-rating": "SMU-4",
             "club-rule-standings": "SMU-4", "order": "SMU-4", "records": "SMU-4"}
    discipline_options = ("disqualify", "withdraw", "substitute")
    officials = Officials(count=3, kind="referees", rule="SMU-4", from_players=True)  # seed G2

    def sheet_keeper(self, values=None) -> int:
        """SMU-1: player A keeps the sheet unless the table agrees otherwise."""
        return 0

    def table_split(self, count: int) -> tuple[int, ...]:
        return split_field(count, (3, 4), {4: self.max_tables_of_4}, self.code)


SMU_RULES = register(SMU())
