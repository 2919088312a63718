"""The operator's desk: one blueprint, its routes split by stage of the tournament."""
from flask import Blueprint, abort, request
from flask_login import current_user

from ...extensions import login_manager
from ...services import access

bp = Blueprint("operator", __name__, url_prefix="/operator")


@bp.before_request
def _assigned_tournaments_only():
    """Every /operator/t/<tid>/… route: a tournament the user is not assigned to
    does not exist for them (404), whatever the route and method."""
    tid = (request.view_args or {}).get("tid")
    if tid is None:
        return None
    if not current_user.is_authenticated:
        return login_manager.unauthorized()
    if not access.can_access(current_user, tid):
        abort(404)
    return None


from . import tournaments  # noqa: E402,F401
from . import rounds  # noqa: E402,F401
from . import setup  # noqa: E402,F401
from . import results  # noqa: E402,F401
from . import verify  # noqa: E402,F401
from . import federation  # noqa: E402,F401
