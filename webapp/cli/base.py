"""What every `listok` command module shares, below them all: the environment's language
(LANGUAGE, LC_ALL, LC_MESSAGES, LANG; the pages' own catalogs) and the one-line refusal
`BadInput`. Only click at import time, like webapp.cli."""
from __future__ import annotations

import functools
import os

import click


LANGUAGES = ("sk", "cs", "en", "ru")


def cli_locale() -> str:
    """The language of the environment: GNU's LANGUAGE list first, then the POSIX order
    LC_ALL, LC_MESSAGES, LANG; English when it names none of Listok's languages (C, de_DE …)."""
    def code(value: str) -> str:
        return value.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()

    posix = next((os.environ[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if os.environ.get(k)), "")
    if os.environ.get("LANGUAGE") and code(posix) not in ("c", "posix"):
        for part in os.environ["LANGUAGE"].split(":"):
            if code(part) in LANGUAGES:
                return code(part)
    return code(posix) if code(posix) in LANGUAGES else "en"


@functools.lru_cache(maxsize=8)
def cli_catalog(locale: str):
    from babel.support import NullTranslations, Translations

    if locale == "en":
        return NullTranslations()
    from pathlib import Path

    from ..i18n import compile_catalogs

    folder = Path(__file__).parent.parent / "translations"
    compile_catalogs(folder)  # a fresh checkout: the .mo files are build output
    return Translations.load(str(folder), [locale], domain="messages")


def _(msgid: str, /, **values) -> str:
    """`msgid` in the environment's language (the .po catalogs of the pages), %-formatted
    (named as Babel's extractor and the catalogs' coverage test look for it)."""
    text = cli_catalog(cli_locale()).gettext(msgid)
    return text % values if values else text


def ngettext(singular: str, plural: str, n: int, /, **values) -> str:
    text = cli_catalog(cli_locale()).ngettext(singular, plural, n)
    return text % {"num": n, **values}


class BadInput(click.ClickException):
    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"listok: {self.message}", file=file, err=file is None)


class InternalError(BadInput):
    exit_code = 1


def one_line(text: str) -> str:
    return " ".join(str(text).split())
