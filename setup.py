"""Build step: the translations (.po) are compiled into .mo files inside the
built package, so an installed Listok (a wheel, a read-only folder) shows
Slovak and Czech without writing anything at start-up. Everything else is in
pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    def run(self):
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path(self.build_lib, "webapp", "translations").glob("*/LC_MESSAGES/*.po"):
            with po.open("rb") as f:
                catalog = read_po(f, locale=po.parent.parent.name)
            with po.with_suffix(".mo").open("wb") as f:
                write_mo(f, catalog)


setup(cmdclass={"build_py": BuildWithCatalogs})
