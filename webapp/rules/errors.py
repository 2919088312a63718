"""The error a tournament file that cannot be used raises (EXCHANGE.md), and `Text`, the
English line an engine error keeps as a template and its values: below every module that
reads or checks a file, so the reader and the consistency check share them.

The engine imports no gettext: `N_`/`Nn_` only mark templates for extraction (babel.cfg),
and services/rule_texts.engine_text says a `Text` in the reader's language."""
from __future__ import annotations


def N_(template: str) -> str:
    return template


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """A template with a plural: the value `num` chooses the form."""
    return singular, plural


class Text:
    """One English line as its template and values; str() is the line. A value may be a Text."""

    __slots__ = ("template", "values")

    def __init__(self, template: str | tuple[str, str], /, **values):
        self.template, self.values = template, values

    def __str__(self) -> str:
        t = self.template
        if isinstance(t, tuple):
            t = t[0] if self.values.get("num") == 1 else t[1]
        return t % self.values if self.values else t

    def __repr__(self) -> str:
        return f"Text({str(self)!r})"


class ExchangeError(ValueError):
    """A tournament file that cannot be used; str() is one line. `text` (a Text, or None
    for a plain line) and `where` keep what a page or the CLI needs to say it in words."""

    def __init__(self, detail, source: str = "<string>", round: int | None = None,
                 table: int | None = None, where=None):
        self.text = None if type(detail) is str else detail  # a Text, or a ruleset.Problem
        self.detail = " ".join(str(detail).splitlines())
        self.source = source
        self.round = round
        self.table = table
        self.where = where
        loc = []
        if round is not None:
            loc.append(f"round {round}")
        if table is not None:
            loc.append(f"table {table}")
        if where:
            loc.append(str(where))
        parts = [str(source)] + ([", ".join(loc)] if loc else []) + [self.detail]
        super().__init__(" ".join(": ".join(parts).splitlines()))
