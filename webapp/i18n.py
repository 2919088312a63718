"""Language choice and locale-aware formatting of money, points and times."""
from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from fractions import Fraction

from babel import Locale
from babel.numbers import format_currency, format_decimal
from flask import current_app, has_request_context, request
from flask_babel import get_locale, gettext as _, ngettext

COOKIE = "lang"


def select_locale() -> str:
    """?lang= (remembered in a cookie by `remember_locale`), the cookie, then the browser's languages."""
    languages = current_app.config["LANGUAGES"]
    if not has_request_context():
        return current_app.config["BABEL_DEFAULT_LOCALE"]
    wanted = request.args.get("lang") or request.cookies.get(COOKIE)
    if wanted in languages:
        return wanted
    return request.accept_languages.best_match(languages) or current_app.config["BABEL_DEFAULT_LOCALE"]


def remember_locale(response):
    wanted = request.args.get("lang")
    if wanted in current_app.config["LANGUAGES"] and wanted != request.cookies.get(COOKIE):
        response.set_cookie(COOKIE, wanted, max_age=365 * 24 * 3600, samesite="Lax")
    return response


@lru_cache(maxsize=16)
def _symbols(locale: str) -> tuple[str, str, str]:
    """(decimal sign, group sign, currency template) of a locale, read once from
    Babel: format_decimal/format_currency per cell made a 420-row standings page
    spend most of its time in Babel."""
    sample = format_currency(Decimal("1234.50"), "EUR", locale=locale)
    number = format_decimal(Decimal("1234.50"), format="#,##0.00", locale=locale)
    decimal_sign, group_sign = number[-3], number[1]
    return decimal_sign, group_sign, sample.replace(number, "{}")


def csv_number(value) -> str:
    """A number for a CSV file in the request's language: its decimal sign (14,50 in
    Slovak, Czech and Russian spreadsheets, 14.50 in English), no grouping."""
    return str(value).replace(".", _symbols(str(get_locale()))[0])


def _plain(value: Decimal, locale: str) -> str:
    decimal_sign, group_sign, _ = _symbols(locale)
    text = f"{abs(value):,.2f}".replace(",", "\0").replace(".", decimal_sign).replace("\0", group_sign)
    return text


def money(value) -> str:
    """14,50 € in Slovak and Czech, €14.50 in English."""
    if value is None or value == "":
        return ""
    value, locale = Decimal(value), str(get_locale())
    text = _symbols(locale)[2].format(_plain(value, locale))
    return "-" + text if value < 0 else text


def amount(value) -> str:
    """A money amount without the currency sign, for tables full of numbers."""
    if value is None or value == "":
        return ""
    value, locale = Decimal(value), str(get_locale())
    text = _plain(value, locale)
    return "-" + text if value < 0 else text


def in_unit(value, currency: str | None = "EUR") -> str:
    """A round result in the rule set's unit (RULES.md §2): euros as `money`, Czech crowns
    as 14,50 Kč, ČSM's ZB and Thousand's scores as whole numbers (ZB with its unit)."""
    if value is None or value == "":
        return ""
    if currency == "EUR":
        return money(value)
    value = Decimal(value)
    if currency == "Kč":
        return amount(value) + "\xa0Kč"
    text = whole(value) if value == value.to_integral_value() else amount(value)
    return f"{text}\xa0{currency}" if currency else text


def figure(value, currency: str | None = "EUR") -> str:
    """A round result in a table full of numbers: money as `amount` (no sign), ZB and
    scores as locale-grouped whole numbers, without the unit."""
    if value is None or value == "":
        return ""
    if currency in ("EUR", "Kč"):
        return amount(value)
    value = Decimal(value)
    return whole(value) if value == value.to_integral_value() else amount(value)


def points(value) -> str:
    """Whole points as integers, halves as 2,5 (locale decimal sign)."""
    if value is None or value == "":
        return ""
    value = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(4)
    if value.denominator == 1:
        return str(value.numerator)
    return format_decimal(float(value), format="0.##", locale=str(get_locale()))


def plural_count(value) -> int:
    """The count ngettext takes for `value`: the number when whole; for a half or a third, 2, whose
    form is the one a fraction takes in English and Russian ("2.5 pts", "2,5 очка")."""
    value = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(4)
    return abs(value.numerator) if value.denominator == 1 else 2


def table_points(value) -> str:
    """A player's points with their unit, in the plural the number takes ("1 pt", "3 pts", "2,5 b.")."""
    if value is None or value == "":
        return ""
    return ngettext("%(points)s pt", "%(points)s pts", plural_count(value), points=points(value))


def whole(value) -> str:
    """A whole number with the locale's grouping: "-1 234" in Slovak, "-1,234" in English."""
    text = format_decimal(abs(Decimal(value)), format="#,##0", locale=str(get_locale()))
    return "-" + text if Decimal(value) < 0 else text


def result_text(field: str, value, currency: str | None = "EUR") -> str:
    """One part of a player's result (RuleSet.result_fields, points_field) with its unit."""
    if value is None or value == "":
        return "–"
    if field == "sum":
        return in_unit(value, currency)
    if field == "score":  # TH-3: a game score, in points
        return ngettext("%(score)s point", "%(score)s points", plural_count(value), score=whole(value))
    if field in ("zb", "pb", "sb", "bp"):
        return f"{whole(value)}\xa0{result_label(field)}"
    return table_points(value)


def result_label(field: str) -> str:
    return {"sum": _("Sum"), "zb": _("ZB"), "pb": _("PB"), "sb": _("SB"), "bp": _("BP"), "score": _("Score"),
            "final_score": _("Final (TH-2)"), "points": _("Points")}.get(field, field)


def plural_forms(singular: str, plural: str, **values) -> dict[str, str]:
    """A plural message for the page's script, by CLDR plural category (what Intl.PluralRules answers):
    each category's text is ngettext's for a number of that category; a category no whole number
    has (a fraction's) takes the form of 2, as `plural_count`."""
    locale = Locale.parse(str(get_locale()))
    out: dict[str, str] = {}
    for n in range(0, 200):
        cat = locale.plural_form(n)
        if cat not in out:
            out[cat] = ngettext(singular, plural, n, **values)
    for cat in ("zero", "one", "two", "few", "many", "other"):
        out.setdefault(cat, ngettext(singular, plural, 2, **values))
    return out


def ruleset_title(ruleset) -> str:
    """A rule set's name (a code or the rule set) in the page's language."""
    from flask_babel import gettext

    from .rules.ruleset import get_ruleset

    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    return gettext(rs.title_en) if rs.title_en else rs.title


def compile_catalogs(translations_dir) -> None:
    """Compile each .po into its .mo when the .mo is missing or older, so a fresh
    checkout needs no separate build step (.mo files are build output, not committed)."""
    import os
    import tempfile
    from pathlib import Path

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in Path(translations_dir).glob("*/LC_MESSAGES/*.po"):
        mo = po.with_suffix(".mo")
        try:
            if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
                continue
            with po.open("rb") as f:
                catalog = read_po(f, locale=po.parent.parent.name)
            # written aside and renamed: a process starting meanwhile (another worker) never reads half a file
            fd, tmp = tempfile.mkstemp(dir=mo.parent, prefix=".messages-", suffix=".mo")
            try:
                os.fchmod(fd, 0o644)  # as a plain open() would leave it, not mkstemp's 0600
                with os.fdopen(fd, "wb") as f:
                    write_mo(f, catalog)
                os.replace(tmp, mo)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            continue  # a read-only install: use whatever .mo is there


def round_rule_text(ruleset) -> str:
    """How long a round of the rule set lasts and what ends it (RuleSet.round_rule), in the page's language."""
    from flask_babel import gettext

    from .rules.ruleset import get_ruleset

    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    return gettext(rs.round_rule)
