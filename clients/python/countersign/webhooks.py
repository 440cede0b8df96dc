"""Standard Webhooks: secrets, signing and strict verification.

Used by the client to sign ``approval.requested`` and by ``verify_callback``
to check ``approval.decided``; also usable on its own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import re
import secrets as _secrets
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

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
