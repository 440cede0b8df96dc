"""Passkey-attested votes (docs/passkeys.md), checked offline.

The same checks as the TypeScript client's ``voteChallenge``,
``verifyAssertion`` and ``verifyReceiptAssertions``:

* ``vote_challenge(...)`` -- the 32 bytes a vote's authenticator signed:
  SHA-256 of the UTF-8 RFC 8785 text of ``{approval_id, args_digest,
  decision, reason, reviewer, nonce}``;
* ``verify_assertion(assertion, public_key, challenge=...)`` -- one WebAuthn
  assertion: clientDataJSON is a ``webauthn.get`` over exactly this
  challenge (and, when given, this origin), authenticatorData is at least 37
  bytes (and, when given, its rpIdHash is SHA-256 of ``rp_id``), user presence
  (0x01) and user verification (0x04) are flagged, and the signature over
  authenticatorData || SHA-256(clientDataJSON) holds;
* ``verify_receipt_assertions(payload, passkeys)`` -- every assertion a
  receipt carries, with the challenge recomputed from the receipt's
  ``approval_id`` and ``args_digest``, ``"approve"`` and the entry's reason,
  reviewer and nonce; for an approved receipt, the assertions' reviewers must
  be its ``decided_by``, in order.

None of them raises for malformed input: a malformed assertion, key or
signature is a failure with a reason.

Signatures
----------
EdDSA (COSE -8, Ed25519) is checked with the package's own
``ed25519_verify``. ES256 (-7; also ES384 -35, ES512 -36: ECDSA with a DER
signature, as WebAuthn sends it) and RS256 (-257, RSASSA-PKCS1-v1_5) need the
``cryptography`` package, an optional dependency
(``pip install 'countersign[passkeys]'``); without it such an assertion
fails, with a reason that says so. Or pass
``verify_signature(alg, jwk, message, signature) -> bool``: it is then called
for EVERY assertion, whatever its algorithm (``alg`` the COSE number, ``jwk``
the public key as a JWK dict, ``signature`` as the authenticator made it),
and must return True only for a valid signature (raising is a refusal).

Passkeys
--------
A reviewer's passkeys are given as ``GET /api/v1/reviewers/{email}/passkeys``
lists them: ``{"credential_id", "public_key", "alg", ...}``, ``public_key``
the COSE key as unpadded base64url. When an entry has a ``jwk`` (a public
JWK: EC ``{"kty": "EC", "crv": "P-256", "x", "y"}``, OKP
``{"kty": "OKP", "crv": "Ed25519", "x"}``, or RSA ``{"kty": "RSA", "n",
"e"}``), it is used instead of the COSE key. The algorithm is the COSE key's
(an entry's ``alg`` must then be the same), else the entry's ``alg``, else
the one the JWK's key type implies; it must fit the key (ES256 a P-256 key,
EdDSA an Ed25519 key, ...).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ._cose import b64url_decode, cose_key_to_jwk
from ._ed25519 import ed25519_verify
from .digest import canonical_json

#: COSE algorithm numbers this module verifies.
COSE_ALGORITHMS: Mapping[str, int] = {"ES256": -7, "EdDSA": -8, "ES384": -35, "ES512": -36, "RS256": -257}
_ALG_NAMES = {number: name for name, number in COSE_ALGORITHMS.items()}
# COSE algorithm -> (JWK kty, curve or None, hash or None).
_ALG_KEYS: dict[int, tuple[str, str | None, str | None]] = {
    -7: ("EC", "P-256", "sha256"),
    -35: ("EC", "P-384", "sha384"),
    -36: ("EC", "P-521", "sha512"),
    -8: ("OKP", "Ed25519", None),
    -257: ("RSA", None, "sha256"),
}
_EC_SIZES = {"P-256": 32, "P-384": 48, "P-521": 66}
_INSTALL_HINT = "pip install 'countersign[passkeys]' (or cryptography), or pass verify_signature="

#: ``verify_signature(alg, jwk, message, signature) -> bool``.
SignatureVerifier = Callable[[int, dict[str, str], bytes, bytes], bool]


class AssertionCheck(NamedTuple):
    """One assertion's check: ``ok`` and, when not ok, ``reason`` (worded for a person)."""

    ok: bool
    reason: str | None = None


class ReceiptAssertionResult(NamedTuple):
    """One receipt assertion's result (``reviewer`` and ``credential_id`` "" when malformed)."""

    reviewer: str
    credential_id: str
    ok: bool
    reason: str | None = None


class ReceiptAssertionsCheck(NamedTuple):
    """``ok``, one result per assertion in the receipt's order, and every failure (empty when ok)."""

    ok: bool
    assertions: list[ReceiptAssertionResult]
    failures: list[str]


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def vote_challenge(
    *, approval_id: str, args_digest: str, decision: str, reason: str, reviewer: str, nonce: str
) -> bytes:
    """SHA-256(UTF-8(JCS({approval_id, args_digest, decision, reason, reviewer,
    nonce}))): the 32 bytes a vote's authenticator signs. ``decision`` is
    "approve" or "deny", ``reason`` the vote's reason ("" when none),
    ``reviewer`` the reviewer's email, ``nonce`` the server's single-use nonce.
    Raises ``TypeError`` for a field that is not a string, ``ValueError`` for
    another decision (and ``CanonicalJsonError``, a ``ValueError``, for text
    with lone surrogates).
    """
    fields = {
        "approval_id": approval_id,
        "args_digest": args_digest,
        "decision": decision,
        "reason": reason,
        "reviewer": reviewer,
        "nonce": nonce,
    }
    for name, value in fields.items():
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string")
    if decision not in ("approve", "deny"):
        raise ValueError('decision must be "approve" or "deny"')
    return hashlib.sha256(canonical_json(fields).encode("utf-8")).digest()


# ---- public keys ----


def _public_jwk(jwk: Any) -> dict[str, str]:
    """The public members of a JWK this module can use; ``ValueError`` otherwise."""
    if not isinstance(jwk, Mapping):
        raise ValueError("the jwk is not an object")
    if "d" in jwk:
        raise ValueError("the jwk is a private key")
    kty, crv = jwk.get("kty"), jwk.get("crv")

    def member(name: str, size: int | None = None) -> str:
        value = jwk.get(name)
        try:
            raw = b64url_decode(value, max_chars=4096)
        except ValueError:
            raise ValueError(f"the jwk's {name} is not unpadded base64url") from None
        if not raw or (size is not None and len(raw) != size):
            raise ValueError(f"the jwk's {name} has the wrong length")
        assert isinstance(value, str)
        return value

    if kty == "EC" and isinstance(crv, str) and crv in _EC_SIZES:
        size = _EC_SIZES[crv]
        return {"kty": "EC", "crv": crv, "x": member("x", size), "y": member("y", size)}
    if kty == "OKP" and crv == "Ed25519":
        return {"kty": "OKP", "crv": "Ed25519", "x": member("x", 32)}
    if kty == "RSA":
        return {"kty": "RSA", "n": member("n"), "e": member("e")}
    raise ValueError("unsupported jwk (EC P-256/P-384/P-521, OKP Ed25519 or RSA)")


def _alg_number(hint: Any) -> int | None:
    if hint is None:
        return None
    if isinstance(hint, str) and hint in COSE_ALGORITHMS:
        return COSE_ALGORITHMS[hint]
    if isinstance(hint, int) and not isinstance(hint, bool):
        return hint
    raise ValueError(f"unsupported algorithm {hint!r}")


def _implied_alg(jwk: Mapping[str, str]) -> int:
    if jwk["kty"] == "EC":
        return {"P-256": -7, "P-384": -35, "P-521": -36}[jwk["crv"]]
    return -8 if jwk["kty"] == "OKP" else -257


def passkey_public_key(key: str | bytes | Mapping[str, Any]) -> tuple[int, dict[str, str]]:
    """A passkey's public key as ``(alg, jwk)``: the COSE algorithm number and
    a public JWK. ``key`` is a COSE key (bytes, or unpadded base64url text), a
    JWK (a mapping with ``kty``), or a passkey as the reviewers' passkeys
    route lists it (its ``jwk`` when present, else its COSE ``public_key``).
    Raises ``ValueError`` for a key that cannot be used, or whose algorithm
    does not fit it.
    """
    if isinstance(key, (str, bytes, bytearray, memoryview)):
        alg, jwk = cose_key_to_jwk(key)
    elif isinstance(key, Mapping):
        if "kty" in key:
            jwk = _public_jwk(key)
            named = _alg_number(key.get("alg"))
            alg = _implied_alg(jwk) if named is None else named
        elif key.get("jwk") is not None:
            jwk = _public_jwk(key["jwk"])
            hint = key.get("alg") if key.get("alg") is not None else key["jwk"].get("alg")
            named = _alg_number(hint)
            alg = _implied_alg(jwk) if named is None else named
        elif isinstance(key.get("public_key"), str):
            alg, jwk = cose_key_to_jwk(key["public_key"])
            listed = _alg_number(key.get("alg"))
            if listed is not None and listed != alg:
                raise ValueError(f"the passkey's alg {listed} is not its COSE key's ({alg})")
        else:
            raise ValueError("the passkey has neither a jwk nor a COSE public_key")
    else:
        raise ValueError("the public key is not a COSE key, a JWK or a passkey")
    if alg not in _ALG_KEYS:
        raise ValueError(f"unsupported COSE algorithm {alg}")
    kty, crv, _ = _ALG_KEYS[alg]
    if jwk["kty"] != kty or (crv is not None and jwk.get("crv") != crv):
        raise ValueError(f"COSE algorithm {alg} ({_ALG_NAMES[alg]}) does not fit the key")
    return alg, jwk


# ---- signatures ----


def _cryptography_verify(alg: int, jwk: Mapping[str, str], message: bytes, signature: bytes) -> AssertionCheck:
    """ECDSA and RSA through the optional ``cryptography`` package."""
    try:
        # An optional dependency: type-checks with or without it.
        from cryptography.exceptions import InvalidSignature  # type: ignore[import-not-found, unused-ignore]
        from cryptography.hazmat.primitives import hashes  # type: ignore[import-not-found, unused-ignore]
        from cryptography.hazmat.primitives.asymmetric import (  # type: ignore[import-not-found, unused-ignore]
            ec,
            padding,
            rsa,
        )
    except ImportError:
        return AssertionCheck(False, f"{_ALG_NAMES[alg]} signatures need the cryptography package: {_INSTALL_HINT}")
    hash_name = _ALG_KEYS[alg][2]
    digest: hashes.HashAlgorithm = (
        hashes.SHA384() if hash_name == "sha384" else hashes.SHA512() if hash_name == "sha512" else hashes.SHA256()
    )
    try:
        if jwk["kty"] == "EC":
            curves: dict[str, ec.EllipticCurve] = {
                "P-256": ec.SECP256R1(),
                "P-384": ec.SECP384R1(),
                "P-521": ec.SECP521R1(),
            }
            curve = curves[jwk["crv"]]
            point = b"\x04" + b64url_decode(jwk["x"]) + b64url_decode(jwk["y"])
            ec_key = ec.EllipticCurvePublicKey.from_encoded_point(curve, point)
        else:
            n = int.from_bytes(b64url_decode(jwk["n"]), "big")
            e = int.from_bytes(b64url_decode(jwk["e"]), "big")
            rsa_key = rsa.RSAPublicNumbers(e, n).public_key()
    except (ValueError, TypeError) as error:
        return AssertionCheck(False, f"the public key cannot be used: {error}")
    try:
        if jwk["kty"] == "EC":
            ec_key.verify(signature, message, ec.ECDSA(digest))
        else:
            rsa_key.verify(signature, message, padding.PKCS1v15(), digest)
    except (InvalidSignature, ValueError, TypeError):
        return AssertionCheck(False, "the signature does not verify")
    return AssertionCheck(True)


def _check_signature(
    alg: int, jwk: dict[str, str], message: bytes, signature: bytes, verify_signature: SignatureVerifier | None
) -> AssertionCheck:
    if verify_signature is not None:
        try:
            good = verify_signature(alg, dict(jwk), message, signature) is True
        except Exception as error:  # noqa: BLE001 - a verifier raising means "invalid"
            return AssertionCheck(False, f"the signature does not verify ({type(error).__name__}: {error})")
        return AssertionCheck(True) if good else AssertionCheck(False, "the signature does not verify")
    if alg == -8:
        good = ed25519_verify(b64url_decode(jwk["x"]), message, signature)
        return AssertionCheck(True) if good else AssertionCheck(False, "the signature does not verify")
    return _cryptography_verify(alg, jwk, message, signature)


# ---- one assertion ----


def verify_assertion(
    assertion: Mapping[str, Any],
    public_key: str | bytes | Mapping[str, Any],
    *,
    challenge: bytes,
    origin: str | None = None,
    rp_id: str | None = None,
    verify_signature: SignatureVerifier | None = None,
) -> AssertionCheck:
    """One WebAuthn assertion (``{"authenticator_data", "client_data_json",
    "signature"}``, unpadded base64url) against a public key (see
    ``passkey_public_key``): clientDataJSON is a ``webauthn.get`` over exactly
    ``challenge`` (the 32 bytes of ``vote_challenge``), from ``origin`` when
    given; authenticatorData has at least 37 bytes, its rpIdHash is SHA-256 of
    ``rp_id`` when given, and it flags user presence and user verification;
    the signature over authenticatorData || SHA-256(clientDataJSON) holds.
    Never raises for malformed input: that is an ``AssertionCheck`` with
    ``ok`` False and a ``reason``.
    """
    if not isinstance(challenge, (bytes, bytearray)):
        raise TypeError("challenge must be bytes (vote_challenge(...))")
    try:
        if not isinstance(assertion, Mapping):
            return AssertionCheck(False, "the assertion cannot be read: it is not an object")
        try:
            client_data = b64url_decode(assertion.get("client_data_json"))
            auth_data = b64url_decode(assertion.get("authenticator_data"))
            signature = b64url_decode(assertion.get("signature"))
        except ValueError:
            return AssertionCheck(False, "the assertion cannot be read: its binary fields are not unpadded base64url")
        try:
            parsed = json.loads(client_data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return AssertionCheck(False, "clientDataJSON is not JSON")
        if not isinstance(parsed, dict) or parsed.get("type") != "webauthn.get":
            return AssertionCheck(False, "clientDataJSON is not an assertion (type)")
        if parsed.get("challenge") != _b64u(bytes(challenge)):
            return AssertionCheck(False, "the assertion answers another challenge")
        if origin is not None and parsed.get("origin") != origin:
            return AssertionCheck(False, "the assertion was made for another origin")
        if len(auth_data) < 37:
            return AssertionCheck(False, "authenticatorData is too short")
        if rp_id is not None and auth_data[:32] != hashlib.sha256(rp_id.encode("utf-8")).digest():
            return AssertionCheck(False, "the assertion was made for another relying party")
        flags = auth_data[32]
        if not flags & 0x01:
            return AssertionCheck(False, "user presence is not flagged")
        if not flags & 0x04:
            return AssertionCheck(False, "user verification is not flagged")
        try:
            alg, jwk = passkey_public_key(public_key)
        except (ValueError, TypeError) as error:  # CoseKeyError is a ValueError
            return AssertionCheck(False, f"the public key cannot be used: {error}")
        signed = auth_data + hashlib.sha256(client_data).digest()
        return _check_signature(alg, jwk, signed, signature, verify_signature)
    except Exception as error:  # noqa: BLE001 - never raises: a malformed input is a failure
        return AssertionCheck(False, f"the assertion cannot be read: {type(error).__name__}: {error}")


# ---- a receipt's assertions ----

_SHAPE_LIMITS = {
    "reviewer": 320,
    "credential_id": 1024,
    "nonce": 256,
    "authenticator_data": 65536,
    "client_data_json": 65536,
    "signature": 8192,
    "reason": 8000,
}


def _assertion_shape(entry: Any) -> bool:
    return isinstance(entry, Mapping) and all(
        isinstance(entry.get(name), str) and len(entry[name]) <= limit for name, limit in _SHAPE_LIMITS.items()
    )


def _find_passkey(passkeys: Mapping[str, Any], reviewer: str, credential_id: str) -> Mapping[str, Any] | None:
    listed = passkeys.get(reviewer)
    if not isinstance(listed, (list, tuple)):
        return None
    for passkey in listed:
        if isinstance(passkey, Mapping) and passkey.get("credential_id") == credential_id:
            return passkey
    return None


def verify_receipt_assertions(
    payload: Mapping[str, Any],
    passkeys: Mapping[str, Any],
    *,
    origin: str | None = None,
    rp_id: str | None = None,
    verify_signature: SignatureVerifier | None = None,
) -> ReceiptAssertionsCheck:
    """Checks every assertion a receipt's payload carries (docs/passkeys.md)
    against the reviewers' passkeys (email -> list of passkeys, as
    ``GET /api/v1/reviewers/{email}/passkeys`` lists them; removed ones
    included, their old votes still verify). The challenge is recomputed from
    the payload's ``approval_id`` and ``args_digest``, "approve", and the
    entry's ``reason``, ``reviewer`` and ``nonce``; the passkey is the
    reviewer's one with the entry's ``credential_id``. For an approved
    receipt, the assertions' reviewers must be ``decided_by``, in order. A
    payload without assertions fails ("the receipt carries no passkey
    assertions").

    Verify the receipt's own signature first (``verify_receipt`` /
    ``verify_receipt_offline``); this checks what it carries. ``origin`` and
    ``rp_id`` are checked when given (Countersign's own ``receipt verify``
    does not: ``APP_URL`` may have changed since the vote). Never raises for
    malformed input; returns ``ReceiptAssertionsCheck(ok, assertions,
    failures)``.
    """
    if not isinstance(passkeys, Mapping):
        raise TypeError("passkeys must map reviewer emails to their passkeys")
    if not isinstance(payload, Mapping):
        return ReceiptAssertionsCheck(False, [], ["the receipt payload is not an object"])
    items = payload.get("assertions")
    if not isinstance(items, list) or not items:
        return ReceiptAssertionsCheck(False, [], ["the receipt carries no passkey assertions"])
    results: list[ReceiptAssertionResult] = []
    failures: list[str] = []
    for number, entry in enumerate(items, start=1):
        if not _assertion_shape(entry):
            failures.append(f"assertion {number} is malformed")
            results.append(ReceiptAssertionResult("", "", False, "malformed"))
            continue
        reviewer, credential_id = entry["reviewer"], entry["credential_id"]
        passkey = _find_passkey(passkeys, reviewer, credential_id)
        if passkey is None:
            check = AssertionCheck(False, "no such passkey for this reviewer")
        else:
            try:
                challenge = vote_challenge(
                    approval_id=payload.get("approval_id"),  # type: ignore[arg-type]  # checked there
                    args_digest=payload.get("args_digest"),  # type: ignore[arg-type]
                    decision="approve",
                    reason=entry["reason"],
                    reviewer=reviewer,
                    nonce=entry["nonce"],
                )
            except (TypeError, ValueError) as error:
                check = AssertionCheck(False, f"the challenge cannot be computed: {error}")
            else:
                check = verify_assertion(
                    entry, passkey, challenge=challenge, origin=origin, rp_id=rp_id, verify_signature=verify_signature
                )
        results.append(ReceiptAssertionResult(reviewer, credential_id, check.ok, check.reason))
        if not check.ok:
            failures.append(f"assertion {number} ({reviewer}): {check.reason}")
    if payload.get("decision") == "approved":
        decided_by = payload.get("decided_by")
        if [r.reviewer for r in results] != (decided_by if isinstance(decided_by, list) else []):
            failures.append("the assertions' reviewers are not the receipt's decided_by, in order")
    return ReceiptAssertionsCheck(not failures, results, failures)

