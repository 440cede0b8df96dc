"""Execution reports: the digest of a tool call's result (docs/executions.md).

After an approved call ran, its executor reports once how it went
(``CountersignClient.report_execution``; the approval port does it with
``ApprovalPort.report_execution`` and ``ApprovalPort.run``). The report carries
a digest of the result, never the result::

    result_digest = "sha256:" + hex(SHA-256(UTF-8(salt + "." + JCS(value))))

salted with the call's ``args_salt`` (which Countersign never shows anyone),
so the digest, which reviewers and admins see, cannot confirm a guessed
result. ``value`` is the tool's result made JSON, or ``{"error": <the
exception's class name>}`` when the tool raised. The TypeScript client's
``resultDigest`` computes the same digest for the same JSON value.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from .digest import canonical_json, is_args_salt
from .errors import CanonicalJsonError

_MAX_EXACT_INT = 2**53 - 1


def error_class_name(error: BaseException | str) -> str:
    """The class name a failed call's digest names: ``type(error).__name__``
    ("ValueError", "PaymentDeclined"), or the string itself when given one."""
    return error if isinstance(error, str) else type(error).__name__


def result_value(result: Any) -> Any:
    """``result`` as the JSON value its digest covers; never raises.

    JSON values stay as they are (``dict`` with ``str`` keys, ``list`` and
    ``tuple``, ``str``, finite ``float``, ``int`` up to 2**53 - 1, ``bool``,
    ``None`` as null), inside containers too. What JSON has no form for becomes
    its string form, ``str(value)``: NaN and the infinities (as "NaN",
    "Infinity" and "-Infinity", the JavaScript spelling), larger integers, and
    any other object (a ``datetime``, a ``Decimal``, a ``set``, an instance of
    your own class); a container that holds itself too. Keys that are not
    strings are spelled as ``json.dumps`` spells them ("1", "true", "null").
    Lone surrogates in strings become U+FFFD.
    """
    try:
        return _json_value(result, set())
    except Exception:  # noqa: BLE001 - a container that fails to iterate, nesting too deep, ...
        return _string_form(result)


def result_digest(result: Any, salt: str, *, error: BaseException | str | None = None) -> str:
    """The digest of a tool call's outcome, for the execution report.

    ``error`` given (the exception the tool raised, or its class name): the
    digest of ``{"error": <class name>}``, whatever ``result`` is. Otherwise
    the digest of ``result_value(result)``. ``salt`` is the call's
    ``args_salt`` (``request_approval`` returns it; the approval port keeps it
    in ``PortDecision``). Raises ValueError for a malformed salt only.
    """
    if not is_args_salt(salt):
        raise ValueError("the salt must be the call's args_salt: 16-64 bytes as unpadded base64url")
    value = {"error": error_class_name(error)} if error is not None else result_value(result)
    try:
        text = canonical_json(value)
    except CanonicalJsonError:  # nested deeper than canonical_json goes
        text = canonical_json(_string_form(result))
    return "sha256:" + hashlib.sha256(f"{salt}.{text}".encode("utf-8")).hexdigest()


def format_finished_at(moment: datetime | None = None) -> str:
    """``moment`` (default: now) as the report's ``finished_at``: ISO 8601 in
    UTC with milliseconds and ``Z``. A naive datetime is refused (ValueError):
    its time zone is anybody's guess."""
    if moment is None:
        moment = datetime.now(timezone.utc)
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("finished_at must be a timezone-aware datetime (e.g. datetime.now(timezone.utc))")
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _string_form(value: Any) -> str:
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a broken __str__ still gets a digest
        text = f"<{type(value).__name__}>"
    return _well_formed(text)


def _well_formed(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (canonical JSON refuses them)."""
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        return text
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _well_formed(key)
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    if isinstance(key, float):
        return _float_value(key) if not math.isfinite(key) else repr(key)
    return _string_form(key)


def _float_value(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _json_value(value: Any, active: set[int]) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _well_formed(value)
    if isinstance(value, int):
        return int(value) if -_MAX_EXACT_INT <= value <= _MAX_EXACT_INT else str(int(value))
    if isinstance(value, float):
        return _float_value(float(value))
    if isinstance(value, (Mapping, list, tuple)):
        if id(value) in active:
            return _string_form(value)
        active.add(id(value))
        try:
            if isinstance(value, Mapping):
                return {_key(key): _json_value(item, active) for key, item in value.items()}
            return [_json_value(item, active) for item in value]
        finally:
            active.discard(id(value))
    return _string_form(value)
