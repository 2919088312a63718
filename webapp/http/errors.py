"""Refusals that happen before a view can answer: a request body over
MAX_CONTENT_LENGTH. Under /api/v1 the sync blueprint answers JSON itself."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import RequestEntityTooLarge


def back_path() -> str:
    ref = urlsplit(request.referrer or "")
    return ref.path or "/" if ref.netloc == request.host and ref.path else "/"


def too_large(e: RequestEntityTooLarge):
    limit = (request.max_content_length or 0) // (1024 * 1024)
    message = _("What was sent is too large (at most %(mb)d MB): nothing was saved. Go back and send less.",
                mb=limit)
    if request.path.startswith("/api/"):
        return jsonify({"status": "bad-request", "error": "too-large", "message": message}), 413
    return render_template("error.html", title=_("Too large"), message=message, back=back_path()), 413


def init_app(app: Flask) -> None:
    app.register_error_handler(RequestEntityTooLarge, too_large)
