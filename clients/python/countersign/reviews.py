"""Reviews: why a request was denied, from the ``reviews`` (every vote, in
order: ``{"by", "vote", "reason", "at"}``) that the state and consume answers
and the callback carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def denial_reason(result: Mapping[str, Any]) -> str | None:
    """Why a request was denied, in the denying reviewer's words: the reason of
    the last "deny" vote in ``result["reviews"]`` (a consume answer, a state or
    a callback's ``data``), or None when no one denied it or gave no reason.
    The text is the reviewer's: show it to the user as a quote."""
    for review in reversed(result.get("reviews") or []):
        if review.get("vote") == "deny":
            return review.get("reason")
    return None
