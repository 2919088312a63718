"""The layout's rules that the import contract (pyproject.toml, [tool.importlinter]) cannot
see: import-linter knows that a module imports `flask`, not which of its names."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

WEBAPP = Path(__file__).resolve().parent.parent / "webapp"
SERVICES = WEBAPP / "services"
ALLOWED_FROM_FLASK = {"current_app"}  # the app's configuration; no request, session, g or abort


def flask_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "flask":
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.Import) and any(a.name == "flask" for a in node.names):
            names.add("flask")
    return names


def test_the_top_level_is_the_app_itself():
    """Everything else has its package in the import contract's layers (README, "Layout")."""
    assert sorted(p.stem for p in WEBAPP.glob("*.py")) == ["__init__", "config", "extensions", "factory", "i18n",
                                                           "models"]


@pytest.mark.parametrize("path", sorted(SERVICES.glob("*.py")), ids=lambda p: p.name)
def test_services_take_nothing_of_a_request_from_flask(path):
    assert flask_names(path) <= ALLOWED_FROM_FLASK


def test_the_check_sees_a_request_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from flask import abort, current_app\n", encoding="utf-8")
    assert flask_names(probe) == {"abort", "current_app"}
