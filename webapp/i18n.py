"""Language choice and locale-aware formatting of money, points and times."""
from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from fractions import Fraction

from babel.numbers import format_currency, format_decimal
from flask import current_app, has_request_context, request
from flask_babel import get_locale

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
    text = str(int(value)) if value == value.to_integral_value() else amount(value)
    return f"{text}\xa0{currency}" if currency else text


def points(value) -> str:
    """Whole points as integers, halves as 2,5 (locale decimal sign)."""
    if value is None or value == "":
        return ""
    value = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(4)
    if value.denominator == 1:
        return str(value.numerator)
    return format_decimal(float(value), format="0.##", locale=str(get_locale()))


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
