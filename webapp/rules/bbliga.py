"""BB liga (RULES.md §2, BB-1, BB-2): volený mariáš with SEM's table points and
standings, another stake and a fixed number of rounds seated by standings."""
from __future__ import annotations

from decimal import Decimal

from .errors import N_, Text
from .ruleset import Officials, RuleSet, register


class BBLiga(RuleSet):
    """BB-1: 4 EUR each (table total 12 EUR); a player more than a minute late pays
    4 cents to each other player (the sheet records who, the total stays 12 EUR).
    BB-2: table points and ranking as SEM-C6 / SEM-B12, a fixed number of rounds
    (default 5), round 1 by rating (SEM-B2), later rounds by standings (SEM-B7)
    with the club rule, no cuts; a jury of 3, each of another club, decides disputes."""

    code = "bbliga"
    title = "BB liga"
    title_en = "BB liga"  # the pages translate it (i18n.ruleset_title)
    stake = Decimal("4.00")
    rounds = 5
    qualification_rounds = 5
    cuts = {}
    club_rule_rounds = frozenset({1, 2, 3, 4, 5})
    total_rule = "BB-1"
    split_rule = N_("BB-2: tables of 3")
    published_corrections = True  # interpretation: BB liga follows SEM-C10
    # interpretation (BB-2): the draw, publication and discipline as SEM's (SEM-B2, B7, C9, D, E)
    cites = {**RuleSet.cites, "seat-rating": "BB-2, SEM-B2", "seat-standings": "BB-2, SEM-B7"}
    late_fee = Decimal("0.04")  # BB-1 (seed D2)
    late_rule = "BB-1"
    # seed 002 speaks of a round's playing time, which the jury may extend (A10, D3), but names no length
    round_rule = "The BB liga rules name no round length: the jury calls time (BB-2)."
    officials = Officials(count=3, kind="jury", rule="BB-2", distinct_clubs=True)  # seed E1

    def read_table(self, reader, raw: dict, players, loc: dict) -> dict:
        late = reader.lst(raw.get("late", []), '"late"', **loc)
        return {"late": tuple(reader.integer(x, Text(N_('a start number of "late"')), **loc) for x in late)}

    def write_table(self, table, d: dict) -> dict:
        if table.late:
            d["late"] = list(table.late)
        return d

    def check_table(self, table) -> str | None:
        return self.check_late(table.players, table.late)


BBLIGA_RULES = register(BBLiga())
