"""The error a tournament file that cannot be used raises (EXCHANGE.md): below every
module that reads or checks a file, so the reader and the consistency check share it."""
from __future__ import annotations


class ExchangeError(ValueError):
    """A tournament file that cannot be used; str() is one line."""

    def __init__(self, detail: str, source: str = "<string>", round: int | None = None,
                 table: int | None = None, where: str | None = None):
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
            loc.append(where)
        parts = [str(source)] + ([", ".join(loc)] if loc else []) + [self.detail]
        super().__init__(" ".join(": ".join(parts).splitlines()))
