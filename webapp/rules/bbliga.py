"""BB liga (RULES.md §2, BB-1, BB-2): volený mariáš with SEM's table points and
standings, another stake and a fixed number of rounds seated by standings."""
from __future__ import annotations

from decimal import Decimal

from .ruleset import RuleSet, register


class BBLiga(RuleSet):
    """BB-1: 4 EUR each (table total 12 EUR); BB-2: table points and ranking as
    SEM-C6 / SEM-B12, a fixed number of rounds (default 5), round 1 by rating
    (SEM-B2), later rounds by standings (SEM-B7) with the club rule, no cuts."""

    code = "bbliga"
    title = "BB liga"
    title_en = "BB liga"  # the pages translate it (i18n.ruleset_title)
    stake = Decimal("4.00")
    rounds = 5
    qualification_rounds = 5
    cuts = {}
    club_rule_rounds = frozenset({1, 2, 3, 4, 5})
    total_rule = "BB-1"
    published_corrections = True  # interpretation: BB liga follows SEM-C10


BBLIGA_RULES = register(BBLiga())
