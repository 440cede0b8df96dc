"""The approval port: one call in, allow or deny out, failing closed.

``ApprovalPort(client).ask(run_id=..., call_id=..., tool=..., arguments=...)``
requests approval through the signed webhook, long-polls the request's state,
consumes it once bound to the call (run, call, tool, salted digest), verifies
the receipt against the JWKS (signature, binding, ``exp`` when present) and
returns a ``PortDecision``. Anything but a verified approval is a denial: no
decision before the timeout (the request is then cancelled when possible), a
transport error, an answer outside the contract, a bad or mismatched receipt.

Replays. Countersign keeps one request per (run_id, call_id): sending the same
call again answers with the first request, and with other arguments it answers
409 "call-reused"; it never opens a second request for the same ids. So a call
asked again after its decision was consumed is denied ("replayed") -- the old
decision is never reused and the tool must not run again. A call asked again
before its decision was consumed (say the executor restarted) resumes the same
request and consumes it once. To really ask again, give the retry a new call id.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .digest import args_digest
from .errors import CanonicalJsonError, CountersignError
from .http_client import CountersignClient
from .receipts import Ed25519Verify, verify_receipt
from .reviews import denial_reason
from ._ed25519 import ed25519_verify as _builtin_ed25519_verify

_BINDING = ("run_id", "call_id", "tool", "args_digest")


@dataclass(frozen=True)
class PortDecision:
    """The port's answer. ``allowed`` is True only for a verified, consumed approval.

    ``code`` says why: "approved", "denied", "expired", "revised" (the reviewer
    proposed changes; run nothing), "replayed", "timeout", "invalid-receipt",
    "binding-mismatch", "invalid-arguments" (no JSON form), the
    ``CountersignError`` code of a failure, or "error" for anything else.
    ``reviews`` are the consume answer's votes; ``receipt`` is the verified
    payload and ``receipt_jws`` the evidence to keep.
    """

    allowed: bool
    code: str
    reason: str
    approval_id: str | None = None
    reviews: list[dict[str, Any]] = field(default_factory=list)
    receipt: dict[str, Any] | None = None
    receipt_jws: str | None = None

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
    show the review URL).
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
    ) -> None:
        self.client = client
        self.timeout = timeout
        self._verify = ed25519_verify or _builtin_ed25519_verify
        self._pinned_jwks = jwks
        self._jwks: Mapping[str, Any] | None = jwks
        self._raise = raise_errors
        self._on_request = on_request
        self._clock = clock

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
        try:
            created = self.client.request_approval(
                run_id=run_id, call_id=call_id, tool=tool, arguments=arguments, summary=summary,
                requested_by=requested_by, environment=environment, effects=effects,
                expires_in=expires_in, args_salt=args_salt,
            )
            approval_id = created["approval_id"]
            binding = {
                "run_id": run_id, "call_id": call_id, "tool": tool,
                "args_digest": args_digest(arguments, created["args_salt"]),
            }
            if created["args_digest"] != binding["args_digest"]:
                raise _Deny("binding-mismatch", "Countersign recorded another digest than this call's")
            if self._on_request is not None:
                self._on_request(created)
            return self._settle(approval_id, binding, timeout if timeout is not None else self.timeout)
        except _Deny as deny:
            return PortDecision(False, deny.code, deny.reason, approval_id)
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
            return PortDecision(False, code, f"approval failed, so the call is denied: {why}", approval_id)

    def _settle(self, approval_id: str, binding: dict[str, str], timeout: float) -> PortDecision:
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
        payload = self._check_receipt(approval_id, binding, taken)
        decision, reviews, jws = taken["decision"], taken["reviews"], taken["receipt"]
        if decision == "approved":
            by = ", ".join(taken["decided_by"]) or "a standing approval"
            return PortDecision(True, "approved", f"approved by {by}", approval_id, reviews, payload, jws)
        if decision == "denied":
            why = denial_reason(taken)
            reason = f"denied: {why}" if why else "denied by a reviewer"
        elif decision == "expired":
            reason = "the request expired before anyone decided"
        else:
            reason = f"not approved ({decision}); the call must not run"
        return PortDecision(False, decision, reason, approval_id, reviews, payload, jws)

    def _check_receipt(self, approval_id: str, binding: dict[str, str], taken: Mapping[str, Any]) -> dict[str, Any]:
        expected = {**binding, "approval_id": approval_id, "service": self.client.service_slug, "decision": taken["decision"]}
        jws = taken["receipt"]
        try:
            try:
                payload = verify_receipt(jws, self._keys(refresh=False), self._verify, **expected)
            except CountersignError as error:
                if error.reason != "no-key" or self._pinned_jwks is not None:
                    raise
                payload = verify_receipt(jws, self._keys(refresh=True), self._verify, **expected)  # keys rotated
        except CountersignError as error:
            raise _Deny("invalid-receipt", f"the receipt was refused: {error}") from None
        exp = payload.get("exp")
        if "exp" in payload and (not isinstance(exp, (int, float)) or isinstance(exp, bool) or exp <= self._clock()):
            raise _Deny("invalid-receipt", "the receipt has expired")
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
