"""Language choice and locale-aware formatting of money, points and times."""
from __future__ import annotations

from decimal import Decimal
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


def money(value) -> str:
    """14,50 € in Slovak and Czech, €14.50 in English."""
    if value is None or value == "":
        return ""
    return format_currency(Decimal(value), "EUR", locale=str(get_locale()))


def amount(value) -> str:
    """A money amount without the currency sign, for tables full of numbers."""
    if value is None or value == "":
        return ""
    return format_decimal(Decimal(value), format="#,##0.00", locale=str(get_locale()))


def points(value) -> str:
    """Whole points as integers, halves as 2,5 (locale decimal sign)."""
    if value is None or value == "":
        return ""
    value = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(4)
    if value.denominator == 1:
        return str(value.numerator)
    return format_decimal(float(value), format="0.##", locale=str(get_locale()))


def compile_catalogs(translations_dir) -> None:
    """Compile each .po into its .mo when the .mo is missing or older, so a fresh
    checkout needs no separate build step (.mo files are build output, not committed)."""
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
            with mo.open("wb") as f:
                write_mo(f, catalog)
        except OSError:
            continue  # a read-only install: use whatever .mo is there
