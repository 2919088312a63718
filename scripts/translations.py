"""Refresh the translations' catalogs from the code: `.venv/bin/python scripts/translations.py`.

Extracts the messages (babel.cfg) and, in each webapp/translations/*/messages.po,
brings the `#:` source references up to date and adds every new message with an
empty translation for the translator. It never drops an entry: a message the code
no longer uses is listed, to be removed by hand once nothing needs it (some texts,
such as the rule sets' names, are translated from data rather than from a literal).
The compiled catalogs change only through added or removed translations.
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po
from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "_l": None,
            "N_": None, "Nn_": (1, 2)}


def extracted() -> Catalog:
    method_map, options_map = parse_mapping_cfg(io.StringIO((ROOT / "babel.cfg").read_text()))
    pot = Catalog()
    for name, lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS, strip_comment_tags=True):
        pot.add(message, None, [(name, lineno)], auto_comments=comments, context=context)
    return pot


def main() -> int:
    pot = extracted()
    for po in sorted((ROOT / "webapp" / "translations").glob("*/LC_MESSAGES/messages.po")):
        locale = po.parts[-3]
        with po.open("rb") as f:
            cat = read_po(f, locale=locale)
        for m in cat:
            if m.id and m.id in pot:
                m.locations = pot[m.id].locations
        added = [m for m in pot if m.id and m.id not in cat]
        for m in added:
            cat.add(m.id, ("",) * cat.num_plurals if m.pluralizable else "", m.locations, flags=m.flags)
        unused = [m.id for m in cat if m.id and m.id not in pot]
        with po.open("wb") as f:
            write_po(f, cat, width=0)
        print(f"{locale}: {len(added)} new to translate, {len(unused)} no longer found in the code")
        for mid in unused:
            print("   ", (mid[0] if isinstance(mid, tuple) else mid)[:100])
    return 0


if __name__ == "__main__":
    sys.exit(main())
