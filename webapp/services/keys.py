"""Keys derived from the server's secret key (never stored in the database).

Each purpose gets its own key, so a key that leaks through one use (a PIN
proof, a chain MAC) says nothing about another, and a stolen database alone
lets nobody recompute any of them."""
from __future__ import annotations

import hashlib
import hmac

from flask import current_app


def derived_key(*purpose) -> bytes:
    """HMAC-SHA256(secret key, "listok-key/1:" + purpose parts joined by ":")."""
    secret = current_app.config["SECRET_KEY"]
    if not secret:
        raise RuntimeError("the server has no secret key")
    message = ("listok-key/1:" + ":".join(str(p) for p in purpose)).encode()
    return hmac.new(str(secret).encode(), message, hashlib.sha256).digest()
