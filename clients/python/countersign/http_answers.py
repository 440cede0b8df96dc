"""HTTP plumbing under the client: the contract's limits, how an answer is
held, redirects refused, timestamps, and how an error answer becomes a
``CountersignError``.

Split from ``http_client`` so the client class reads as the contract's calls.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
import urllib.request
from datetime import datetime, timezone
from typing import Any, NamedTuple

from .errors import CONTRACT_ERROR_CODES, CountersignError

#: Largest inbound webhook body the contract accepts (section 3).
MAX_WEBHOOK_BODY_BYTES = 256 * 1024
#: Longest long-poll the contract allows, in seconds (section 4).
MAX_WAIT_SECONDS = 30


def parse_retry_after(value: str | None, now: float | None = None) -> int | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP-date)."""
    if value is None:
        return None
    text = value.strip()
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = time.time() if now is None else now
    return max(0, math.ceil(when.timestamp() - current))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, D102
        return None


class _Answer(NamedTuple):
    status: int
    headers: Any
    body: Any


def _iso_seconds(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _error_from(answer: _Answer) -> CountersignError:
    server_code = answer.body.get("error") if isinstance(answer.body, dict) else None
    if server_code in CONTRACT_ERROR_CODES:
        code = server_code
    elif answer.status == 429:
        code = "rate-limited"
    elif answer.status == 413:
        code = "too-large"
    else:
        code = "unexpected-response"
    issues = None
    if code == "invalid-request" and isinstance(answer.body, dict) and isinstance(answer.body.get("issues"), list):
        issues = [
            issue
            for issue in answer.body["issues"]
            if isinstance(issue, dict) and isinstance(issue.get("path"), str) and isinstance(issue.get("message"), str)
        ]
    retry_after = None
    if code == "rate-limited" and answer.headers is not None:
        retry_after = parse_retry_after(answer.headers.get("Retry-After"))
    return CountersignError(code, answer.status, retry_after=retry_after, issues=issues, body=answer.body)
