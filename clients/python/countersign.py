"""Countersign client for agent services (executors), standard library only.

Requires Python 3.11 or later and no third-party package. It offers the same
calls as the TypeScript client in ``lib/client``:

* ``args_digest(arguments, salt=None)`` / ``canonical_json(value)`` -- the
  digest of docs/api.md (RFC 8785, JSON Canonicalization Scheme), salted as it says
  (``new_args_salt()``, ``is_args_salt()``);
* ``sign_webhook`` / ``sign_webhook_headers`` / ``verify_webhook`` /
  ``generate_webhook_secret`` -- Standard Webhooks, strict verification;
* ``CountersignClient`` with ``request_approval``, ``get_approval``,
  ``wait_for_decision``, ``consume``, ``cancel`` -- sections 3 and 4;
* ``verify_callback`` -- section 5;
* ``denial_reason(result)`` -- why a request was denied, from the ``reviews``
  (every vote, in order: ``{"by", "vote", "reason", "at"}``) that the state
  and consume answers and the callback carry;
* receipts: ``decode_receipt``, ``check_receipt_binding`` and
  ``verify_receipt``.

Receipts and Ed25519
--------------------
A consume receipt is a compact JWS signed with EdDSA (Ed25519). **The Python
standard library has no Ed25519 implementation**, so this module cannot check
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

Numbers in arguments
--------------------
RFC 8785 serializes numbers as ECMAScript does for IEEE-754 doubles, and the
Countersign server (JavaScript) parses every JSON number into a double.

* ``int`` is accepted when ``-(2**53 - 1) <= n <= 2**53 - 1`` (RFC 7493, I-JSON,
  which the server enforces): these are exact doubles and print the same in
  both languages. Larger integers are REJECTED
  (``CanonicalJsonError`` reason ``"integer-out-of-range"``): the server would
  round them, so reviewers would see a value other than the one executed. Send
  such values as strings.
* ``float`` is accepted when finite (NaN and infinities are rejected). Its
  digits come from ``repr(float)``, which since Python 3.1 is the shortest
  string that round-trips, chosen closest to the exact value -- the same digit
  rule as ECMAScript's Number::toString -- and are laid out with ECMAScript's
  rules (``1e+21``, ``1e-7``, ``0.000001``, ``100000000000000000000``; ``-0.0``
  is ``0``). This was checked against Node.js on the RFC 8785 Appendix B
  samples and on a large sample of random doubles, but it is not a proof.
* ``bool`` is JSON true/false, never a number. ``decimal.Decimal`` and other
  number types are rejected.

Other values: ``dict`` (``str`` keys only), ``list`` and ``tuple``, ``str``
(lone surrogates rejected), ``None``. Anything else raises
``CanonicalJsonError``.
"""

from __future__ import annotations

import base64
import binascii
import email.utils
import hashlib
import hmac
import http.client
import json
import math
import re
import secrets as _secrets
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any, NamedTuple

__all__ = [
    "CONTRACT_ERROR_CODES",
    "CanonicalJsonError",
    "CountersignClient",
    "CountersignError",
    "MAX_WAIT_SECONDS",
    "MAX_WEBHOOK_BODY_BYTES",
    "VerifyResult",
    "WEBHOOK_TOLERANCE_SECONDS",
    "args_digest",
    "canonical_json",
    "is_args_salt",
    "new_args_salt",
    "check_receipt_binding",
    "decode_receipt",
    "decode_webhook_secret",
    "denial_reason",
    "generate_webhook_id",
    "generate_webhook_secret",
    "sign_webhook",
    "sign_webhook_headers",
    "verify_callback",
    "verify_receipt",
    "verify_webhook",
]

# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

#: Error codes of the contract's HTTP answers (sections 3 and 4).
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


# --------------------------------------------------------------------------
# Argument digest: RFC 8785 (docs/api.md)
# --------------------------------------------------------------------------

_MAX_EXACT_INT = 2**53 - 1
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _jcs_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            raise CanonicalJsonError("lone-surrogate", "strings must not contain surrogate code points")
        escaped = _SHORT_ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _es_number(value: float) -> str:
    """ECMAScript Number::toString of a finite double."""
    if value == 0:
        return "0"  # covers -0.0
    sign = "-" if value < 0 else ""
    # repr gives the shortest digit string that round-trips, e.g. "123.45",
    # "1e+16", "5e-324", "1.5e-07": value = int(whole + fraction) * 10**(exp - len(fraction)).
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    scale = (int(exponent) if exponent else 0) - len(fraction)
    digits = (whole + fraction).lstrip("0")
    stripped = digits.rstrip("0")
    scale += len(digits) - len(stripped)
    digits = stripped
    # ECMAScript's k and n: value = digits * 10**(n - k), digits has no trailing zero.
    k = len(digits)
    n = k + scale
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        exp = f"e{'+' if e >= 0 else '-'}{abs(e)}"
        body = (digits if k == 1 else digits[0] + "." + digits[1:]) + exp
    return sign + body


def _jcs(value: Any, out: list[str], active: set[int]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_jcs_string(value))
    elif isinstance(value, int):
        if not -_MAX_EXACT_INT <= value <= _MAX_EXACT_INT:
            raise CanonicalJsonError(
                "integer-out-of-range",
                "integers beyond +/-(2**53 - 1) are not I-JSON and Countersign refuses them; send a string",
            )
        out.append(str(int(value)))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalJsonError("non-finite-number", "NaN and infinities have no JSON form")
        out.append(_es_number(value))
    elif isinstance(value, Mapping):
        if id(value) in active:
            raise CanonicalJsonError("circular", "circular reference")
        active.add(id(value))
        members = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalJsonError("not-representable", "object keys must be strings")
            name = _jcs_string(key)  # rejects surrogates before the UTF-16 encoding below
            members.append((key.encode("utf-16-be"), name, item))
        # RFC 8785 orders members by the UTF-16 code units of their names;
        # big-endian UTF-16 bytes compare in that order.
        members.sort(key=lambda member: member[0])
        out.append("{")
        for index, (_, name, item) in enumerate(members):
            if index:
                out.append(",")
            out.append(name)
            out.append(":")
            _jcs(item, out, active)
        out.append("}")
        active.discard(id(value))
    elif isinstance(value, (list, tuple)):
        if id(value) in active:
            raise CanonicalJsonError("circular", "circular reference")
        active.add(id(value))
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _jcs(item, out, active)
        out.append("]")
        active.discard(id(value))
    else:
        raise CanonicalJsonError("not-representable", f"values of type {type(value).__name__} have no JSON form here")


def canonical_json(value: Any) -> str:
    """RFC 8785 canonical JSON text of ``value`` (see the module notes on numbers)."""
    out: list[str] = []
    try:
        _jcs(value, out, set())
    except RecursionError:
        raise CanonicalJsonError("too-deep", "value is nested too deeply") from None
    return "".join(out)


_ARGS_SALT_PATTERN = re.compile(r"[A-Za-z0-9_-]{22,86}")
ARGS_SALT_BYTES = 32


def is_args_salt(value: Any) -> bool:
    """True for a well-formed ``args_salt`` (docs/security.md): 16-64 bytes
    as unpadded base64url, in its canonical spelling."""
    if not isinstance(value, str) or not _ARGS_SALT_PATTERN.fullmatch(value):
        return False
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    return 16 <= len(raw) <= 64 and base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") == value


def new_args_salt() -> str:
    """A fresh random salt for one tool call: 32 bytes, unpadded base64url."""
    return base64.urlsafe_b64encode(_secrets.token_bytes(ARGS_SALT_BYTES)).decode("ascii").rstrip("=")


def args_digest(arguments: Mapping[str, Any], salt: str | None = None) -> str:
    """``"sha256:" + lowercase hex SHA-256 of the UTF-8 RFC 8785 form`` of a JSON
    object, with ``salt + "."`` in front of that form when a salt is given (section 19)."""
    if not isinstance(arguments, Mapping):
        raise CanonicalJsonError("not-an-object", "arguments must be a JSON object (a dict)")
    if salt is not None and not is_args_salt(salt):
        raise ValueError("args_salt must be 16-64 bytes as unpadded base64url")
    text = canonical_json(arguments)
    if salt is not None:
        text = f"{salt}.{text}"
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


_args_digest = args_digest  # for methods whose parameter is named args_digest
_REMEMBERED_SALTS = 10_000


# --------------------------------------------------------------------------
# Standard Webhooks
# --------------------------------------------------------------------------

WEBHOOK_SECRET_PREFIX = "whsec_"
#: Accepted clock skew either way, in seconds (docs/api.md).
WEBHOOK_TOLERANCE_SECONDS = 300

_TIMESTAMP_RE = re.compile(r"[0-9]{1,15}")
_WEBHOOK_ID_RE = re.compile(r"[\x20-\x7e]{1,256}")
_BASE64_RE = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


class VerifyResult(NamedTuple):
    """``ok`` and, when not ok, ``reason``: "missing-headers", "bad-timestamp", "stale" or "bad-signature"."""

    ok: bool
    reason: str | None = None


def decode_webhook_secret(secret: str) -> bytes:
    """The HMAC key of a ``whsec_<base64>`` secret; ``ValueError`` if malformed."""
    if not isinstance(secret, str) or not secret.startswith(WEBHOOK_SECRET_PREFIX):
        raise ValueError(f'webhook secret must start with "{WEBHOOK_SECRET_PREFIX}"')
    encoded = secret[len(WEBHOOK_SECRET_PREFIX) :]
    if not encoded or not _BASE64_RE.fullmatch(encoded):
        raise ValueError("webhook secret is not valid base64 after its prefix")
    key = base64.b64decode(encoded, validate=True)
    if not key:
        raise ValueError("webhook secret is empty")
    return key


def generate_webhook_secret() -> str:
    """``"whsec_"`` + base64 of 32 bytes from the operating system's CSPRNG."""
    return WEBHOOK_SECRET_PREFIX + base64.b64encode(_secrets.token_bytes(32)).decode("ascii")


def generate_webhook_id() -> str:
    """A fresh webhook-id: ``"msg_"`` + 24 random base64url characters."""
    return "msg_" + _secrets.token_urlsafe(18)


def _as_bytes(body: bytes | bytearray | memoryview | str) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise TypeError("webhook body must be str or bytes")


def _timestamp_text(timestamp: int | datetime) -> str:
    if isinstance(timestamp, datetime):
        timestamp = math.floor(timestamp.timestamp())
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise ValueError("webhook timestamp must be whole Unix seconds")
    text = str(timestamp)
    if not _TIMESTAMP_RE.fullmatch(text):
        raise ValueError("webhook timestamp must be a non-negative whole number of Unix seconds")
    return text


def _mac(key: bytes, msg_id: str, timestamp: str, body: bytes) -> bytes:
    return hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256).digest()


def sign_webhook(secret: str, msg_id: str, timestamp: int | datetime, body: bytes | str) -> str:
    """The ``webhook-signature`` value ``v1,<base64>`` over ``{id}.{timestamp}.`` + body bytes."""
    if not isinstance(msg_id, str) or not _WEBHOOK_ID_RE.fullmatch(msg_id):
        raise ValueError("webhook id must be 1-256 printable ASCII characters")
    key = decode_webhook_secret(secret)
    mac = _mac(key, msg_id, _timestamp_text(timestamp), _as_bytes(body))
    return "v1," + base64.b64encode(mac).decode("ascii")


def sign_webhook_headers(
    secret: str | Iterable[str],
    body: bytes | str,
    msg_id: str | None = None,
    timestamp: int | datetime | None = None,
) -> dict[str, str]:
    """The three headers for sending ``body``; several secrets give one ``v1,`` entry each."""
    secret_list = [secret] if isinstance(secret, str) else list(secret)
    if not secret_list:
        raise ValueError("at least one webhook secret is required")
    msg_id = msg_id or generate_webhook_id()
    ts = _timestamp_text(int(time.time()) if timestamp is None else timestamp)
    signature = " ".join(sign_webhook(s, msg_id, int(ts), body) for s in secret_list)
    return {"webhook-id": msg_id, "webhook-timestamp": ts, "webhook-signature": signature}


def _header(headers: Any, name: str) -> str | None:
    """A header by case-insensitive name; a repeated header counts as absent."""
    if headers is None:
        return None
    if hasattr(headers, "get_all"):  # email.message.Message / http.client.HTTPMessage
        values = headers.get_all(name) or []
        return values[0] if len(values) == 1 and isinstance(values[0], str) else None
    matches = [value for key, value in headers.items() if isinstance(key, str) and key.lower() == name]
    return matches[0] if len(matches) == 1 and isinstance(matches[0], str) else None


def verify_webhook(
    secrets: Iterable[str],
    headers: Mapping[str, str] | Any | None,
    raw_body: bytes,
    now: float | None = None,
    tolerance: int = WEBHOOK_TOLERANCE_SECONDS,
) -> VerifyResult:
    """Strict Standard Webhooks verification of the exact body bytes received.

    The timestamp must be 1-15 ASCII digits and within ``tolerance`` seconds of
    ``now``; the id 1-256 printable ASCII characters; only ``v1,`` entries of the
    space-separated signature count; a match under any secret passes; the
    comparison is constant-time. A malformed configured secret raises ValueError.
    """
    keys = [decode_webhook_secret(s) for s in secrets]
    if not isinstance(raw_body, (bytes, bytearray, memoryview)):
        raise TypeError("raw_body must be the raw body bytes")
    body = bytes(raw_body)
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signature or not _WEBHOOK_ID_RE.fullmatch(msg_id):
        return VerifyResult(False, "missing-headers")
    if not _TIMESTAMP_RE.fullmatch(timestamp):
        return VerifyResult(False, "bad-timestamp")
    current = math.floor(time.time() if now is None else now)
    if abs(current - int(timestamp)) > tolerance:
        return VerifyResult(False, "stale")
    candidates = [entry[3:].encode("utf-8") for entry in signature.split(" ") if entry.startswith("v1,")]
    if not candidates or not keys:
        return VerifyResult(False, "bad-signature")
    matched = False
    for key in keys:
        expected = base64.b64encode(_mac(key, msg_id, timestamp, body))
        for candidate in candidates:
            if len(candidate) == len(expected) and hmac.compare_digest(candidate, expected):
                matched = True
    return VerifyResult(True) if matched else VerifyResult(False, "bad-signature")


# --------------------------------------------------------------------------
# Callbacks (docs/api.md)
# --------------------------------------------------------------------------

_FINAL_DECISIONS = ("approved", "denied", "expired", "cancelled")
_CONSUMED_DECISIONS = ("approved", "denied", "expired")


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_review_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict)
        and isinstance(item.get("by"), str)
        and item.get("vote") in ("approve", "deny")
        and (item.get("reason", _MISSING) is None or isinstance(item.get("reason"), str))
        and isinstance(item.get("at"), str)
        for item in value
    )


def denial_reason(result: Mapping[str, Any]) -> str | None:
    """Why a request was denied, in the denying reviewer's words: the reason of
    the last "deny" vote in ``result["reviews"]`` (a consume answer, a state or
    a callback's ``data``), or None when no one denied it or gave no reason.
    The text is the reviewer's: show it to the user as a quote."""
    for review in reversed(result.get("reviews") or []):
        if review.get("vote") == "deny":
            return review.get("reason")
    return None


def _first_bad(body: Any, checks: Mapping[str, Callable[[Any], bool]]) -> str | None:
    if not isinstance(body, dict):
        return "(body)"
    for field, check in checks.items():
        if not check(body.get(field, _MISSING)):
            return field
    return None


_MISSING = object()


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


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


# --------------------------------------------------------------------------
# Receipts (docs/api.md)
# --------------------------------------------------------------------------

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
            if ed25519_verify(public_key, message, signature) is True:
                return check_receipt_binding(payload, **expected)
        except Exception:  # noqa: BLE001 - a library raising means "invalid"
            continue
    raise _receipt_error("receipt signature does not verify", reason="signature")


# --------------------------------------------------------------------------
# HTTP client (docs/api.md)
# --------------------------------------------------------------------------

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
    ) -> dict[str, Any]:
        """Sends a signed ``approval.requested`` webhook with a salted digest;
        returns the 201 (new) or 200 (replayed) body plus the ``args_salt`` sent.
        The salt is fresh per call and reused when this client asks again for the
        same run and call; pass ``args_salt`` only to resend a call from another
        process. Raises CanonicalJsonError for arguments with no RFC 8785 form,
        CountersignError "too-large" (status 0) before sending a body over 256 KiB."""
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
        """The request's state; ``wait`` (integer 0-30) long-polls while pending."""
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
        ``denial_reason(answer)`` is the reviewer's reason."""
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
            },
        )

    def cancel(self, approval_id: str, timeout: float | None = None) -> dict[str, Any]:
        """Withdraws a pending request; 409 "already-decided" otherwise."""
        path = f"/api/v1/approvals/{urllib.parse.quote(approval_id, safe='')}/cancel"
        answer = self._send("POST", path, self._auth(), b"", timeout)
        result = self._accept(answer, (200,), {"status": lambda v: v == "cancelled"})
        result.setdefault("approval_id", approval_id)
        return result

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
