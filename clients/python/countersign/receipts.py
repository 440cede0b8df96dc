"""Receipts: decoding and verifying the JWS (EdDSA) a consume answer carries.

Receipts and Ed25519
--------------------
A consume receipt is a compact JWS signed with EdDSA (Ed25519). **The Python
standard library has no Ed25519 implementation**, so this package cannot check
a receipt's signature on its own. What it does:

* ``decode_receipt(jws)`` returns the header and payload WITHOUT any
  verification (display and logging only);
* ``check_receipt_binding(payload, ...)`` checks the payload names the request,
  run, call, tool and digest you expect (this is not proof of origin);
* ``verify_receipt(jws, jwks, ed25519_verify)`` does all the JOSE work (alg
  check, key selection by ``kid``, base64url decoding, payload checks) and
  delegates the one signature operation to ``ed25519_verify(public_key,
  message, signature) -> bool`` that YOU supply from an Ed25519 library, e.g.
  ``cryptography`` (``Ed25519PublicKey.from_public_bytes(public_key).verify``)
  or PyNaCl. The JWKS is served at ``{base_url}/.well-known/jwks.json``
  (``CountersignClient.fetch_jwks()``).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ._checks import _CONSUMED_DECISIONS, _first_bad, _is_str, _is_str_list
from .errors import CountersignError

_RECEIPT_ALGORITHMS = ("EdDSA", "Ed25519")
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

    This checks CONTENT only; without ``verify_receipt`` it proves nothing
    about who issued the receipt.
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


Ed25519Verify = Callable[[bytes, bytes, bytes], bool]


def verify_receipt(
    jws: str,
    jwks: Mapping[str, Any],
    ed25519_verify: Ed25519Verify,
    **expected: Any,
) -> dict[str, Any]:
    """Verifies a receipt against a JWKS and returns its payload.

    The standard library has no Ed25519, so the signature check itself is done
    by ``ed25519_verify(public_key: bytes, message: bytes, signature: bytes)``,
    which must return True only for a valid signature (raising is also a
    refusal). Everything else is checked here: the ``alg`` header is EdDSA /
    Ed25519, the key is an OKP Ed25519 key of the JWKS (by ``kid``, or every
    candidate when there is no ``kid``), the payload has the contract's fields
    and matches ``expected`` (see ``check_receipt_binding``).
    """
    if not callable(ed25519_verify):
        raise TypeError("ed25519_verify is required: the standard library has no Ed25519")
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
        if verified:  # the binding is checked outside the try: its refusal must say why
            return check_receipt_binding(payload, **expected)
    raise _receipt_error("receipt signature does not verify", reason="signature")
