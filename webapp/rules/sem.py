"""SEM: Slovak Extraliga in volený mariáš (RULES.md §1)."""
from __future__ import annotations

from decimal import Decimal

from .ruleset import RuleSet, register


class SEM(RuleSet):
    code = "sem"
    title = "Slovenská extraliga v mariáši"
    title_en = "Slovak Mariáš Extraliga"  # the pages translate it (i18n.ruleset_title)
    stake = Decimal("10.00")  # SEM-C1: 30 EUR on every table
    rounds = 6
    qualification_rounds = 3
    cuts = {4: 7, 5: 12, 6: 17}  # SEM-B9, B10, B11
    club_rule_rounds = frozenset({1, 2, 3, 4, 5})  # SEM-B2, B6, B7; not in round 6 (B11)
    max_payment_per_game = Decimal("10.00")  # SEM-C11
    negative_sum_note = True  # SEM-C8
    winner_bears_total = True  # SEM-C5
    dq_compensation = Decimal("1.00")  # SEM-D1c
    time_called_rule = "SEM-C2"
    round_length = 50  # SEM-B4
    round_rule = ("SEM-B4: a round lasts 50 minutes from the start signal; after time is called the table plays "
                  "on until player 3 has dealt (SEM-C2).")
    club_championship = True  # SEM-B3
    season_register = True  # SEM-A2, SEM-E4
    published_corrections = True  # SEM-C10

    def round_kind(self, round_no: int) -> str:
        if round_no == 2:
            return "shift"  # SEM-B6
        return super().round_kind(round_no)

    def cards_position(self, round_no: int) -> int | None:
        """SEM-C3: rounds 1-2 player 3's cards, 3-4 player 2's, 5-6 player 1's."""
        return {1: 3, 2: 3, 3: 2, 4: 2, 5: 1, 6: 1}.get(round_no)

    def tournament_points(self, ranking) -> dict:
        from .season import tournament_points  # SEM-A3

        return tournament_points(ranking)

    def season_report(self, tournaments, best: int | None = None, strike: int | None = None) -> dict:
        from .report import sem_season_report

        if strike is not None:
            raise ValueError("--strike applies to the rule set 'csm', not 'sem'")
        return sem_season_report(tournaments, 11 if best is None else best)


SEM_RULES = register(SEM())
