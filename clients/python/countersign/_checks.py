"""Field checks of the contract's JSON bodies (internal).

Shared by the callback, receipt and HTTP client modules, which all refuse a
body that is not the contract's.
"""

from __future__ import annotations

import re
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


# The execution report (docs/executions.md).
_EXECUTION_STATUSES = ("succeeded", "failed")
_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")


def _is_int(value: Any) -> bool:
    """A JSON integer: ``bool`` is not one."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_digest(value: Any) -> bool:
    """``sha256:`` and 64 lower-case hex digits."""
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def _is_execution_record(value: Any) -> bool:
    """A report as recorded: ``{"status", "result_digest", "finished_at", "reported_at"}``."""
    return (
        isinstance(value, dict)
        and value.get("status") in _EXECUTION_STATUSES
        and isinstance(value.get("result_digest"), str)
        and isinstance(value.get("finished_at"), str)
        and isinstance(value.get("reported_at"), str)
    )


def _is_state_execution(value: Any) -> bool:
    """The state answer's ``execution``: null until reported, absent from servers before it."""
    return value is _MISSING or value is None or _is_execution_record(value)


def _is_waiting_on(value: Any) -> bool:
    """The state answer's ``waiting_on``: per role, approvals still ``needed`` and people
    ``eligible`` to give one now (both counts); empty once decided, absent from older servers."""
    return value is _MISSING or (
        isinstance(value, list)
        and all(
            isinstance(w, dict)
            and isinstance(w.get("role"), str)
            and _is_int(w.get("needed"))
            and w["needed"] >= 0
            and _is_int(w.get("eligible"))
            and w["eligible"] >= 0
            for w in value
        )
    )
