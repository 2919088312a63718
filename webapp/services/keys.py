"""Keys derived from the server's secret key (never stored in the database).

Each purpose gets its own key, so a key that leaks through one use (a PIN
proof, a chain MAC) says nothing about another, and a stolen database alone
lets nobody recompute any of them."""
from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache

from flask import current_app


def derived_key(*purpose) -> bytes:
    """HMAC-SHA256(secret key, "listok-key/1:" + purpose parts joined by ":")."""
    secret = current_app.config["SECRET_KEY"]
    if not secret:
        raise RuntimeError("the server has no secret key")
    return _derive(str(secret), ":".join(map(str, purpose)))


@lru_cache(maxsize=1024)
def _derive(secret: str, purpose: str) -> bytes:
    # a phone sheet needs a key per MAC and PIN it checks: derived once per process, not each time
    return hmac.new(secret.encode(), ("listok-key/1:" + purpose).encode(), hashlib.sha256).digest()
