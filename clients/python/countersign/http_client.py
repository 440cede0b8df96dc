"""HTTP client: ``CountersignClient``, the agent service's calls (docs/api.md,
the webhook and the executor API, including the execution report)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from ._checks import (
    _CONSUMED_DECISIONS,
    _EXECUTION_STATUSES,
    _FINAL_DECISIONS,
    _first_bad,
    _is_digest,
    _is_patch,
    _is_proposal,
    _is_review_list,
    _is_state_execution,
    _is_waiting_on,
    _is_str,
    _is_str_list,
)
from .digest import args_digest, is_args_salt, new_args_salt
from .errors import CountersignError
from .executions import format_finished_at
from .http_answers import MAX_WAIT_SECONDS, MAX_WEBHOOK_BODY_BYTES, _Answer, _error_from, _iso_seconds, _NoRedirect
from .webhooks import decode_webhook_secret, sign_webhook_headers

_args_digest = args_digest  # for methods whose parameter is named args_digest
_REMEMBERED_SALTS = 10_000


class CountersignClient:
    """Client for one agent service.

    ``timeout`` is the per-call timeout in seconds (a long poll adds its wait).
    Every method raises ``CountersignError`` carrying the contract's error code
    and HTTP status, or a client code ("timeout", "network-error",
    "unexpected-response") with status 0 when there was no usable answer.
    """

    def __init__(
        self,
        base_url: str,
        service_slug: str,
        webhook_secret: str | Iterable[str],
        api_token: str,
        timeout: float = 15.0,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError("base_url must be an http(s) URL")
        self.base_url = base_url.rstrip("/")
        self.service_slug = service_slug
        self._webhook_secrets = [webhook_secret] if isinstance(webhook_secret, str) else list(webhook_secret)
        for secret in self._webhook_secrets:
            decode_webhook_secret(secret)
        self._api_token = api_token
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect)
        # Salt per (run_id, call_id) this client sent: a retry and a consume reuse it.
        self._salts: dict[tuple[str, str], str] = {}

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, timeout: float = 15.0) -> CountersignClient:
        """A client configured by COUNTERSIGN_URL, COUNTERSIGN_SLUG, COUNTERSIGN_WEBHOOK_SECRET
        and COUNTERSIGN_API_TOKEN (``os.environ`` by default); raises ``ValueError`` naming the
        missing variables, never their values."""
        source = os.environ if env is None else env
        names = ("COUNTERSIGN_URL", "COUNTERSIGN_SLUG", "COUNTERSIGN_WEBHOOK_SECRET", "COUNTERSIGN_API_TOKEN")
        missing = [name for name in names if not source.get(name)]
        if missing:
            raise ValueError(f"Countersign client: set {', '.join(missing)}")
        url, slug, secret, token = (source[name] for name in names)
        return cls(url, slug, secret, token, timeout=timeout)

    def _remember_salt(self, key: tuple[str, str], salt: str) -> None:
        self._salts.pop(key, None)
        self._salts[key] = salt
        if len(self._salts) > _REMEMBERED_SALTS:
            self._salts.pop(next(iter(self._salts)))

    @property
    def jwks_url(self) -> str:
        return f"{self.base_url}/.well-known/jwks.json"

    # -- section 3 --------------------------------------------------------

    def request_approval(
        self,
        *,
        run_id: str,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        requested_by: str | None = None,
        effects: str | None = None,
        summary: str | None = None,
        environment: str | None = None,
        expires_in: int | None = None,
        webhook_id: str | None = None,
        timeout: float | None = None,
        args_salt: str | None = None,
        revises: str | None = None,
    ) -> dict[str, Any]:
        """Sends a signed ``approval.requested`` webhook with a salted digest;
        returns the 201 (new) or 200 (replayed) body plus the ``args_salt`` sent.
        The salt is fresh per call and reused when this client asks again for the
        same run and call; pass ``args_salt`` only to resend a call from another
        process. ``revises`` names a request a reviewer answered with changes,
        when these arguments carry them (the approval port does this itself).
        The answer's ``status`` is "pending", or "approved" for a revision the
        proposer's approval decided; ``warnings`` may list "quorum-unreachable"
        or "revision-differs". Raises CanonicalJsonError for arguments with no
        RFC 8785 form, CountersignError "too-large" (status 0) before sending a
        body over 256 KiB."""
        if args_salt is not None and not is_args_salt(args_salt):
            raise ValueError("args_salt must be 16-64 bytes as unpadded base64url")
        salt = args_salt or self._salts.get((run_id, call_id)) or new_args_salt()
        data: dict[str, Any] = {
            "run_id": run_id,
            "call_id": call_id,
            "tool": tool,
            "arguments": arguments,
            "args_salt": salt,
            "args_digest": args_digest(arguments, salt),
        }
        optional = {
            "requested_by": requested_by,
            "effects": effects,
            "summary": summary,
            "environment": environment,
            "expires_in": expires_in,
            "revises": revises,
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        event = {"type": "approval.requested", "timestamp": _iso_seconds(datetime.now(timezone.utc)), "data": data}
        body = json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        if len(body) > MAX_WEBHOOK_BODY_BYTES:
            raise CountersignError(
                "too-large", 0, f"the request body is {len(body)} bytes; the limit is {MAX_WEBHOOK_BODY_BYTES}"
            )
        headers = sign_webhook_headers(self._webhook_secrets, body, msg_id=webhook_id)
        headers["Content-Type"] = "application/json"
        path = f"/api/v1/webhooks/{urllib.parse.quote(self.service_slug, safe='')}"
        # Remembered before sending: a retry after a lost answer must send the same salt.
        self._remember_salt((run_id, call_id), salt)
        answer = self._send("POST", path, headers, body, timeout)
        created = self._accept(
            answer,
            (200, 201),
            {"approval_id": _is_str, "status": _is_str, "args_digest": _is_str, "expires_at": _is_str, "review_url": _is_str},
        )
        return {**created, "args_salt": salt}

    # -- section 4 --------------------------------------------------------

    def get_approval(self, approval_id: str, wait: int = 0, timeout: float | None = None) -> dict[str, Any]:
        """The request's state; ``wait`` (integer 0-30) long-polls while pending.
        ``execution`` is None until the executor reported the run, then
        ``{"status", "result_digest", "finished_at", "reported_at"}`` (absent
        from servers before execution reports)."""
        if isinstance(wait, bool) or not isinstance(wait, int) or not 0 <= wait <= MAX_WAIT_SECONDS:
            raise ValueError(f"wait must be an integer from 0 to {MAX_WAIT_SECONDS}")
        query = f"?wait={wait}" if wait else ""
        path = f"/api/v1/approvals/{urllib.parse.quote(approval_id, safe='')}{query}"
        answer = self._send("GET", path, self._auth(), None, (timeout or self.timeout) + wait)
        return self._accept(
            answer,
            (200,),
            {
                "approval_id": _is_str,
                "status": lambda v: v in ("pending", *_FINAL_DECISIONS),
                "run_id": _is_str,
                "call_id": _is_str,
                "tool": _is_str,
                "args_digest": _is_str,
                "expires_at": _is_str,
                "decided_at": lambda v: v is None or isinstance(v, str),
                "decided_by": _is_str_list,
                "reviews": _is_review_list,
                "consumed": lambda v: isinstance(v, bool),
                "execution": _is_state_execution,
                "waiting_on": _is_waiting_on,
            },
        )

    def wait_for_decision(self, approval_id: str, timeout: float, poll_wait: int = MAX_WAIT_SECONDS) -> dict[str, Any]:
        """Long-polls until the request is no longer pending or ``timeout``
        seconds pass, and returns the last state -- check ``status``, it may
        still be "pending". Timeouts, network errors, 5xx and 429 answers are
        retried with back-off within the time budget."""
        deadline = time.monotonic() + timeout
        poll_wait = max(1, min(MAX_WAIT_SECONDS, int(poll_wait)))
        backoff = 0.5
        last: dict[str, Any] | None = None
        while True:
            remaining = deadline - time.monotonic()
            wait = max(0, min(poll_wait, int(remaining)))
            started = time.monotonic()
            try:
                last = self.get_approval(approval_id, wait=wait)
                backoff = 0.5
                if last["status"] != "pending" or time.monotonic() >= deadline:
                    return last
                elapsed = time.monotonic() - started
                if elapsed < 1.0:
                    time.sleep(max(0.0, min(1.0 - elapsed, deadline - time.monotonic())))
            except CountersignError as error:
                retriable = error.code in ("timeout", "network-error", "rate-limited") or (
                    error.code == "unexpected-response" and error.status >= 500
                )
                if not retriable:
                    raise
                delay = float(error.retry_after or 1) if error.code == "rate-limited" else backoff
                backoff = min(backoff * 2, 8.0)
                if time.monotonic() + delay >= deadline:
                    if last is not None:
                        return last
                    raise
                time.sleep(delay)
            if time.monotonic() >= deadline and last is not None:
                return last

    def consume(
        self,
        approval_id: str,
        *,
        run_id: str,
        call_id: str,
        tool: str,
        args_digest: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        args_salt: str | None = None,
    ) -> dict[str, Any]:
        """Takes the decision once. Give ``args_digest``, or ``arguments`` to
        bind to the arguments about to run (the digest is computed, salted with
        ``args_salt`` if given, else with the salt this client sent for the same
        run and call, else unsalted). The salt itself is never sent. The answer
        carries ``reviews``, every vote in order; on a denial
        ``denial_reason(answer)`` is the reviewer's reason. On "revised" it
        also carries ``patch`` (the proposed changes, RFC 6902) and
        ``proposal`` (``{"by", "reason", "at"}``)."""
        if (args_digest is None) == (arguments is None):
            raise TypeError("give exactly one of args_digest and arguments")
        if args_digest is not None:
            digest = args_digest
        else:
            digest = _args_digest(arguments, args_salt or self._salts.get((run_id, call_id)))
        binding = {"run_id": run_id, "call_id": call_id, "tool": tool, "args_digest": digest}
        body = json.dumps(binding, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        headers = {**self._auth(), "Content-Type": "application/json"}
        path = f"/api/v1/approvals/{urllib.parse.quote(approval_id, safe='')}/consume"
        answer = self._send("POST", path, headers, body, timeout)
        return self._accept(
            answer,
            (200,),
            {
                "approval_id": _is_str,
                "decision": lambda v: v in _CONSUMED_DECISIONS,
                "decided_by": _is_str_list,
                "decided_at": _is_str,
                "consumed_at": _is_str,
                "reviews": _is_review_list,
                "receipt": _is_str,
                "patch": _is_patch,
                "proposal": _is_proposal,
            },
        )

    def cancel(self, approval_id: str, timeout: float | None = None) -> dict[str, Any]:
        """Withdraws a pending request; 409 "already-decided" otherwise."""
        path = f"/api/v1/approvals/{urllib.parse.quote(approval_id, safe='')}/cancel"
        answer = self._send("POST", path, self._auth(), b"", timeout)
        result = self._accept(answer, (200,), {"status": lambda v: v == "cancelled"})
        result.setdefault("approval_id", approval_id)
        return result

    def report_execution(
        self,
        approval_id: str,
        *,
        status: str,
        result_digest: str,
        finished_at: datetime | str,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Reports how an approved call ran: once, after a consume that answered
        "approved" and after the call finished (docs/executions.md).

        ``status`` is "succeeded" or "failed"; ``result_digest`` a digest of
        the result (``sha256:`` and 64 lower-case hex digits; see
        ``countersign.result_digest``), never the result itself;
        ``finished_at`` when the call finished, a timezone-aware ``datetime``
        (sent in UTC, with milliseconds) or an ISO 8601 string with an offset,
        sent as given. Returns the report as recorded: ``{"approval_id",
        "status", "result_digest", "finished_at", "reported_at"}``, times in
        UTC. Raises ValueError before sending for a status, digest or datetime
        that cannot be right, and CountersignError for a refusal: 409
        "already-reported" (reported before, even with the same body), 409
        "not-consumed" (not consumed, or consumed as denied, expired or revised:
        nothing ran), 404 "not-found", 422 "invalid-request" (``issues``; e.g.
        ``finished_at`` in the future or before the consume)."""
        if status not in _EXECUTION_STATUSES:
            raise ValueError('status must be "succeeded" or "failed"')
        if not _is_digest(result_digest):
            raise ValueError("result_digest must be sha256: and 64 lower-case hex digits")
        if isinstance(finished_at, datetime):
            finished = format_finished_at(finished_at)
        elif isinstance(finished_at, str):
            finished = finished_at
        else:
            raise TypeError("finished_at must be a timezone-aware datetime or an ISO 8601 string")
        report = {"status": status, "result_digest": result_digest, "finished_at": finished}
        body = json.dumps(report, separators=(",", ":")).encode("utf-8")
        headers = {**self._auth(), "Content-Type": "application/json"}
        path = f"/api/v1/approvals/{urllib.parse.quote(approval_id, safe='')}/result"
        answer = self._send("POST", path, headers, body, timeout)
        return self._accept(
            answer,
            (200,),
            {
                "approval_id": _is_str,
                "status": lambda v: v in _EXECUTION_STATUSES,
                "result_digest": _is_str,
                "finished_at": _is_str,
                "reported_at": _is_str,
            },
        )

    def fetch_jwks(self, timeout: float | None = None) -> dict[str, Any]:
        """The receipt public keys (``/.well-known/jwks.json``), for ``verify_receipt``."""
        answer = self._send("GET", "/.well-known/jwks.json", {}, None, timeout)
        return self._accept(answer, (200,), {"keys": lambda v: isinstance(v, list)})

    # -- plumbing ---------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_token}"}

    def _send(self, method: str, path: str, headers: dict[str, str], body: bytes | None, timeout: float | None) -> _Answer:
        request = urllib.request.Request(
            self.base_url + path, data=body, method=method, headers={"Accept": "application/json", **headers}
        )
        limit = self.timeout if timeout is None else timeout
        try:
            with self._opener.open(request, timeout=limit) as response:
                status, response_headers, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, response_headers = error.code, error.headers
            try:
                raw = error.read()
            except (OSError, TimeoutError):
                raw = b""
            finally:
                error.close()
        except (TimeoutError, socket.timeout) as error:
            raise CountersignError("timeout", 0, f"{method} {path} timed out") from error
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise CountersignError("timeout", 0, f"{method} {path} timed out") from error
            raise CountersignError("network-error", 0, f"{method} {path} failed: {error.reason}") from error
        except (OSError, http.client.HTTPException) as error:
            raise CountersignError("network-error", 0, f"{method} {path} failed: {error}") from error
        parsed: Any = None
        if raw:
            try:
                parsed = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                parsed = None
        return _Answer(status, response_headers, parsed)

    @staticmethod
    def _accept(answer: _Answer, ok: tuple[int, ...], checks: Mapping[str, Callable[[Any], bool]]) -> dict[str, Any]:
        if answer.status not in ok:
            if 200 <= answer.status < 300:
                raise CountersignError("unexpected-response", answer.status, body=answer.body)
            raise _error_from(answer)
        bad = _first_bad(answer.body, checks)
        if bad is not None:
            raise CountersignError(
                "unexpected-response",
                answer.status,
                f"Countersign answered {answer.status} outside the contract: field {bad} is missing or invalid",
                body=answer.body,
            )
        return answer.body
