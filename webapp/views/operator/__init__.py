"""The operator's desk: one blueprint, its routes split by stage of the tournament."""
from flask import Blueprint

bp = Blueprint("operator", __name__, url_prefix="/operator")

from . import tournaments  # noqa: E402,F401
from . import rounds  # noqa: E402,F401
from . import setup  # noqa: E402,F401
from . import results  # noqa: E402,F401
