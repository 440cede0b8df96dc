"""Field checks of the contract's JSON bodies (internal).

Shared by the callback, receipt and HTTP client modules, which all refuse a
body that is not the contract's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

_FINAL_DECISIONS = ("approved", "denied", "expired", "cancelled")
_CONSUMED_DECISIONS = ("approved", "denied", "expired")


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_review_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict)
        and isinstance(item.get("by"), str)
        and item.get("vote") in ("approve", "deny")
        and (item.get("reason", _MISSING) is None or isinstance(item.get("reason"), str))
        and isinstance(item.get("at"), str)
        for item in value
    )


def _first_bad(body: Any, checks: Mapping[str, Callable[[Any], bool]]) -> str | None:
    if not isinstance(body, dict):
        return "(body)"
    for field, check in checks.items():
        if not check(body.get(field, _MISSING)):
            return field
    return None


_MISSING = object()


def _is_str(value: Any) -> bool:
    return isinstance(value, str)
