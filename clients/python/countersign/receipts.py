"""Receipts: decoding and verifying the JWS (EdDSA) a consume answer carries.

Receipts and Ed25519
--------------------
A consume receipt is a compact JWS signed with EdDSA (Ed25519). The Python
standard library has no Ed25519, so the one signature operation is a function
you pass: the package's own pure-Python ``countersign.ed25519_verify``
(verification only), or one from a library, e.g. ``cryptography``
(``Ed25519PublicKey.from_public_bytes(public_key).verify``) or PyNaCl. What
this module does:

* ``decode_receipt(jws)`` returns the header and payload WITHOUT any
  verification (display and logging only);
* ``check_receipt_binding(payload, ...)`` checks the payload's fields and that
  it names the request, run, call, tool and digest you expect (this is not
  proof of origin);
* ``verify_receipt(jws, jwks, ed25519_verify)`` does all the JOSE work (alg
  check, key selection by ``kid``, base64url decoding, payload checks,
  expiry) and delegates the signature check to ``ed25519_verify(public_key,
  message, signature) -> bool``. The JWKS is served at
  ``{base_url}/.well-known/jwks.json`` (``CountersignClient.fetch_jwks()``);
* ``verify_receipt_offline(jws, jwks, passkeys=None)`` checks a kept receipt
  as evidence, and with ``passkeys`` the approvers' passkey assertions it
  carries (``countersign.passkeys``).

What a receipt says
-------------------
Besides the binding and the decision, a receipt names when it was issued and
until when it may be acted on (``iat``, ``exp``: whole Unix seconds), the
policy that matched (``policy``: ``{"name", "version"}``), and the audit
event of the consume (``audit_seq``, and ``audit_head``, the chain's hash
after it), plus ``standing_approval`` when one decided and ``assertions``
(the approvers' passkey assertions) when the policy required passkeys.
``verify_receipt`` refuses an expired receipt (``now > exp + clock_tolerance``)
unless ``allow_expired=True``; ``verify_receipt_offline`` is the evidence
check of a kept receipt, expired or not.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from ._ed25519 import ed25519_verify as _builtin_ed25519_verify
from ._checks import _CONSUMED_DECISIONS, _MISSING, _first_bad, _is_int, _is_str, _is_str_list
from .errors import CountersignError
from .passkeys import SignatureVerifier, verify_receipt_assertions

_RECEIPT_ALGORITHMS = ("EdDSA", "Ed25519")
#: Seconds a receipt is still accepted after its ``exp``, for clocks that differ.
RECEIPT_CLOCK_TOLERANCE_SECONDS = 30.0
_B64URL_RE = re.compile(r"[A-Za-z0-9_-]+")
_AUDIT_HEAD_RE = re.compile(r"[0-9a-f]{64}")
#: The fields that bind a receipt to one call and its outcome.
RECEIPT_BINDING_FIELDS = ("approval_id", "service", "run_id", "call_id", "tool", "args_digest", "decision")


def _is_b64url(value: Any) -> bool:
    return isinstance(value, str) and _B64URL_RE.fullmatch(value) is not None


def _is_policy(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and _is_int(value.get("version"))
        and value["version"] >= 0
    )


def _is_assertion(value: Any) -> bool:
    """One approver's passkey assertion (docs: the receipt's ``assertions``)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("reviewer"), str)
        and isinstance(value.get("nonce"), str)
        and isinstance(value.get("reason"), str)
        and all(
            _is_b64url(value.get(key))
            for key in ("credential_id", "authenticator_data", "client_data_json", "signature")
        )
    )


_RECEIPT_CHECKS: dict[str, Callable[[Any], bool]] = {
    "approval_id": _is_str,
    "service": _is_str,
    "run_id": _is_str,
    "call_id": _is_str,
    "tool": _is_str,
    "args_digest": _is_str,
    "decision": lambda v: v in _CONSUMED_DECISIONS,
    "decided_by": _is_str_list,
    "decided_at": _is_str,
    "consumed_at": _is_str,
    "iat": _is_int,
    "exp": _is_int,
    "policy": _is_policy,
    "audit_seq": lambda v: _is_int(v) and v >= 1,
    "audit_head": lambda v: isinstance(v, str) and _AUDIT_HEAD_RE.fullmatch(v) is not None,
    # Optional: only when a standing approval decided, only when the policy required passkeys.
    "standing_approval": lambda v: v is _MISSING or isinstance(v, str),
    "assertions": lambda v: v is _MISSING or (isinstance(v, list) and all(_is_assertion(item) for item in v)),
}


def _receipt_error(message: str, reason: str | None = None) -> CountersignError:
    return CountersignError("invalid-receipt", 0, message, reason=reason)


def _b64url_decode(part: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", part):
        raise _receipt_error("receipt is not base64url")
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        raise _receipt_error("receipt is not base64url") from None


def decode_receipt(jws: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(header, payload)`` of a receipt WITHOUT verifying its signature.

    Use for display or logging only; see ``verify_receipt`` for evidence.
    """
    parts = jws.split(".") if isinstance(jws, str) else []
    if len(parts) != 3:
        raise _receipt_error("receipt is not a compact JWS")
    try:
        header = json.loads(_b64url_decode(parts[0]).decode("utf-8"))
        payload = json.loads(_b64url_decode(parts[1]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _receipt_error("receipt header or payload is not JSON") from None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise _receipt_error("receipt header or payload is not a JSON object")
    return header, payload


def check_receipt_binding(payload: Mapping[str, Any], **expected: Any) -> dict[str, Any]:
    """Checks a receipt payload has the contract's fields and that each given
    field (``approval_id``, ``service``, ``run_id``, ``call_id``, ``tool``,
    ``args_digest``, ``decision``) equals the expected value.

    The fields checked: the binding and the decision, ``decided_by``,
    ``decided_at``, ``consumed_at``, ``iat`` and ``exp`` (integers),
    ``policy`` (``{"name": str, "version": int >= 0}``; 0 names a definition
    set before versions were kept), ``audit_seq`` (an integer from 1), ``audit_head`` (64 lower-case hex digits), and when
    present ``standing_approval`` (a string) and ``assertions`` (a list of
    ``{"reviewer", "credential_id", "nonce", "reason", "authenticator_data",
    "client_data_json", "signature"}``, the binary ones base64url). A receipt
    without the fields added in issue 19 (``iat`` and after) is refused. This
    checks CONTENT only, not expiry; without ``verify_receipt`` it proves
    nothing about who issued the receipt.
    """
    bad = _first_bad(payload, _RECEIPT_CHECKS)
    if bad is not None:
        raise _receipt_error(f"receipt payload field {bad} is missing or invalid", reason=bad)
    for field, value in expected.items():
        if field not in _RECEIPT_CHECKS:
            raise TypeError(f"unknown receipt field {field!r}")
        if value is not None and payload.get(field) != value:
            raise _receipt_error(f"receipt {field} does not match the expected value", reason=field)
    return dict(payload)


def _check_expiry(payload: Mapping[str, Any], now: float | None, clock_tolerance: float) -> None:
    """Refuses a receipt past its ``exp`` by more than ``clock_tolerance`` seconds."""
    current = time.time() if now is None else now
    exp = payload.get("exp")
    if not isinstance(exp, int) or isinstance(exp, bool):
        raise _receipt_error("receipt payload field exp is missing or invalid", reason="exp")
    if current > exp + clock_tolerance:
        raise _receipt_error(
            f"receipt expired {int(current - exp)} seconds ago (exp {exp}); the call must not run on it",
            reason="expired",
        )


Ed25519Verify = Callable[[bytes, bytes, bytes], bool]


def verify_receipt(
    jws: str,
    jwks: Mapping[str, Any],
    ed25519_verify: Ed25519Verify,
    *,
    allow_expired: bool = False,
    clock_tolerance: float = RECEIPT_CLOCK_TOLERANCE_SECONDS,
    now: float | None = None,
    **expected: Any,
) -> dict[str, Any]:
    """Verifies a receipt against a JWKS and returns its payload.

    In this order: the signature, the payload's fields (``check_receipt_binding``),
    the ``expected`` fields, then expiry. The signature check itself is done by
    ``ed25519_verify(public_key: bytes, message: bytes, signature: bytes)``
    (``countersign.ed25519_verify``, or one from an Ed25519 library), which
    must return True only for a valid signature (raising is also a refusal).
    Everything else is checked here: the ``alg`` header is EdDSA / Ed25519, the
    key is an OKP Ed25519 key of the JWKS (by ``kid``, or every candidate when
    there is no ``kid``), the payload has the contract's fields and matches
    ``expected``, and the receipt has not expired: ``now`` (Unix seconds,
    default the current time) later than ``exp + clock_tolerance`` (30 seconds
    by default) raises CountersignError "invalid-receipt" with ``reason``
    "expired" and "expired" in its message. Pass ``allow_expired=True`` to
    check a kept receipt as evidence after its ``exp`` (or use
    ``verify_receipt_offline``). Every refusal is "invalid-receipt", with a
    ``reason``: "alg", "crit", "jwks", "no-key", "signature", "expired", or the
    payload field that is missing, invalid or not the expected one.
    """
    if not callable(ed25519_verify):
        raise TypeError("ed25519_verify is required (countersign.ed25519_verify, or one from an Ed25519 library)")
    header, payload = decode_receipt(jws)
    if header.get("alg") not in _RECEIPT_ALGORITHMS:
        raise _receipt_error("receipt is not signed with EdDSA", reason="alg")
    if "crit" in header:
        raise _receipt_error("receipt has unsupported critical header parameters", reason="crit")
    kid = header.get("kid")
    keys = jwks.get("keys") if isinstance(jwks, Mapping) else None
    if not isinstance(keys, list):
        raise _receipt_error("the JWKS is malformed", reason="jwks")
    candidates = []
    for jwk in keys:
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            continue
        if kid is not None and jwk.get("kid") != kid:
            continue
        if jwk.get("use") not in (None, "sig") or jwk.get("alg") not in (None, *_RECEIPT_ALGORITHMS):
            continue
        if "d" in jwk:
            continue  # never trust a private key in a public key set
        public_key = _b64url_decode(jwk.get("x", "")) if isinstance(jwk.get("x"), str) else b""
        if len(public_key) == 32:
            candidates.append(public_key)
    if not candidates:
        raise _receipt_error("no Ed25519 key of the JWKS matches the receipt", reason="no-key")
    head, body, signature_part = jws.split(".")
    message = f"{head}.{body}".encode("ascii")
    signature = _b64url_decode(signature_part)
    if len(signature) != 64:
        raise _receipt_error("receipt signature has the wrong length", reason="signature")
    for public_key in candidates:
        try:
            verified = ed25519_verify(public_key, message, signature) is True
        except Exception:  # noqa: BLE001 - a library raising means "invalid"
            continue
        if verified:  # the payload is checked outside the try: its refusal must say why
            checked = check_receipt_binding(payload, **expected)
            if not allow_expired:
                _check_expiry(checked, now, clock_tolerance)
            return checked
    raise _receipt_error("receipt signature does not verify", reason="signature")


def verify_receipt_offline(
    jws: str,
    jwks: Mapping[str, Any],
    passkeys: Mapping[str, Any] | None = None,
    *,
    origin: str | None = None,
    rp_id: str | None = None,
    require_assertions: bool = False,
    verify_signature: SignatureVerifier | None = None,
    ed25519_verify: Ed25519Verify | None = None,
) -> dict[str, Any]:
    """The evidence check of a kept receipt, without Countersign: its
    signature against ``jwks`` (the key set as served at
    ``/.well-known/jwks.json``, which keeps the keys before a rotation) and its
    payload's fields; expired receipts are accepted (this is not a decision to
    run anything). Returns the payload; raises CountersignError
    "invalid-receipt" as ``verify_receipt`` does. ``ed25519_verify`` defaults
    to the package's own.

    ``passkeys`` is for the approvers' passkey assertions a receipt carries
    when its policy required passkeys: reviewer email -> list of passkeys
    (``{"credential_id", "public_key" (COSE, base64url), "alg", ...}``, or with
    a ``jwk``), as ``GET /api/v1/reviewers/{email}/passkeys`` lists them.
    Given ``passkeys``, every assertion is checked
    (``verify_receipt_assertions``, with ``origin``, ``rp_id`` and
    ``verify_signature``), and any failure raises "invalid-receipt" with
    ``reason`` "assertions" and every failure in the message; call
    ``verify_receipt_assertions(payload, passkeys)`` for the result of each
    assertion. A receipt without assertions is returned as it is, unless
    ``require_assertions=True`` (for requests whose policy requires passkeys:
    the receipt must then carry them). Without ``passkeys`` the assertions
    are only shape-checked, as part of the payload, and the passkey options
    are refused (``TypeError``) rather than ignored.
    """
    if passkeys is None:
        if origin is not None or rp_id is not None or require_assertions or verify_signature is not None:
            raise TypeError("origin, rp_id, require_assertions and verify_signature need passkeys")
    elif not isinstance(passkeys, Mapping):
        raise TypeError("passkeys must map reviewer emails to their passkeys, or be None")
    payload = verify_receipt(jws, jwks, ed25519_verify or _builtin_ed25519_verify, allow_expired=True)
    if passkeys is None or (not payload.get("assertions") and not require_assertions):
        return payload
    check = verify_receipt_assertions(payload, passkeys, origin=origin, rp_id=rp_id, verify_signature=verify_signature)
    if not check.ok:
        raise _receipt_error(
            "receipt passkey assertions do not verify: " + "; ".join(check.failures), reason="assertions"
        )
    return payload
