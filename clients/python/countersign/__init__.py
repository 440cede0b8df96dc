"""Countersign client for agent services (executors), standard library only.

Requires Python 3.11 or later and no third-party package. It offers the same
calls as the TypeScript client in ``lib/client``:

* ``args_digest(arguments, salt=None)`` / ``canonical_json(value)`` -- the
  digest of docs/api.md (RFC 8785, JSON Canonicalization Scheme), salted as it says
  (``new_args_salt()``, ``is_args_salt()``);
* ``sign_webhook`` / ``sign_webhook_headers`` / ``verify_webhook`` /
  ``generate_webhook_secret`` -- Standard Webhooks, strict verification;
* ``CountersignClient`` with ``request_approval``, ``get_approval``,
  ``wait_for_decision``, ``consume``, ``cancel``, ``report_execution`` -- the
  webhook and the executor API;
* ``verify_callback`` -- the ``approval.decided`` and ``approval.executed``
  callbacks;
* ``denial_reason(result)`` -- why a request was denied, from the ``reviews``
  (every vote, in order: ``{"by", "vote", "reason", "at"}``) that the state
  and consume answers and the callback carry;
* receipts: ``decode_receipt``, ``check_receipt_binding``,
  ``verify_receipt`` (refuses expired receipts) and ``verify_receipt_offline``
  (evidence checks of kept receipts, with their passkey assertions when given
  the reviewers' passkeys);
* passkeys: ``vote_challenge``, ``verify_assertion``,
  ``verify_receipt_assertions`` (the passkey assertions a receipt carries,
  checked offline), ``cose_key_to_jwk`` and ``passkey_public_key``; ES256 and
  RS256 need the optional ``cryptography`` package (the ``passkeys`` extra),
  EdDSA does not;
* ``result_digest`` -- the salted digest of a tool's result that an execution
  report carries;
* ``ApprovalPort`` / ``PortDecision`` -- the approval port for Python
  executors: request, wait, consume once, verify the receipt, allow or deny,
  failing closed; it follows revisions (``PortRevision``,
  ``revision_call_id``), and reports how an allowed call ran
  (``report_execution``, ``run``);
* ``apply_json_patch`` / ``JsonPatchError`` / ``parse_json_pointer`` /
  ``format_json_pointer`` -- the JSON Patch subset (RFC 6902 add, remove,
  replace) of a reviewer's proposed changes.

The package is split by concern; import from ``countersign`` itself, the
submodules are an implementation detail:

* ``errors`` -- ``CountersignError``, ``CanonicalJsonError``, the error codes;
* ``digest`` -- canonical JSON, ``args_digest`` and salts (with the notes on
  numbers in arguments);
* ``webhooks`` -- Standard Webhooks signing and verification;
* ``http_client`` / ``http_answers`` -- ``CountersignClient`` and its HTTP
  plumbing;
* ``callbacks`` -- ``verify_callback``;
* ``executions`` -- ``result_digest``;
* ``reviews`` -- ``denial_reason``;
* ``receipts`` -- receipts, and why Ed25519 is yours to supply;
* ``passkeys`` / ``_cose`` -- WebAuthn assertions and the COSE keys of passkeys;
* ``json_patch`` -- the JSON Patch subset;
* ``approval_port`` -- the approval port, which checks receipt signatures
  with ``ed25519_verify``, a pure-Python Ed25519 verifier (also usable as
  ``verify_receipt(jws, jwks, ed25519_verify)``).
"""

from __future__ import annotations

from ._ed25519 import ed25519_verify
from .approval_port import ApprovalPort, PortDecision, PortRevision, revision_call_id
from .callbacks import verify_callback
from .digest import args_digest, canonical_json, is_args_salt, new_args_salt
from .errors import CONTRACT_ERROR_CODES, CanonicalJsonError, CountersignError
from .executions import result_digest
from .http_answers import MAX_WAIT_SECONDS, MAX_WEBHOOK_BODY_BYTES
from .http_client import CountersignClient
from .json_patch import JsonPatchError, apply_json_patch, format_json_pointer, parse_json_pointer
from ._cose import CoseKeyError, cose_key_to_jwk
from .passkeys import (
    COSE_ALGORITHMS,
    AssertionCheck,
    ReceiptAssertionResult,
    ReceiptAssertionsCheck,
    SignatureVerifier,
    passkey_public_key,
    verify_assertion,
    verify_receipt_assertions,
    vote_challenge,
)
from .receipts import (
    RECEIPT_CLOCK_TOLERANCE_SECONDS,
    check_receipt_binding,
    decode_receipt,
    verify_receipt,
    verify_receipt_offline,
)
from .reviews import denial_reason
from .webhooks import (
    WEBHOOK_TOLERANCE_SECONDS,
    VerifyResult,
    decode_webhook_secret,
    generate_webhook_id,
    generate_webhook_secret,
    sign_webhook,
    sign_webhook_headers,
    verify_webhook,
)

# Public names of the single-module client that were never in __all__: still
# importable from here, so nothing that used them breaks.
from .digest import ARGS_SALT_BYTES as ARGS_SALT_BYTES
from .errors import CLIENT_ERROR_CODES as CLIENT_ERROR_CODES
from .http_answers import parse_retry_after as parse_retry_after
from .receipts import Ed25519Verify as Ed25519Verify
from .webhooks import WEBHOOK_SECRET_PREFIX as WEBHOOK_SECRET_PREFIX

# The names of the single-module client, in the same order, after the approval port.
__all__ = [
    "ApprovalPort",
    "PortDecision",
    "ed25519_verify",
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
    # Revisions.
    "PortRevision",
    "revision_call_id",
    "JsonPatchError",
    "apply_json_patch",
    "format_json_pointer",
    "parse_json_pointer",
    # Execution reports and receipt expiry (issue 19).
    "RECEIPT_CLOCK_TOLERANCE_SECONDS",
    "result_digest",
    "verify_receipt_offline",
    # Passkey assertions in receipts, checked offline.
    "AssertionCheck",
    "COSE_ALGORITHMS",
    "CoseKeyError",
    "ReceiptAssertionResult",
    "ReceiptAssertionsCheck",
    "SignatureVerifier",
    "cose_key_to_jwk",
    "passkey_public_key",
    "verify_assertion",
    "verify_receipt_assertions",
    "vote_challenge",
]
