"""The players' paper (PIN slips, printed sheets) speaks the tournament's paper language:
the tournament's own setting, else its rule set's (RuleSet.paper_language), whoever prints it."""
from __future__ import annotations

from flask import current_app
from flask_babel import force_locale, gettext as _, lazy_gettext as _l

from ..rules.ruleset import get_ruleset

LANGUAGE_NAMES = {"sk": "Slovenčina", "cs": "Čeština", "ru": "Русский", "en": "English"}  # each in itself


def paper_language(t) -> str:
    lang = t.paper_language or get_ruleset(t.ruleset).paper_language
    return lang if lang in current_app.config["LANGUAGES"] else current_app.config["BABEL_DEFAULT_LOCALE"]


def language_choices(default_label=None) -> list[tuple[str, str]]:
    """Choices of a paper-language field: "" keeps the rule set's language."""
    default = default_label or _l("As the rule set: Slovak for SEM and BB liga, Czech for SMU and ČSM, "
                                  "Russian for Thousand")
    return [("", default)] + [(code, LANGUAGE_NAMES[code]) for code in current_app.config["LANGUAGES"]]


def slip_texts(t) -> dict:
    """The PIN slip's words in the tournament's paper language (not the operator's): both
    ways to sign, on the sheet keeper's phone or on one's own."""
    lang = paper_language(t)
    with force_locale(lang):
        return {"lang": lang, "pin": _("Your PIN"),
                "keeper": _("On the sheet keeper's phone: check the results, sign with your finger and "
                            "type this PIN."),
                "own": _("Or on your own phone: scan the QR code on your table's sheet, check the results, "
                         "sign and type this PIN."),
                "me": _("Scan it: your table, the round clock, your results."),
                "keep": _("Keep the PIN to yourself: nobody will ask you for it. After 5 wrong PINs "
                          "signing is locked for 15 minutes.")}
