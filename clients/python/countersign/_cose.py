"""COSE public keys (RFC 9052/9053) as JWKs, from their CBOR encoding (internal).

A passkey's public key is stored and listed as a COSE_Key: a CBOR map of
small integer labels. Only what WebAuthn authenticators produce is read:

* EC2 (kty 2): crv -1 (1 P-256, 2 P-384, 3 P-521), x -2, y -3 (uncompressed);
* OKP (kty 1): crv -1 6 (Ed25519), x -2;
* RSA (kty 3): n -1, e -2;

with the algorithm at label 3. The CBOR reader is bounded (the key's size,
the map's entries) and reads one flat map of integers, byte strings, text
strings and simple values; anything else (nested items, floats, tags,
indefinite lengths, duplicate labels, trailing bytes) is refused with
``CoseKeyError``.
"""

from __future__ import annotations

import base64
import re
from typing import Any

#: The largest COSE key read, in bytes (an RSA-4096 key takes about 540).
MAX_COSE_KEY_BYTES = 2048
_MAX_ENTRIES = 16
_EC2_CURVES = {1: ("P-256", 32), 2: ("P-384", 48), 3: ("P-521", 66)}


class CoseKeyError(ValueError):
    """A COSE key this package cannot read; the message says why."""


_B64URL_RE = re.compile(r"[A-Za-z0-9_-]*")


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: Any, max_chars: int | None = None) -> bytes:
    """Unpadded base64url text as bytes; ``ValueError`` for anything else."""
    if not isinstance(text, str) or _B64URL_RE.fullmatch(text) is None or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    if max_chars is not None and len(text) > max_chars:
        raise ValueError("too long")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, n: int) -> bytes:
        if n > len(self.data) - self.at:
            raise CoseKeyError("truncated CBOR")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def head(self) -> tuple[int, int, int]:
        """(major type, additional information, argument) of the next item."""
        first = self.take(1)[0]
        major, info = first >> 5, first & 31
        if info < 24:
            return major, info, info
        if info > 27:
            raise CoseKeyError("unsupported CBOR length (indefinite or reserved)")
        return major, info, int.from_bytes(self.take(1 << (info - 24)), "big")

    def scalar(self) -> Any:
        """An integer, a byte or text string, or false / true / null."""
        major, info, n = self.head()
        if major == 0:
            return n
        if major == 1:
            return -1 - n
        if major == 2:
            return self.take(n)
        if major == 3:
            try:
                return self.take(n).decode("utf-8")
            except UnicodeDecodeError:
                raise CoseKeyError("CBOR text is not UTF-8") from None
        if major == 7 and info < 24:
            if n in (20, 21, 22):
                return {20: False, 21: True, 22: None}[n]
        raise CoseKeyError("unsupported CBOR item in a COSE key")


def _decode_map(data: bytes) -> dict[Any, Any]:
    if len(data) > MAX_COSE_KEY_BYTES:
        raise CoseKeyError(f"COSE key is larger than {MAX_COSE_KEY_BYTES} bytes")
    reader = _Reader(data)
    major, _, count = reader.head()
    if major != 5:
        raise CoseKeyError("COSE key is not a CBOR map")
    if count > _MAX_ENTRIES:
        raise CoseKeyError("COSE key has too many entries")
    out: dict[Any, Any] = {}
    for _ in range(count):
        label = reader.scalar()
        if isinstance(label, bool) or not isinstance(label, (int, str)):
            raise CoseKeyError("COSE key label is not an integer or text")
        if label in out:
            raise CoseKeyError("COSE key repeats a label")
        out[label] = reader.scalar()
    if reader.at != len(data):
        raise CoseKeyError("trailing bytes after the COSE key")
    return out


def cose_key_to_jwk(cose: bytes | str) -> tuple[int, dict[str, str]]:
    """A COSE public key (bytes, or unpadded base64url text) as ``(alg, jwk)``:
    its COSE algorithm number and the same key as a public JWK
    (``{"kty": "EC", "crv", "x", "y"}``, ``{"kty": "OKP", "crv": "Ed25519",
    "x"}`` or ``{"kty": "RSA", "n", "e"}``). Raises ``CoseKeyError`` for
    anything else. Whether the algorithm fits the key is checked by the
    caller (``verify_assertion``).
    """
    if isinstance(cose, str):
        try:
            data = b64url_decode(cose, max_chars=MAX_COSE_KEY_BYTES * 2)
        except ValueError:
            raise CoseKeyError("COSE key is not unpadded base64url (or too large)") from None
    elif isinstance(cose, (bytes, bytearray, memoryview)):
        data = bytes(cose)
    else:
        raise CoseKeyError("COSE key must be bytes or base64url text")
    key = _decode_map(data)

    def raw(label: int, size: int | None = None) -> bytes:
        value = key.get(label)
        if not isinstance(value, bytes) or not value:
            raise CoseKeyError(f"COSE key parameter {label} is missing")
        if size is not None and len(value) != size:
            raise CoseKeyError(f"COSE key parameter {label} has the wrong length")
        return value

    alg = key.get(3)
    if isinstance(alg, bool) or not isinstance(alg, int):
        raise CoseKeyError("COSE key has no algorithm")
    kty = key.get(1)
    crv = key.get(-1)
    if kty == 2:
        if isinstance(crv, bool) or crv not in _EC2_CURVES:
            raise CoseKeyError("unsupported COSE EC2 curve")
        name, size = _EC2_CURVES[crv]
        return alg, {"kty": "EC", "crv": name, "x": _b64u(raw(-2, size)), "y": _b64u(raw(-3, size))}
    if kty == 1:
        if isinstance(crv, bool) or crv != 6:
            raise CoseKeyError("unsupported COSE OKP curve (only Ed25519)")
        return alg, {"kty": "OKP", "crv": "Ed25519", "x": _b64u(raw(-2, 32))}
    if kty == 3:
        return alg, {"kty": "RSA", "n": _b64u(raw(-1)), "e": _b64u(raw(-2))}
    raise CoseKeyError("unsupported COSE key type")
