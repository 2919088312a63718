"""SEM: Slovak Extraliga in volený mariáš (RULES.md §1), and BB liga (§2) which
shares its table rules with another stake and round structure."""
from __future__ import annotations

from decimal import Decimal

from .ruleset import RuleSet, register


class SEM(RuleSet):
    code = "sem"
    title = "Slovenská extraliga v mariáši"
    stake = Decimal("10.00")  # SEM-C1: 30 EUR on every table
    rounds = 6
    qualification_rounds = 3
    cuts = {4: 7, 5: 12, 6: 17}  # SEM-B9, B10, B11
    club_rule_rounds = frozenset({1, 2, 3, 4, 5})  # SEM-B2, B6, B7; not in round 6 (B11)
    max_payment_per_game = Decimal("10.00")  # SEM-C11

    def round_kind(self, round_no: int) -> str:
        if round_no == 2:
            return "shift"  # SEM-B6
        return super().round_kind(round_no)

    def cards_position(self, round_no: int) -> int | None:
        """SEM-C3: rounds 1-2 player 3's cards, 3-4 player 2's, 5-6 player 1's."""
        return {1: 3, 2: 3, 3: 2, 4: 2, 5: 1, 6: 1}.get(round_no)


class BBLiga(RuleSet):
    """BB liga: 4 EUR each (table total 12 EUR), table points and ranking as SEM,
    a fixed number of rounds (default 5) seated by standings after round 1."""

    code = "bbliga"
    title = "BB liga"
    stake = Decimal("4.00")
    rounds = 5
    qualification_rounds = 5
    cuts = {}
    club_rule_rounds = frozenset({1, 2, 3, 4, 5})


SEM_RULES = register(SEM())
BBLIGA_RULES = register(BBLiga())
