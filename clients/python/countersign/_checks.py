"""Field checks of the contract's JSON bodies (internal).

Shared by the callback, receipt and HTTP client modules, which all refuse a
body that is not the contract's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# "revised": a reviewer answered with proposed changes instead of a vote.
_FINAL_DECISIONS = ("approved", "denied", "expired", "cancelled", "revised")
_CONSUMED_DECISIONS = ("approved", "denied", "expired", "revised")


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


def _is_patch(value: Any) -> bool:
    """A JSON Patch as the consume answer carries it (add / remove / replace); absent is fine."""
    return value is _MISSING or (
        isinstance(value, list)
        and all(
            isinstance(op, dict)
            and isinstance(op.get("path"), str)
            and (op.get("op") == "remove" or (op.get("op") in ("add", "replace") and "value" in op))
            for op in value
        )
    )


def _is_proposal(value: Any) -> bool:
    return value is _MISSING or (
        isinstance(value, dict) and all(isinstance(value.get(key), str) for key in ("by", "reason", "at"))
    )
