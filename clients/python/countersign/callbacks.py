"""Callbacks: verifying the events Countersign sends to an agent service's
callback URL (docs/api.md, "The callbacks"): ``approval.decided`` when a
request is decided, ``approval.executed`` when its executor reported the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._checks import (
    _EXECUTION_STATUSES,
    _FINAL_DECISIONS,
    _MISSING,
    _first_bad,
    _is_digest,
    _is_review_list,
    _is_str,
    _is_str_list,
)
from .errors import CountersignError
from .webhooks import verify_webhook

#: The event types a callback URL receives, and the fields of each one's ``data``.
_CALLBACK_DATA: dict[str, dict[str, Callable[[Any], bool]]] = {
    "approval.decided": {
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
    "approval.executed": {
        "approval_id": _is_str,
        "run_id": _is_str,
        "call_id": _is_str,
        "tool": _is_str,
        "args_digest": _is_str,
        "status": lambda v: v in _EXECUTION_STATUSES,
        "result_digest": _is_digest,
        "finished_at": _is_str,
        # Not sent by the server so far; checked when a newer one sends it.
        "reported_at": lambda v: v is _MISSING or isinstance(v, str),
    },
}
CALLBACK_TYPES = tuple(_CALLBACK_DATA)


def verify_callback(
    secret: str | Iterable[str],
    headers: Mapping[str, str] | Any | None,
    raw_body: bytes,
    now: float | None = None,
) -> dict[str, Any]:
    """Verifies a callback on its raw body and returns the parsed event.

    The event is ``approval.decided`` (``data``: the call, ``decision``,
    ``decided_by``, ``decided_at``, ``reviews``) or ``approval.executed``
    (``data``: the call, ``status`` "succeeded" or "failed", ``result_digest``,
    ``finished_at``); its ``type`` says which, so branch on it::

        event = verify_callback(secret, request.headers, raw_body)
        if event["type"] == "approval.executed":
            record_run(event["data"]["status"], event["data"]["result_digest"])
        else:
            record_decision(event["data"]["decision"])

    Raises CountersignError "invalid-signature" (``reason`` "missing-headers",
    "bad-timestamp", "stale" or "bad-signature"; answer 401), or
    "invalid-request" when a correctly signed body is neither event (``reason``
    names the first bad field: "type" for another event type, "data.status"...).
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
        {
            "type": lambda v: isinstance(v, str) and v in _CALLBACK_DATA,
            "timestamp": _is_str,
            "data": lambda v: isinstance(v, dict),
        },
    )
    if bad is None:
        inner = _first_bad(event["data"], _CALLBACK_DATA[event["type"]])
        bad = None if inner is None else f"data.{inner}"
    if bad is not None:
        raise CountersignError(
            "invalid-request", 0, f"callback body field {bad} is missing or invalid", reason=bad, body=event
        )
    return event
