"""Argument digest: RFC 8785 canonical JSON, the SHA-256 ``args_digest`` and
its ``args_salt`` (docs/api.md, docs/security.md).

It must match the server byte for byte, so it lives on its own, with its
notes on numbers.

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
import hashlib
import math
import re
import secrets as _secrets
from collections.abc import Mapping
from typing import Any

from .errors import CanonicalJsonError

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
