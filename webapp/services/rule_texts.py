"""The rules engine's refusals in the user's language.

The engine (webapp/rules/) stays pure and speaks English; its refusals carry a
`code` and `details` (DrawError, NoSplit, ruleset.Problem), or a `Text`: an English
template marked with N_/Nn_ and its values (ExchangeError and the other engine errors).
Here each code gets its translated message and each Text its catalog's; a code without
one falls back to the engine's line. `engine_text` also serves the `listok` command,
which gives its own catalog and locale instead of the page's.
"""
from __future__ import annotations

from flask_babel import gettext as _


def _problem_messages(_=_, locale: str | None = None):
    from babel.numbers import format_decimal

    from ..i18n import whole

    def grouped(n) -> str:  # TH-3's 1000 as the page writes numbers: 1 000 in sk, cs and ru
        return whole(n) if locale is None else format_decimal(n, format="#,##0", locale=locale)

    return {
        # ČSM (CSM-2, CSM-3)
        "zb-whole": lambda d: _("The ZB of start number %(s)d (%(v)s) must be a whole number (CSM-2).",
                                s=d["start_no"], v=d["value"]),
        "pb-whole": lambda d: _("The PB of start number %(s)d (%(v)s) must be a whole number, 0 or more (CSM-2).",
                                s=d["start_no"], v=d["value"]),
        "premium-player": lambda d: _("Premium game %(k)d: start number %(s)d does not sit at this table.",
                                      k=d["line"], s=d["start_no"]),
        "premium-game": lambda d: _("Premium game %(k)d: name the game.", k=d["line"]),
        "premium-below": lambda d: _("Premium game %(k)d: %(pb)d PB is below %(least)d; only games worth %(least)d PB "
                                     "or more get a line (CSM-3).", k=d["line"], pb=d["pb"], least=d["least"]),
        "premium-signer": lambda d: _("Premium game %(k)d: start number %(s)d signed but does not sit at this "
                                      "table.", k=d["line"], s=d["start_no"]),
        "premium-unsigned": lambda d: (
            _("Premium game %(k)d (%(game)s, %(pb)d PB of start number %(s)d) needs the signature of the player of "
              "the game (CSM-3).", k=d["line"], game=d["game"], pb=d["pb"], s=d["start_no"])
            if d["player_missing"] else
            _("Premium game %(k)d (%(game)s, %(pb)d PB of start number %(s)d) lacks signatures of the players of "
              "the game: %(more)d missing (CSM-3).", k=d["line"], game=d["game"], pb=d["pb"], s=d["start_no"],
              more=d["more"])),
        "premium-exceeds": lambda d: _("Start number %(s)d has %(pb)d PB but premium-game lines of %(lines)d PB: the "
                                       "PB must be at least the sum of the lines (CSM-3).",
                                       s=d["start_no"], pb=d["pb"], lines=d["lines"]),
        "keeper-player": lambda d: _("The scorekeeper chosen by lot, start number %(s)d, does not sit at this "
                                     "table (CSM-3).", s=d["start_no"]),
        "keeper-none": lambda d: _("These rules have no scorekeeper chosen by lot."),
        # BB liga (BB-1, BB-2), SMU (SMU-4)
        "late-player": lambda d: _("Late player: start number %(s)d does not sit at this table (BB-1).",
                                   s=d["start_no"]),
        "late-twice": lambda d: _("Late player: start number %(s)d is named twice (BB-1).", s=d["start_no"]),
        "late-none": lambda d: _("These rules have no late fee."),
        "officials-count": lambda d: _("%(n)d officials are named already (%(rule)s): remove one before naming "
                                       "another.", n=d["count"], rule=d["rule"]),
        "officials-player": lambda d: _("The referees are named from the players (%(rule)s): give the start number "
                                        "of the referee.", rule=d["rule"]),
        "officials-club": lambda d: _("Each member of the jury must be of a club (%(rule)s): give the club.",
                                      rule=d["rule"]),
        "officials-same-club": lambda d: _("Two members of the jury are of the club %(club)s: each must be of "
                                           "another club (%(rule)s).", club=d["club"], rule=d["rule"]),
        "officials-twice": lambda d: _("Start number %(s)d is named twice (%(rule)s).", s=d["start_no"],
                                       rule=d["rule"]),
        # Thousand (TH-3, TH-5)
        "score-step": lambda d: _("The score %(v)d of start number %(s)d is not a multiple of 5 (TH-3).",
                                  v=d["score"], s=d["start_no"]),
        "frozen-size": lambda d: _("A frozen table (TH-5) holds the two players left after a withdrawal."),
        "frozen-winner": lambda d: _("A frozen table (TH-5) has no winner: it stopped at the withdrawal."),
        "won-twice": lambda d: _("Start numbers %(who)s both reached %(win)s: a table is won once (TH-3).",
                                 who=", ".join(map(str, d["start_nos"])), win=grouped(d["win"])),
        "win-without-winner": lambda d: _("The game ended with a win, but nobody reached %(win)s (TH-3).",
                                          win=grouped(d["win"])),
        "time-with-winner": lambda d: _("Start number %(s)d reached %(win)s: the game ended with a win, not by time "
                                        "(TH-3).", s=d["start_no"], win=grouped(d["win"])),
        "score-barrel": lambda d: _("The score %(v)d of start number %(s)d cannot stand at the end of a game: above "
                                    "%(barrel)d only %(win)s (the win) counts (TH-3).",
                                    v=d["score"], s=d["start_no"], barrel=d["barrel"], win=grouped(d["win"])),
    }


def problem_text(problem, _=_, locale: str | None = None) -> str:
    """A rule set's `check_table` answer (ruleset.Problem) as one translated sentence."""
    message = _problem_messages(_, locale).get(getattr(problem, "code", None))
    return message(problem.details) if message else str(problem)


def engine_text(e, translations=None, locale: str | None = None) -> str:
    """An engine error (or a Text) as one line in the reader's language: the page's, unless the
    `listok` command gives its catalog and locale. Money and points take the locale's decimal sign;
    a value named `rule` is a rule's description, translated when the catalog has it."""
    from decimal import Decimal
    from fractions import Fraction

    from babel.numbers import format_decimal

    from ..rules.errors import ExchangeError, Text

    if translations is None:
        from flask_babel import get_locale, get_translations

        translations, locale = get_translations(), str(get_locale())

    def gettext(msgid: str, **values) -> str:
        text = translations.gettext(msgid)
        return text % values if values else text

    def value(key, v):
        if isinstance(v, (Text, Exception)):
            return say(v)
        if isinstance(v, Decimal):
            text = format_decimal(abs(v), format="#,##0.00", locale=locale)
            return "-" + text if v < 0 else text
        if isinstance(v, Fraction):
            return format_decimal(abs(v.numerator / v.denominator), format="0.##", locale=locale)
        if key == "sizes" and isinstance(v, str):
            return v.replace(" or ", translations.gettext(" or "))
        if key == "rule" and isinstance(v, str):
            return translations.gettext(v)
        return v

    def say(v) -> str:
        if isinstance(v, Text):
            values = {k: value(k, x) for k, x in v.values.items()}
            t = v.template
            text = translations.ngettext(t[0], t[1], v.values["num"]) if isinstance(t, tuple) else \
                translations.gettext(t)
            return text % values if values else text
        if isinstance(v, ExchangeError):
            loc = []
            if v.round is not None:
                loc.append(gettext("round %(r)d", r=v.round))
            if v.table is not None:
                loc.append(gettext("table %(t)d", t=v.table))
            if v.where:
                loc.append(say(v.where) if isinstance(v.where, Text) else str(v.where))
            detail = say(v.text) if v.text is not None else v.detail
            return ": ".join([str(v.source)] + ([", ".join(loc)] if loc else []) + [detail])
        if getattr(v, "code", None) == "no-split":
            d = v.details
            hint = []
            if d.get("add"):
                n = translations.ngettext("add %(num)d player", "add %(num)d players", d["add"])
                hint.append(n % {"num": d["add"]})
            if d.get("withdraw"):
                hint.append(gettext("withdraw %(num)d", num=d["withdraw"]))
            return gettext("%(count)d players cannot be seated at tables of %(sizes)s under these rules: %(hint)s",
                           count=d["count"], sizes=" / ".join(map(str, d.get("sizes", ()))),
                           hint=gettext(" or ").join(hint) if hint else gettext("no number of tables fits"))
        if getattr(v, "code", None) is not None and hasattr(v, "details") and isinstance(v, str):
            return problem_text(v, gettext, locale)
        if isinstance(v, Exception) and v.args and isinstance(v.args[0], Text):
            return say(v.args[0])
        return str(v)

    return " ".join(say(e).split())


def table_problem_text(table_no: int, problem) -> str:
    return _("Table %(t)d: %(problem)s", t=table_no, problem=problem_text(problem))


def draw_text(e) -> str | None:
    """The draw refusals rounds.draw_error_text does not know, translated; None for the engine's line."""
    d = e.details
    if e.code == "final-size":
        return _("Round %(r)d: the final needs %(size)d players, %(count)d can play (TH-2).",
                 r=d["round"], size=d["size"], count=d["count"])
    if e.code == "seed":
        return _("The lot needs a whole number as the tournament's seed, not %(seed)s.", seed=d["seed"])
    return None


def table_fact_lines(rs, players, sheet, names) -> list[str]:
    """What a table recorded besides its results, one translated line each, for every page that
    shows a sheet (desk, printed sheet, receipt, referee): BB-1's late fee (every player's net fee;
    the sums already include it) and CSM-3's scorekeeper (chosen by lot, else the rule set's).
    `names`: start number -> name (or a player, whose `name`)."""
    from ..i18n import in_unit

    def name_of(s):
        v = names.get(s)
        return "?" if v is None else (v if isinstance(v, str) else v.name)

    lines = []
    late = list(getattr(sheet, "late", None) or ()) if sheet is not None else []
    if late and rs.late_fee is not None:
        fees = rs.late_fees(players, late)
        parts = "; ".join(f"#{s} {name_of(s)} {'+' if fee > 0 else ''}{in_unit(fee, rs.currency)}"
                          for s, fee in zip(players, fees))
        lines.append(_("Late fee (BB-1): %(who)s", who=parts))
    if rs.keeper_by_lot:
        lot = getattr(sheet, "keeper_by_lot", None) if sheet is not None else None
        if lot is not None:
            lines.append(_("Scorekeeper: %(start_no)s %(name)s, chosen by lot (CSM-3)", start_no=f"#{lot}",
                           name=name_of(lot)))
        elif sheet is not None:
            k = rs.sheet_keeper(None)
            if k is not None and k < len(players):
                lines.append(_("Scorekeeper: %(start_no)s %(name)s, player %(position)s",
                               start_no=f"#{players[k]}", name=name_of(players[k]), position=k + 1))
    return lines
