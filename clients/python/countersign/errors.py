"""Errors: the contract's error codes and the exceptions this package raises.

Kept apart so every other module (and callers) can import them without
pulling in the HTTP client.
"""

from __future__ import annotations

from typing import Any

#: Error codes of the contract's HTTP answers (docs/api.md, "Error codes").
#: The codes any route may answer ("unavailable", "internal") are not among
#: them: like the TypeScript client, this one reports those answers as
#: "unexpected-response" with their status (5xx), which is what is retried.
CONTRACT_ERROR_CODES = frozenset(
    {
        "invalid-signature",
        "digest-mismatch",
        "call-reused",
        "invalid-request",
        "too-large",
        "rate-limited",
        "unauthorized",
        "not-found",
        "already-consumed",
        "binding-mismatch",
        "not-decided",
        "already-decided",
        # A second, different revision of a request that was already revised.
        "already-revised",
        # The execution report (docs/executions.md): sent twice, or for a call that never ran.
        "already-reported",
        "not-consumed",
    }
)

#: Codes raised by the client itself (status 0 unless an HTTP answer came):
#: "timeout", "network-error", "unexpected-response", "invalid-receipt".
CLIENT_ERROR_CODES = frozenset({"timeout", "network-error", "unexpected-response", "invalid-receipt"})


class CountersignError(Exception):
    """A refusal by Countersign, or a failure to reach it.

    Attributes: ``code`` (a contract code, or a client code listed in
    ``CLIENT_ERROR_CODES``), ``status`` (HTTP status, 0 when there was no
    answer), ``retry_after`` (seconds, for "rate-limited"), ``issues`` (for
    "invalid-request"), ``reason`` (why a callback or receipt was refused) and
    ``body`` (the parsed error body).
    """

    def __init__(
        self,
        code: str,
        status: int = 0,
        message: str | None = None,
        *,
        retry_after: int | None = None,
        issues: list[dict[str, str]] | None = None,
        reason: str | None = None,
        body: Any = None,
    ) -> None:
        if message is None:
            message = f"Countersign answered {status} {code}" if status else f"Countersign: {code}"
        super().__init__(message)
        self.code = code
        self.status = status
        self.retry_after = retry_after
        self.issues = issues
        self.reason = reason
        self.body = body


class CanonicalJsonError(ValueError):
    """A value has no RFC 8785 form here; ``reason`` says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
