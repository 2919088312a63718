"""The web app manifest: the phone page can be installed to the home screen
(and Safari keeps an installed site's storage, the outbox included)."""
from __future__ import annotations

import json

from flask import current_app, url_for

from . import bp

THEME_COLOR = "#102a43"  # the top bar (static/css/listok.css)
BACKGROUND_COLOR = "#f6f7f9"  # --bg
ICONS = ((192, "any"), (512, "any"), (192, "maskable"), (512, "maskable"))


def manifest() -> dict:
    icons = [{"src": url_for("static", filename=f"icons/icon-{'maskable-' if purpose == 'maskable' else ''}{size}.png"),
              "sizes": f"{size}x{size}", "type": "image/png", "purpose": purpose} for size, purpose in ICONS]
    return {"id": "/", "name": "Listok", "short_name": "Listok", "start_url": url_for("public.index"),
            "scope": "/", "display": "standalone", "theme_color": THEME_COLOR,
            "background_color": BACKGROUND_COLOR, "icons": icons}


@bp.get("/manifest.webmanifest")
def web_manifest():
    response = current_app.response_class(json.dumps(manifest(), indent=1),
                                          mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "max-age=3600"
    return response
