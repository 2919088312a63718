"""The rules engine (pure Python). Importing the package registers every rule
set: each lives in its own module behind the interface of `ruleset.py`."""
from . import bbliga, csm, sem, smu, thousand  # noqa: F401
