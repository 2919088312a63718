"""Pages anyone at the venue may open without logging in."""
from flask import Blueprint

bp = Blueprint("public", __name__)

from . import home  # noqa: E402,F401
from . import projector  # noqa: E402,F401
from . import nominations  # noqa: E402,F401
from . import standings  # noqa: E402,F401
from . import report  # noqa: E402,F401
from . import receipt  # noqa: E402,F401
from . import manifest  # noqa: E402,F401
from . import me  # noqa: E402,F401
from . import scan  # noqa: E402,F401
