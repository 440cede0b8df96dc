"""Callbacks: verifying the ``approval.decided`` event Countersign sends to an
agent service (docs/api.md, section 5).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._checks import _FINAL_DECISIONS, _first_bad, _is_review_list, _is_str, _is_str_list
from .errors import CountersignError
from .webhooks import verify_webhook


def verify_callback(
    secret: str | Iterable[str],
    headers: Mapping[str, str] | Any | None,
    raw_body: bytes,
    now: float | None = None,
) -> dict[str, Any]:
    """Verifies an ``approval.decided`` callback and returns the parsed event.

    Raises CountersignError "invalid-signature" (``reason`` "missing-headers",
    "bad-timestamp", "stale" or "bad-signature"; answer 401), or
    "invalid-request" when a correctly signed body is not the contract's event.
    """
    secret_list = [secret] if isinstance(secret, str) else list(secret)
    result = verify_webhook(secret_list, headers, raw_body, now)
    if not result.ok:
        raise CountersignError("invalid-signature", 0, f"callback signature refused: {result.reason}", reason=result.reason)
    try:
        event = json.loads(bytes(raw_body).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CountersignError("invalid-request", 0, "callback body is not JSON", reason="not-json") from None
    bad = _first_bad(
        event,
        {"type": lambda v: v == "approval.decided", "timestamp": _is_str, "data": lambda v: isinstance(v, dict)},
    )
    if bad is None:
        inner = _first_bad(
            event["data"],
            {
                "approval_id": _is_str,
                "run_id": _is_str,
                "call_id": _is_str,
                "tool": _is_str,
                "args_digest": _is_str,
                "decision": lambda v: v in _FINAL_DECISIONS,
                "decided_by": _is_str_list,
                "decided_at": _is_str,
                "reviews": _is_review_list,
            },
        )
        bad = None if inner is None else f"data.{inner}"
    if bad is not None:
        raise CountersignError(
            "invalid-request", 0, f"callback body field {bad} is missing or invalid", reason=bad, body=event
        )
    return event
