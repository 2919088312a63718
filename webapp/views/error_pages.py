"""The refusals a visitor can meet on any page (400 incl. an expired form, 403,
404, 405) as pages in the UI language that say what happened and what to do
next, instead of the framework's English text. Under /api/v1 the sync
blueprint's JSON answers stay."""
from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError, NotFound

from ..http.errors import back_path
from ..services.common import NotFoundError


def _texts(e: HTTPException) -> tuple[str, str]:
    if isinstance(e, CSRFError):
        return _("The form has expired"), _("The page was open too long or in another sign-in: nothing was saved. "
                                            "Open the page again and send the form once more.")
    if e.code == 403:
        return _("Not allowed"), _("Your account cannot open this page. Sign in with an account that works at "
                                   "this tournament, or ask the admin.")
    if e.code == 404:
        return _("Page not found"), _("Nothing is at this address: an old link, or a round or table that does not "
                                      "exist (yet). Go back, or start from the home page.")
    if e.code == 405:
        return _("Not available this way"), _("This address does not work like this: nothing was saved. Go back "
                                              "and use the buttons of the page.")
    return _("Bad request"), _("The server could not use what was sent: nothing was saved. Go back and try again.")


def page(e: HTTPException):
    if request.path.startswith("/api/"):
        from ..sync.routes import http_error

        return http_error(e)
    title, message = _texts(e)
    return render_template("error.html", title=title, message=message, back=back_path()), e.code


def server_error(e: InternalServerError):
    """An unexpected failure, in the visitor's language; the page needs neither the
    database nor the signed-in user (the failure may be theirs)."""
    title = _("Something went wrong")
    message = _("The server failed to answer this page: what you sent may not have been saved. Go back, check, "
                "and try once more; if it happens again, tell the operator.")
    if request.path.startswith("/api/"):
        return jsonify({"status": "error", "error": "internal", "message": message}), 500
    return render_template("error_plain.html", title=title, message=message, back=back_path()), 500


def init_app(app: Flask) -> None:
    """Called after the blueprints: these replace the sync blueprint's app-wide 404/405 handler (kept for /api/)."""
    for code in (400, 403, 404, 405):
        app.register_error_handler(code, page)
    app.register_error_handler(NotFoundError, lambda e: page(NotFound()))  # a service's "no such thing"
    app.register_error_handler(InternalServerError, server_error)
