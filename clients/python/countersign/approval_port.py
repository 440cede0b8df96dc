"""The approval port: one call in, allow or deny out, failing closed.

``ApprovalPort(client).ask(run_id=..., call_id=..., tool=..., arguments=...)``
requests approval through the signed webhook, long-polls the request's state,
consumes it once bound to the call (run, call, tool, salted digest), verifies
the receipt against the JWKS (signature, fields, binding to this call, ``exp``)
and returns a ``PortDecision``. Anything but a verified approval is a denial: no
decision before the timeout (the request is then cancelled when possible), a
transport error, an answer outside the contract, a bad or expired receipt
("invalid-receipt"), a receipt about another call ("binding-mismatch").

Execution reports. Once an allowed call ran, ``report_execution(decision,
status=..., result=... | error=...)`` tells Countersign how it went, with a
salted digest of the result (``countersign.result_digest``), never the result;
``run(..., execute=fn)`` asks, runs ``fn(**decision.arguments)`` when allowed
and reports by itself. A report never raises into the caller: a failure goes
to ``on_report_error`` (default: one warning line on the "countersign" logger,
naming the request, never arguments or results).

Replays. Countersign keeps one request per (run_id, call_id): sending the same
call again answers with the first request, and with other arguments it answers
409 "call-reused"; it never opens a second request for the same ids. So a call
asked again after its decision was consumed is denied ("replayed") -- the old
decision is never reused and the tool must not run again. A call asked again
before its decision was consumed (say the executor restarted) resumes the same
request and consumes it once. To really ask again, give the retry a new call id.

Revisions. A reviewer may answer with proposed changes instead of a vote. The
port then applies them (a JSON Patch) to its own copy of the arguments, asks
again for the changed call -- same run and tool, the call id
``revision_call_id(call_id, k)`` for the k-th revision, ``revises`` naming the
revised request -- and waits for that request. Only an approval of the changed
arguments allows, and ``PortDecision.arguments`` then holds them: run the tool
with those, never with the arguments first asked about. Following is opted
into with ``max_revisions`` (how many revisions in a row, e.g. 10): before
revisions existed the port returned no arguments and callers ran their own,
so by default (0) a revised call is denied with code "revised", and such a
caller can never run the arguments it first asked about once reviewers
approved others. When following, a patch that does not apply, a
revision Countersign finds different from the proposal, or one another call
already made, deny.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .digest import args_digest
from .errors import CanonicalJsonError, CountersignError
from .executions import format_finished_at, result_digest
from .http_client import CountersignClient
from .json_patch import JsonPatchError, apply_json_patch
from .receipts import (
    RECEIPT_BINDING_FIELDS,
    RECEIPT_CLOCK_TOLERANCE_SECONDS,
    Ed25519Verify,
    _check_expiry,
    verify_receipt,
)
from .reviews import denial_reason
from ._ed25519 import ed25519_verify as _builtin_ed25519_verify

_log = logging.getLogger("countersign")

_BINDING = ("run_id", "call_id", "tool", "args_digest")
_MAX_CALL_ID = 200  # as Countersign counts it: UTF-16 code units
_KEPT = 150


def revision_call_id(original_call_id: str, k: int) -> str:
    """The k-th revision's call id (k = 1, 2, ... along the chain).

    ``<call id>~rev<k>``; when that is longer than 200, the first 150
    characters of the call id, ``~rev<k>~`` and the first 16 hex digits of the
    SHA-256 of the whole call id (UTF-8). Lengths count UTF-16 code units, as
    Countersign does, and a cut never splits a surrogate pair. The TypeScript
    client derives the same ids, so either finds a revision the other asked."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError("a revision's number is a whole number from 1")
    plain = f"{original_call_id}~rev{k}"
    if _utf16_len(plain) <= _MAX_CALL_ID:
        return plain
    digest = hashlib.sha256(original_call_id.encode("utf-8")).hexdigest()[:16]
    return f"{_keep_start(original_call_id, _KEPT)}~rev{k}~{digest}"


def _utf16_len(text: str) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def _keep_start(text: str, units: int) -> str:
    kept, used = [], 0
    for ch in text:
        used += 2 if ord(ch) > 0xFFFF else 1
        if used > units:
            break
        kept.append(ch)
    return "".join(kept)


def _json_copy(value: Any) -> Any:
    """A copy the caller cannot change under the port: objects become dicts, arrays lists."""
    if isinstance(value, Mapping):
        return {key: _json_copy(inner) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_copy(inner) for inner in value]
    return value


@dataclass(frozen=True)
class PortRevision:
    """One step of a chain of revisions: a request a reviewer answered with changes.

    ``patch`` holds argument values: keep it as private as the arguments."""

    approval_id: str
    call_id: str
    proposal: dict[str, Any]
    patch: list[dict[str, Any]]
    receipt: dict[str, Any]
    receipt_jws: str


@dataclass(frozen=True)
class PortDecision:
    """The port's answer. ``allowed`` is True only for a verified, consumed approval.

    ``code`` says why: "approved", "denied", "expired", "revised" (a reviewer
    proposed changes and the port follows none: ``max_revisions=0``),
    "too-many-revisions", "invalid-revision" (the changes do not apply),
    "revision-differs" (Countersign found the changed call different from the
    proposal), "already-revised" (another call carried the changes), "replayed",
    "timeout", "invalid-receipt", "binding-mismatch", "invalid-arguments" (no
    JSON form), the ``CountersignError`` code of a failure, or "error" for
    anything else. ``reviews`` are the consume answer's votes; ``receipt`` is
    the verified payload and ``receipt_jws`` the evidence to keep, all of the
    last request asked (``approval_id``). ``arguments`` (when allowed) is a copy
    of exactly the arguments that were approved -- the changed ones after a
    revision: run the tool with these. ``revisions`` lists the revisions followed.
    ``args_salt`` (when allowed) is the salt of the approved call's digest,
    which ``ApprovalPort.report_execution`` salts the result digest with; it
    is left out of ``repr`` and comparisons: keep it as private as the
    arguments (Countersign never shows it to anyone).
    """

    allowed: bool
    code: str
    reason: str
    approval_id: str | None = None
    reviews: list[dict[str, Any]] = field(default_factory=list)
    receipt: dict[str, Any] | None = None
    receipt_jws: str | None = None
    arguments: dict[str, Any] | None = None
    revisions: tuple[PortRevision, ...] = ()
    args_salt: str | None = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.allowed


class _Deny(Exception):
    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


class ApprovalPort:
    """Asks Countersign before a tool runs; see the module docstring.

    ``timeout`` bounds the wait for a decision (seconds); ``ed25519_verify``
    replaces the built-in pure-Python check (e.g. with ``cryptography``);
    ``jwks`` pins the receipt keys instead of fetching them; with
    ``raise_errors`` a failure raises instead of denying (reviewer denials
    never raise); ``on_request`` is called with the webhook's answer (e.g. to
    show the review URL), for each request of a chain of revisions;
    ``max_revisions`` bounds how many revisions in a row are followed (0, the
    default: none, a revised call is denied with code "revised"; callers that
    run ``decision.arguments`` opt in, e.g. with 10). ``timeout`` applies to each
    request of the chain. ``clock_tolerance`` is how many seconds past its
    ``exp`` a receipt is still accepted (30 by default; ``clock`` tells the
    time). ``on_report_error(error, decision)`` gets what went wrong with an
    execution report (the default logs one warning line on the "countersign"
    logger); it is never raised into the caller.
    """

    def __init__(
        self,
        client: CountersignClient,
        *,
        timeout: float = 300.0,
        ed25519_verify: Ed25519Verify | None = None,
        jwks: Mapping[str, Any] | None = None,
        raise_errors: bool = False,
        on_request: Callable[[dict[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.time,
        max_revisions: int = 0,
        clock_tolerance: float = RECEIPT_CLOCK_TOLERANCE_SECONDS,
        on_report_error: Callable[[Exception, PortDecision], None] | None = None,
    ) -> None:
        self.client = client
        self.timeout = timeout
        self._verify = ed25519_verify or _builtin_ed25519_verify
        self._pinned_jwks = jwks
        self._jwks: Mapping[str, Any] | None = jwks
        self._raise = raise_errors
        self._on_request = on_request
        self._clock = clock
        self.max_revisions = max_revisions
        self.clock_tolerance = clock_tolerance
        self._on_report_error = on_report_error

    def ask(
        self,
        *,
        run_id: str,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        summary: str | None = None,
        requested_by: str | None = None,
        environment: str | None = None,
        effects: str | None = None,
        expires_in: int | None = None,
        timeout: float | None = None,
        args_salt: str | None = None,
    ) -> PortDecision:
        """Requests approval of one call, waits, consumes once; allow or deny.

        ``args_salt`` resumes a call sent from another process (see ``request_approval``)."""
        approval_id: str | None = None
        revisions: list[PortRevision] = []
        try:
            # The port hashes, sends and returns this one copy, so what runs is what was approved.
            current: Any = _json_copy(arguments)
            extra = {"summary": summary, "requested_by": requested_by, "environment": environment,
                     "effects": effects, "expires_in": expires_in}
            asked_call_id, salt, revises = call_id, args_salt, None
            wait = timeout if timeout is not None else self.timeout
            while True:
                created = self.client.request_approval(
                    run_id=run_id, call_id=asked_call_id, tool=tool, arguments=current,
                    args_salt=salt, revises=revises, **extra,
                )
                approval_id = created["approval_id"]
                binding = {
                    "run_id": run_id, "call_id": asked_call_id, "tool": tool,
                    "args_digest": args_digest(current, created["args_salt"]),
                }
                if created["args_digest"] != binding["args_digest"]:
                    raise _Deny("binding-mismatch", "Countersign recorded another digest than this call's")
                warnings = created.get("warnings")
                if revises is not None and isinstance(warnings, list) and "revision-differs" in warnings:
                    # Nothing was carried over, and a changed call nobody proposed is not left for review.
                    self._withdraw(approval_id)
                    raise _Deny("revision-differs", "Countersign found the changed call different from the "
                                "proposed changes; it was withdrawn")
                if self._on_request is not None:
                    self._on_request(created)
                taken, payload = self._settle(approval_id, binding, wait)
                decision, reviews, jws = taken["decision"], taken["reviews"], taken["receipt"]
                done = (approval_id, reviews, payload, jws)
                if decision == "approved":
                    by = ", ".join(taken["decided_by"]) or "a standing approval"
                    after = f" after {len(revisions)} revision{'s' if len(revisions) > 1 else ''}" if revisions else ""
                    return PortDecision(True, "approved", f"approved by {by}{after}", *done,
                                        arguments=current, revisions=tuple(revisions),
                                        args_salt=created["args_salt"])
                if decision != "revised":
                    if decision == "denied":
                        why = denial_reason(taken)
                        reason = f"denied: {why}" if why else "denied by a reviewer"
                    elif decision == "expired":
                        reason = "the request expired before anyone decided"
                    else:
                        reason = f"not approved ({decision}); the call must not run"
                    return PortDecision(False, decision, reason, *done, revisions=tuple(revisions))

                # Revised: the call never runs as it was; one changed call is asked per proposal.
                patch, proposal = taken.get("patch"), taken.get("proposal")
                if patch is None or proposal is None:
                    raise _Deny("invalid-revision", "Countersign answered revised without the proposed changes")
                revisions.append(PortRevision(approval_id, asked_call_id, proposal, patch, payload, jws))
                if self.max_revisions <= 0:
                    raise _Deny("revised", f"{proposal['by']} proposed changes instead of approving; the call was not run")
                if len(revisions) > self.max_revisions:
                    raise _Deny("too-many-revisions", f"the call was revised more than {self.max_revisions} times "
                                "in a row; it was not run")
                current = _patched(current, patch)
                asked_call_id, salt, revises = revision_call_id(call_id, len(revisions)), None, approval_id
        except _Deny as deny:
            return PortDecision(False, deny.code, deny.reason, approval_id, revisions=tuple(revisions))
        except Exception as error:  # fail closed: anything unexpected denies
            if self._raise:
                raise
            known = isinstance(error, (CountersignError, CanonicalJsonError))
            if isinstance(error, CountersignError):
                code = error.code
            else:
                code = "invalid-arguments" if isinstance(error, CanonicalJsonError) else "error"
            # Only the package's own messages, which never quote argument values.
            why = str(error) if known else type(error).__name__
            if code == "already-revised":
                why = "another call already carried these proposed changes; this call was not run"
                return PortDecision(False, code, why, approval_id, revisions=tuple(revisions))
            return PortDecision(False, code, f"approval failed, so the call is denied: {why}", approval_id,
                                revisions=tuple(revisions))

    def report_execution(
        self,
        decision: PortDecision,
        *,
        status: str,
        result: Any = None,
        error: BaseException | str | None = None,
        finished_at: datetime | None = None,
    ) -> dict[str, Any] | None:
        """Reports how an allowed call ran (docs/executions.md); never raises.

        ``status`` is "succeeded" or "failed". The report carries
        ``result_digest(result, decision.args_salt, error=error)``: the digest
        of ``{"error": <class name>}`` when ``error`` (the exception the tool
        raised, or its class name) is given, else of ``result`` made JSON (None
        is null; what JSON has no form for, its string form), salted with the
        call's ``args_salt``, never the result itself. ``finished_at`` defaults
        to now (``clock``). Returns the report as Countersign recorded it, or
        None when it was not recorded: then ``on_report_error(error, decision)``
        was called (by default, one warning line on the "countersign" logger
        naming the request and what went wrong, never arguments or results).
        A decision that did not allow the call has nothing to report
        ("not-consumed", status 0, nothing sent); a second report of the same
        call is refused by Countersign ("already-reported")."""
        try:
            if not decision.allowed or decision.approval_id is None:
                raise CountersignError(
                    "not-consumed", 0, "the call was not allowed, so it did not run: there is nothing to report"
                )
            if decision.args_salt is None:
                raise ValueError("the decision carries no args_salt (it did not come from ApprovalPort.ask)")
            digest = result_digest(result, decision.args_salt, error=error)
            when = format_finished_at(finished_at or datetime.fromtimestamp(self._clock(), timezone.utc))
            return self.client.report_execution(
                decision.approval_id, status=status, result_digest=digest, finished_at=when
            )
        except Exception as failure:  # noqa: BLE001 - the tool ran; a lost report must not break the caller
            self._report_failed(failure, decision)
            return None

    def run(
        self,
        *,
        execute: Callable[..., Any],
        run_id: str,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        summary: str | None = None,
        requested_by: str | None = None,
        environment: str | None = None,
        effects: str | None = None,
        expires_in: int | None = None,
        timeout: float | None = None,
        args_salt: str | None = None,
    ) -> Any:
        """Asks (as ``ask`` does), runs ``execute(**decision.arguments)`` when
        allowed, reports the run and returns what ``execute`` returned.

        If ``execute`` raises an exception, the run is reported as "failed"
        (the digest of ``{"error": <its class name>}``) and the exception is
        raised again, unchanged; otherwise it is reported as "succeeded" with
        the digest of its result. ``KeyboardInterrupt`` and other
        ``BaseException``s that are not ``Exception``s pass through unreported.
        Reporting never raises (see ``report_execution``).

        When the call is not allowed, ``execute`` is not called and the denying
        ``PortDecision`` is returned, as ``ask`` returns it (falsy; ``code`` and
        ``reason`` say why), so tell the two apart with
        ``isinstance(outcome, PortDecision)``; with ``raise_errors=True``
        failures raise, as they do from ``ask``."""
        if not callable(execute):
            raise TypeError("execute must be the tool function to run with the approved arguments")
        decision = self.ask(
            run_id=run_id, call_id=call_id, tool=tool, arguments=arguments, summary=summary,
            requested_by=requested_by, environment=environment, effects=effects, expires_in=expires_in,
            timeout=timeout, args_salt=args_salt,
        )
        if not decision.allowed or decision.arguments is None:
            return decision
        try:
            result = execute(**decision.arguments)
        except Exception as error:
            self.report_execution(decision, status="failed", error=error)
            raise
        self.report_execution(decision, status="succeeded", result=result)
        return result

    def _report_failed(self, failure: Exception, decision: PortDecision) -> None:
        if self._on_report_error is not None:
            try:
                self._on_report_error(failure, decision)
                return
            except Exception:  # noqa: BLE001 - a failing hook falls back to the warning
                pass
        # The package's own messages never quote arguments or results; anything else is named by its type.
        own = isinstance(failure, (CountersignError, ValueError, TypeError))
        why = f"{type(failure).__name__}: {failure}" if own else type(failure).__name__
        approval_id = getattr(decision, "approval_id", None)
        _log.warning("Countersign: the execution report of %s was not recorded (%s)", approval_id, why)

    def _settle(
        self, approval_id: str, binding: dict[str, str], timeout: float
    ) -> tuple[Mapping[str, Any], dict[str, Any]]:
        try:
            state = self.client.wait_for_decision(approval_id, timeout=max(0.0, timeout))
        except Exception:
            self._withdraw(approval_id)
            raise
        if any(state.get(key) != value for key, value in binding.items()):
            self._withdraw(approval_id)
            raise _Deny("binding-mismatch", "the request Countersign holds is not this call")
        if state["status"] == "pending":
            self._withdraw(approval_id)
            raise _Deny("timeout", f"no decision within {timeout:g} seconds; the request was withdrawn")
        if state["status"] == "cancelled":
            raise _Deny("cancelled", "the request was cancelled")
        if state["consumed"]:
            raise _Deny("replayed", "this call's decision was already used; it is not reused (send a new call id)")
        try:
            taken = self.client.consume(approval_id, **binding)
        except CountersignError as error:
            if error.code == "already-consumed":
                raise _Deny("replayed", "this call's decision was already used; it is not reused") from None
            raise
        return taken, self._check_receipt(approval_id, binding, taken)

    def _check_receipt(self, approval_id: str, binding: dict[str, str], taken: Mapping[str, Any]) -> dict[str, Any]:
        """The receipt's signature and fields, then its binding to this call, then its expiry."""
        expected = {**binding, "approval_id": approval_id, "service": self.client.service_slug, "decision": taken["decision"]}
        jws = taken["receipt"]
        try:
            try:
                payload = verify_receipt(jws, self._keys(refresh=False), self._verify, allow_expired=True)
            except CountersignError as error:
                if error.reason != "no-key" or self._pinned_jwks is not None:
                    raise
                payload = verify_receipt(jws, self._keys(refresh=True), self._verify, allow_expired=True)  # keys rotated
        except CountersignError as error:
            raise _Deny("invalid-receipt", f"the receipt was refused: {error}") from None
        differs = [name for name in RECEIPT_BINDING_FIELDS if payload.get(name) != expected[name]]
        if differs:
            # Field names only: the values may be the call's.
            raise _Deny("binding-mismatch", f"the receipt is not about this call: its {', '.join(differs)} "
                        f"{'differs' if len(differs) == 1 else 'differ'}; the call was not run")
        try:
            _check_expiry(payload, self._clock(), self.clock_tolerance)
        except CountersignError as error:
            raise _Deny("invalid-receipt", f"the receipt was refused: {error}") from None
        return payload

    def _keys(self, refresh: bool) -> Mapping[str, Any]:
        if self._jwks is None or refresh:
            self._jwks = self.client.fetch_jwks()
        return self._jwks

    def _withdraw(self, approval_id: str) -> None:
        try:
            self.client.cancel(approval_id, timeout=5.0)
        except Exception:  # noqa: BLE001 - best effort: the call is denied either way
            pass


def _patched(arguments: Mapping[str, Any], patch: list[dict[str, Any]]) -> dict[str, Any]:
    """The arguments with a reviewer's changes applied; the input is not changed."""
    try:
        result = apply_json_patch(arguments, patch)
    except JsonPatchError as error:
        # Its messages name operations and paths, never values.
        raise _Deny("invalid-revision", f"the proposed changes do not apply to the arguments ({error}); "
                    "the call was not run") from None
    if not isinstance(result, dict):
        raise _Deny("invalid-revision", "the proposed changes do not leave a JSON object of arguments; "
                    "the call was not run")
    return result
