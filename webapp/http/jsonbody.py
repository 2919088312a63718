"""Reading a JSON request body that may be hostile: too large, not JSON, or
nested so deeply that Python's parser (or anything walking the result)
runs out of recursion. Every such body is a clear refusal, never a 500."""
from __future__ import annotations

import json

# the phone protocol nests three levels (docs/SYNC.md); the margin is for later versions
MAX_DEPTH = 16


class BodyError(ValueError):
    """`reason` is "too-large", "too-deep" or "not-json"."""

    def __init__(self, reason: str, limit: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.limit = limit


def depth(value, limit: int) -> int:
    """How deep lists and objects nest in `value` (a scalar is 0), counted
    without recursion and no further than limit + 1."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        stack.extend((c, d + 1) for c in children)
    return deepest


def loads(data: bytes | str, max_bytes: int, max_depth: int = MAX_DEPTH):
    if len(data) > max_bytes:
        raise BodyError("too-large", max_bytes)
    try:
        value = json.loads(data)
    except RecursionError:
        raise BodyError("too-deep", max_depth) from None
    except ValueError:  # also a body that is not UTF-8
        raise BodyError("not-json") from None
    if depth(value, max_depth) > max_depth:
        raise BodyError("too-deep", max_depth)
    return value
