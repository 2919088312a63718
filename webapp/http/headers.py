"""Browser hardening headers on every response (docs/SECURITY.md, "Browser hardening").

The pages carry no inline script, style or handler, so the policy can forbid
them: an injected `<script>` or `onerror=` never runs, even where escaping fails.
"""
from __future__ import annotations

from flask import Flask, request

CSP = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    # the signature pad draws on a canvas and reads it back as data: URLs
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))
HSTS = "max-age=31536000"


def harden(response):
    h = response.headers
    if response.mimetype == "text/html" or request.endpoint == "table.service_worker":
        # the worker's own policy is the one its script is served with
        h.setdefault("Content-Security-Policy", CSP)
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "same-origin")
    if request.is_secure:
        h.setdefault("Strict-Transport-Security", HSTS)
    return response


def init_app(app: Flask) -> None:
    app.after_request(harden)
