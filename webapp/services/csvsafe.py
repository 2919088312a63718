"""CSV that a spreadsheet opens without running anything: a text cell that
starts like a formula (=, +, -, @, tab, CR) gets a leading apostrophe, which
the spreadsheet shows as text. A plain number such as -5,00 is no formula
and stays a number."""
from __future__ import annotations

import csv
import re

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?")


def cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_START) and not NUMBER.fullmatch(value):
        return "'" + value
    return value


class Writer:
    """csv.writer whose rows are neutralised cell by cell."""

    def __init__(self, out, **kwargs):
        self._w = csv.writer(out, **kwargs)

    def writerow(self, row):
        return self._w.writerow([cell(v) for v in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(out, **kwargs) -> Writer:
    return Writer(out, **kwargs)
