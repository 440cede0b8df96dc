"""Tests of the offline passkey checks (countersign.passkeys, docs/passkeys.md):
the vote challenge, COSE keys, one WebAuthn assertion and a receipt's
assertions, with real keys and signatures made here by the ``cryptography``
package (ES256 on P-256, EdDSA on Ed25519, RS256), public keys given both as
COSE keys (CBOR written here) and as JWKs, and a vector made by the
TypeScript client (Node)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import time
import unittest
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402
from test_approval_port import issued, jwks_of, make_receipt  # noqa: E402  (the tests' Ed25519 receipt signer)

try:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

    HAVE_CRYPTOGRAPHY = True
except ImportError:  # the package works without it; these tests need it to make keys
    HAVE_CRYPTOGRAPHY = False

needs_cryptography = unittest.skipUnless(HAVE_CRYPTOGRAPHY, "the cryptography package makes the test keys")

RP_ID = "countersign.example"
ORIGIN = "https://countersign.example"
HERE = os.path.dirname(os.path.abspath(__file__))


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def flip(text: str, index: int) -> str:
    """The base64url of the same bytes with one bit of byte ``index`` changed."""
    raw = bytearray(unb64u(text))
    raw[index] ^= 0x01
    return b64u(bytes(raw))


# ---- CBOR, written here independently of the package's reader ----


def cbor_head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([(major << 5) | n])
    if n < 256:
        return bytes([(major << 5) | 24, n])
    if n < 65536:
        return bytes([(major << 5) | 25]) + n.to_bytes(2, "big")
    return bytes([(major << 5) | 26]) + n.to_bytes(4, "big")


def cbor_item(value: int | bytes | str) -> bytes:
    if isinstance(value, int):
        return cbor_head(0, value) if value >= 0 else cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return cbor_head(2, len(value)) + value
    data = value.encode()
    return cbor_head(3, len(data)) + data


def cbor_map(entries: list[tuple[int, int | bytes | str]]) -> bytes:
    return cbor_head(5, len(entries)) + b"".join(cbor_item(k) + cbor_item(v) for k, v in entries)


# ---- authenticators ----


class Authenticator:
    """A software authenticator: one key pair, its COSE key and JWK, and assertions made the WebAuthn way."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        if kind == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            numbers = self.private.public_key().public_numbers()
            x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
            self.cose = cbor_map([(1, 2), (3, -7), (-1, 1), (-2, x), (-3, y)])
            self.jwk = {"kty": "EC", "crv": "P-256", "x": b64u(x), "y": b64u(y)}
            self.alg = -7
        elif kind == "EdDSA":
            self.private = ed25519.Ed25519PrivateKey.generate()
            x = self.private.public_key().public_bytes_raw()
            self.cose = cbor_map([(1, 1), (3, -8), (-1, 6), (-2, x)])
            self.jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64u(x)}
            self.alg = -8
        elif kind == "RS256":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            numbers = self.private.public_key().public_numbers()
            n = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
            e = numbers.e.to_bytes(3, "big")
            self.cose = cbor_map([(1, 3), (3, -257), (-1, n), (-2, e)])
            self.jwk = {"kty": "RSA", "n": b64u(n), "e": b64u(e)}
            self.alg = -257
        else:
            raise ValueError(kind)
        self.credential_id = b64u(hashlib.sha256(self.cose).digest()[:16])

    def passkey(self, as_jwk: bool = False) -> dict[str, Any]:
        """The passkey as GET /api/v1/reviewers/{email}/passkeys lists it (with ``jwk`` when asked)."""
        entry: dict[str, Any] = {"credential_id": self.credential_id, "public_key": b64u(self.cose), "alg": self.alg,
                                 "name": "laptop", "created_at": "2026-12-01T09:00:00.000Z", "removed_at": None}
        if as_jwk:
            entry["jwk"] = dict(self.jwk)
        return entry

    def sign(self, data: bytes) -> bytes:
        if self.kind == "ES256":
            return self.private.sign(data, ec.ECDSA(hashes.SHA256()))  # DER, as WebAuthn sends it
        if self.kind == "RS256":
            return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())
        return self.private.sign(data)

    def assert_(self, challenge: bytes, *, flags: int = 0x05, rp_id: str = RP_ID, origin: str = ORIGIN,
                kind: str = "webauthn.get") -> dict[str, str]:
        client_data = json.dumps({"type": kind, "challenge": b64u(challenge), "origin": origin,
                                  "crossOrigin": False}).encode()
        auth_data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + (42).to_bytes(4, "big")
        signature = self.sign(auth_data + hashlib.sha256(client_data).digest())
        return {"authenticator_data": b64u(auth_data), "client_data_json": b64u(client_data),
                "signature": b64u(signature)}


APPROVAL_ID = "apr_pk_1"
ARGS_DIGEST = "sha256:" + "2" * 64
FIELDS = {"approval_id": APPROVAL_ID, "args_digest": ARGS_DIGEST, "decision": "approve", "reason": "invoice checked",
          "reviewer": "ana@example.com", "nonce": "n-1"}


def receipt_assertion(auth: Authenticator, reviewer: str, *, reason: str = "", nonce: str = "n",
                      approval_id: str = APPROVAL_ID, args_digest: str = ARGS_DIGEST, **options: Any) -> dict[str, str]:
    """A receipt's assertion entry, signed over the challenge of these fields."""
    challenge = cs.vote_challenge(approval_id=approval_id, args_digest=args_digest, decision="approve",
                                  reason=reason, reviewer=reviewer, nonce=nonce)
    return {"reviewer": reviewer, "credential_id": auth.credential_id, "nonce": nonce, "reason": reason,
            **auth.assert_(challenge, **options)}


# ---- a vector made by the TypeScript client ----
# Made with Node (node:crypto keys, P-256 and Ed25519) and packages/client's voteChallenge, which
# verifyReceiptAssertions (packages/client/dist) answered {"ok": true} for, with origin and rpId.
NODE_PAYLOAD: dict[str, Any] = {
    "approval_id": "apr_node_1",
    "args_digest": "sha256:" + "7" * 64,
    "decision": "approved",
    "decided_by": ["ana@example.com", "bo@example.com"],
    "assertions": [
        {
            "reviewer": "ana@example.com",
            "credential_id": "Sola4UR7R_GEqzIpuPa7rQ",
            "nonce": "nonce-ana-1",
            "reason": "checked the invoice \u2014 ok \u2713",
            "authenticator_data": "oIjK1jFlm31kuwdBhp6k3lr9H9egHJ6HmyWsRpiwmSkFAAAABw",
            "client_data_json": (
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiR0p0dUZ6R0lOelpyS3hlRjJ0RTROcGY4Q0txZWVNUHpiVFJHdWEt"
                "X2MwMCIsIm9yaWdpbiI6Imh0dHBzOi8vY291bnRlcnNpZ24uZXhhbXBsZSIsImNyb3NzT3JpZ2luIjpmYWxzZX0"
            ),
            "signature": (
                "MEQCICuDdDbbDupG8Q0zBfH_SdPHKZwuhQIfAWyB5mUijW17AiBI6tntmVIvWk62FUOBeqeJzQrV8YhEmm-2Q3k-4tlCNw"
            ),
        },
        {
            "reviewer": "bo@example.com",
            "credential_id": "XC-IbI9UYPzrgd6tjQu0QQ",
            "nonce": "nonce-bo-1",
            "reason": "",
            "authenticator_data": "oIjK1jFlm31kuwdBhp6k3lr9H9egHJ6HmyWsRpiwmSkFAAAABw",
            "client_data_json": (
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiQVR0ZDVQVXhfSEZ6UFpWa2FPYmxzRnhaT2lUc2dMUXFvSjFGMTNG"
                "b3RNTSIsIm9yaWdpbiI6Imh0dHBzOi8vY291bnRlcnNpZ24uZXhhbXBsZSIsImNyb3NzT3JpZ2luIjpmYWxzZX0"
            ),
            "signature": (
                "9_bp-K370X9_IMAGX-dE_68dxXkMGdTRFdhQW_mc1zvpMsVNYJQT5Vqv_y8e7djqPpotURAJw-CFgoV4dIJSBA"
            ),
        },
    ],
}
NODE_PASSKEYS = {
    "ana@example.com": [{"credential_id": "Sola4UR7R_GEqzIpuPa7rQ", "alg": -7, "public_key": (
        "pQECAyYgASFYIByjd6TZ_0YBthEwyUZudL3YkgUEBdBfQ-Ov7M6PArFHIlggoKxV6dulKOMDoLDCpaXqTQUp1ZKqk_6wynM3F5PDv14")}],
    "bo@example.com": [{"credential_id": "XC-IbI9UYPzrgd6tjQu0QQ", "alg": -8,
                        "public_key": "pAEBAycgBiFYIFH1eUK7hdQmMtzbSFU8TIcfWpUP6zVrcstlvfHRVA6a"}],
}
NODE_CHALLENGE_ANA = "GJtuFzGINzZrKxeF2tE4Npf8CKqeeMPzbTRGua-_c00"  # b64u(voteChallenge(...)) for ana's vote


class VoteChallengeTests(unittest.TestCase):
    def test_is_sha256_of_the_rfc8785_text_of_the_six_fields(self):
        text = ('{"approval_id":"apr_pk_1","args_digest":"sha256:' + "2" * 64 + '","decision":"approve",'
                '"nonce":"n-1","reason":"invoice checked","reviewer":"ana@example.com"}')
        self.assertEqual(cs.vote_challenge(**FIELDS), hashlib.sha256(text.encode()).digest())
        self.assertNotEqual(cs.vote_challenge(**{**FIELDS, "decision": "deny"}), cs.vote_challenge(**FIELDS))

    def test_matches_the_typescript_client(self):
        challenge = cs.vote_challenge(approval_id="apr_node_1", args_digest="sha256:" + "7" * 64, decision="approve",
                                      reason="checked the invoice \u2014 ok \u2713", reviewer="ana@example.com",
                                      nonce="nonce-ana-1")
        self.assertEqual(b64u(challenge), NODE_CHALLENGE_ANA)

    def test_refuses_what_is_not_a_vote(self):
        with self.assertRaises(ValueError):
            cs.vote_challenge(**{**FIELDS, "decision": "approved"})
        with self.assertRaises(TypeError):
            cs.vote_challenge(**{**FIELDS, "reason": None})
        with self.assertRaises(cs.CanonicalJsonError):
            cs.vote_challenge(**{**FIELDS, "reason": "\ud800"})


class TypeScriptVectorTests(unittest.TestCase):
    """Assertions made and verified by the TypeScript client verify here too."""

    @needs_cryptography
    def test_the_node_vector_verifies(self):
        check = cs.verify_receipt_assertions(NODE_PAYLOAD, NODE_PASSKEYS, origin=ORIGIN, rp_id=RP_ID)
        self.assertEqual(check, cs.ReceiptAssertionsCheck(True, [
            cs.ReceiptAssertionResult("ana@example.com", "Sola4UR7R_GEqzIpuPa7rQ", True),
            cs.ReceiptAssertionResult("bo@example.com", "XC-IbI9UYPzrgd6tjQu0QQ", True)], []))
        changed = json.loads(json.dumps(NODE_PAYLOAD))
        changed["assertions"][0]["reason"] = "checked the invoice"
        check = cs.verify_receipt_assertions(changed, NODE_PASSKEYS)
        self.assertEqual(check.failures, ["assertion 1 (ana@example.com): the assertion answers another challenge"])

    def test_without_cryptography_es256_fails_with_a_reason_and_eddsa_still_verifies(self):
        # A fresh interpreter in which "cryptography" cannot be imported, as on a machine without it.
        script = (
            "import importlib.abc, json, sys\n"
            "class Block(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'cryptography' or name.startswith('cryptography.'):\n"
            "            raise ImportError('no cryptography here')\n"
            "sys.meta_path.insert(0, Block())\n"
            f"sys.path.insert(0, {HERE!r})\n"
            "import countersign as cs\n"
            "payload, passkeys = json.load(sys.stdin)\n"
            "print(json.dumps(cs.verify_receipt_assertions(payload, passkeys)))\n"
        )
        done = subprocess.run([sys.executable, "-c", script], input=json.dumps([NODE_PAYLOAD, NODE_PASSKEYS]),
                              capture_output=True, text=True, timeout=60, check=True)
        ok, results, failures = json.loads(done.stdout)
        self.assertFalse(ok)
        self.assertEqual(results[1], ["bo@example.com", "XC-IbI9UYPzrgd6tjQu0QQ", True, None])
        self.assertFalse(results[0][2])
        self.assertIn("ES256 signatures need the cryptography package", results[0][3])
        self.assertIn("countersign[passkeys]", results[0][3])
        self.assertIn("verify_signature", results[0][3])
        self.assertEqual(len(failures), 1)


class CoseKeyTests(unittest.TestCase):
    @needs_cryptography
    def test_reads_the_keys_authenticators_make(self):
        for kind in ("ES256", "EdDSA", "RS256"):
            with self.subTest(kind):
                auth = Authenticator(kind)
                self.assertEqual(cs.cose_key_to_jwk(auth.cose), (auth.alg, auth.jwk))
                self.assertEqual(cs.cose_key_to_jwk(b64u(auth.cose)), (auth.alg, auth.jwk))
                self.assertEqual(cs.passkey_public_key(auth.passkey()), (auth.alg, auth.jwk))
                self.assertEqual(cs.passkey_public_key(auth.passkey(as_jwk=True)), (auth.alg, auth.jwk))
                self.assertEqual(cs.passkey_public_key(auth.jwk), (auth.alg, auth.jwk))

    def test_refuses_anything_else(self):
        x, y = bytes(range(32)), bytes(range(32, 64))
        good = [(1, 2), (3, -7), (-1, 1), (-2, x), (-3, y)]

        def with_y(item: bytes) -> bytes:  # the good key with another CBOR item as its y
            return bytes([0xA5]) + cbor_map(good[:-1])[1:] + cbor_item(-3) + item

        cases = {
            "not a map": cbor_item(b"\x01\x02"),
            "an array": bytes([0x82, 0x01, 0x02]),
            "truncated": cbor_map(good)[:-1],
            "trailing bytes": cbor_map(good) + b"\x00",
            "repeated label": cbor_map(good + [(3, -7)]),
            "nested map": with_y(bytes([0xA0])),
            "indefinite map": bytes([0xBF]) + b"".join(cbor_item(k) + cbor_item(v) for k, v in good) + b"\xff",
            "float": with_y(b"\xfa\x00\x00\x00\x00"),
            "tag": bytes([0xC0]) + cbor_map(good),
            "no algorithm": cbor_map([e for e in good if e[0] != 3]),
            "P-256 x too short": cbor_map([(1, 2), (3, -7), (-1, 1), (-2, x[:31]), (-3, y)]),
            "no y": cbor_map([(1, 2), (3, -7), (-1, 1), (-2, x)]),
            "unknown curve": cbor_map([(1, 2), (3, -7), (-1, 9), (-2, x), (-3, y)]),
            "X25519 OKP": cbor_map([(1, 1), (3, -8), (-1, 4), (-2, x)]),
            "symmetric key": cbor_map([(1, 4), (3, 5), (-1, x)]),
            "too many entries": cbor_map([(i, i) for i in range(17)]),
            "too large": cbor_map([(1, 3), (3, -257), (-1, b"\x01" * 3000), (-2, b"\x01\x00\x01")]),
            "empty": b"",
        }
        for name, data in cases.items():
            with self.subTest(name):
                with self.assertRaises(cs.CoseKeyError):
                    cs.cose_key_to_jwk(data)
        for text in ("pQECAyYgAS!", "pQECAyYgAS==", "a", 42):
            with self.assertRaises(cs.CoseKeyError):
                cs.cose_key_to_jwk(text)  # type: ignore[arg-type]

    @needs_cryptography
    def test_the_algorithm_must_fit_the_key(self):
        es, ed = Authenticator("ES256"), Authenticator("EdDSA")
        for key in ({**es.passkey(), "alg": -8},  # listed alg is not the COSE key's
                    {**es.passkey(as_jwk=True), "alg": -8},  # EdDSA with a P-256 key
                    {**ed.jwk, "alg": "ES256"},
                    cbor_map([(1, 2), (3, -8), (-1, 1), (-2, bytes(32)), (-3, bytes(32))]),
                    cbor_map([(1, 2), (3, -35), (-1, 1), (-2, bytes(32)), (-3, bytes(32))]),  # ES384 on P-256
                    cbor_map([(1, 1), (3, -7), (-1, 6), (-2, bytes(32))]),
                    cbor_map([(1, 2), (3, -9), (-1, 1), (-2, bytes(32)), (-3, bytes(32))]),  # unknown algorithm
                    {**es.jwk, "d": es.jwk["x"]},  # a private key
                    {"credential_id": "x"}):
            with self.subTest(key=repr(key)[:60]):
                with self.assertRaises(ValueError):
                    cs.passkey_public_key(key)


@needs_cryptography
class AssertionTests(unittest.TestCase):
    def setUp(self):
        self.challenge = cs.vote_challenge(**FIELDS)

    def check(self, assertion, key, **options):
        options.setdefault("challenge", self.challenge)
        return cs.verify_assertion(assertion, key, **options)

    def test_valid_assertions_pass_with_cose_and_jwk_keys(self):
        for kind in ("ES256", "EdDSA", "RS256"):
            auth = Authenticator(kind)
            assertion = auth.assert_(self.challenge)
            for key in (b64u(auth.cose), auth.cose, auth.passkey(), auth.passkey(as_jwk=True), auth.jwk):
                with self.subTest(kind=kind, key=type(key).__name__):
                    self.assertEqual(self.check(assertion, key, origin=ORIGIN, rp_id=RP_ID), cs.AssertionCheck(True))

    def test_one_changed_byte_anywhere_fails(self):
        auth = Authenticator("ES256")
        assertion = auth.assert_(self.challenge)
        for field in ("authenticator_data", "client_data_json", "signature"):
            for index in range(len(unb64u(assertion[field]))):
                with self.subTest(field=field, index=index):
                    self.assertFalse(self.check({**assertion, field: flip(assertion[field], index)}, auth.cose).ok)
        # Where nothing else notices the change, the signature does.
        origin_at = unb64u(assertion["client_data_json"]).index(b"countersign.example")
        for field, index in (("authenticator_data", 0), ("authenticator_data", 36),
                             ("client_data_json", origin_at), ("signature", 10)):
            self.assertEqual(self.check({**assertion, field: flip(assertion[field], index)}, auth.cose),
                             cs.AssertionCheck(False, "the signature does not verify"))

    def test_one_changed_byte_fails_for_eddsa(self):
        auth = Authenticator("EdDSA")
        assertion = auth.assert_(self.challenge)
        origin_at = unb64u(assertion["client_data_json"]).index(b"countersign.example")
        for field, index in (("authenticator_data", 0), ("authenticator_data", 36), ("client_data_json", origin_at),
                             ("signature", 0), ("signature", 40), ("signature", 63)):
            with self.subTest(field=field, index=index):
                self.assertEqual(self.check({**assertion, field: flip(assertion[field], index)}, auth.jwk),
                                 cs.AssertionCheck(False, "the signature does not verify"))

    def test_another_challenge_origin_or_relying_party_fails(self):
        auth = Authenticator("ES256")
        assertion = auth.assert_(self.challenge)
        other = cs.vote_challenge(**{**FIELDS, "decision": "deny"})
        self.assertEqual(self.check(assertion, auth.cose, challenge=other),
                         cs.AssertionCheck(False, "the assertion answers another challenge"))
        self.assertEqual(self.check(assertion, auth.cose, origin="https://evil.example"),
                         cs.AssertionCheck(False, "the assertion was made for another origin"))
        self.assertEqual(self.check(assertion, auth.cose, rp_id="evil.example"),
                         cs.AssertionCheck(False, "the assertion was made for another relying party"))
        # Not checked unless asked: an assertion from another origin and relying party still verifies.
        self.assertTrue(self.check(auth.assert_(self.challenge, rp_id="old.example", origin="https://old.example"),
                                   auth.cose).ok)

    def test_presence_verification_and_type(self):
        auth = Authenticator("EdDSA")
        self.assertEqual(self.check(auth.assert_(self.challenge, flags=0x01), auth.cose),
                         cs.AssertionCheck(False, "user verification is not flagged"))
        self.assertEqual(self.check(auth.assert_(self.challenge, flags=0x04), auth.cose),
                         cs.AssertionCheck(False, "user presence is not flagged"))
        self.assertTrue(self.check(auth.assert_(self.challenge, flags=0x45), auth.cose).ok)  # UP, UV, AT
        self.assertEqual(self.check(auth.assert_(self.challenge, kind="webauthn.create"), auth.cose),
                         cs.AssertionCheck(False, "clientDataJSON is not an assertion (type)"))

    def test_another_key_fails(self):
        for kind in ("ES256", "EdDSA", "RS256"):
            with self.subTest(kind):
                assertion = Authenticator(kind).assert_(self.challenge)
                self.assertEqual(self.check(assertion, Authenticator(kind).cose),
                                 cs.AssertionCheck(False, "the signature does not verify"))

    def test_malformed_input_fails_without_raising(self):
        auth = Authenticator("ES256")
        good = auth.assert_(self.challenge)
        unreadable = "the assertion cannot be read: its binary fields are not unpadded base64url"
        for field in ("authenticator_data", "client_data_json", "signature"):
            for bad in ("not base64!", good[field] + "=", "A", None, 42):
                with self.subTest(field=field, bad=bad):
                    self.assertEqual(self.check({**good, field: bad}, auth.cose), cs.AssertionCheck(False, unreadable))
        self.assertEqual(self.check({**good, "client_data_json": b64u(b"\xff{")}, auth.cose),
                         cs.AssertionCheck(False, "clientDataJSON is not JSON"))
        self.assertEqual(self.check({**good, "client_data_json": b64u(b"[1]")}, auth.cose),
                         cs.AssertionCheck(False, "clientDataJSON is not an assertion (type)"))
        self.assertEqual(self.check({**good, "client_data_json": b64u(b"[" * 100000)}, auth.cose),
                         cs.AssertionCheck(False, "clientDataJSON is not JSON"))
        self.assertEqual(self.check({**good, "authenticator_data": good["authenticator_data"][:48]}, auth.cose),
                         cs.AssertionCheck(False, "authenticatorData is too short"))
        self.assertEqual(self.check({**good, "signature": ""}, auth.cose),
                         cs.AssertionCheck(False, "the signature does not verify"))
        self.assertFalse(self.check(None, auth.cose).ok)  # type: ignore[arg-type]
        self.assertFalse(self.check(good, auth.cose, rp_id="\ud800").ok)
        for key in ("AAAA", b"", "!!", {"kty": "EC"}, {"jwk": "x"}, None, 42):
            with self.subTest(key=key):
                check = self.check(good, key)  # type: ignore[arg-type]
                self.assertFalse(check.ok)
                self.assertIn("public key", check.reason)
        # A point that is not on the curve.
        off_curve = {"kty": "EC", "crv": "P-256", "x": b64u(bytes(32)), "y": b64u(b"\x01" * 32)}
        self.assertIn("the public key cannot be used", self.check(good, off_curve).reason)

    def test_a_given_verify_signature_checks_every_signature(self):
        auth = Authenticator("ES256")
        assertion = auth.assert_(self.challenge)
        seen = []

        def verifier(alg, jwk, message, signature):
            seen.append((alg, jwk, message, signature))
            public = ec.EllipticCurvePublicNumbers(int.from_bytes(unb64u(jwk["x"]), "big"),
                                                   int.from_bytes(unb64u(jwk["y"]), "big"), ec.SECP256R1()).public_key()
            public.verify(signature, message, ec.ECDSA(hashes.SHA256()))  # raises when invalid
            return True

        self.assertTrue(self.check(assertion, auth.cose, verify_signature=verifier).ok)
        auth_data, client_data = unb64u(assertion["authenticator_data"]), unb64u(assertion["client_data_json"])
        self.assertEqual(seen, [(-7, auth.jwk, auth_data + hashlib.sha256(client_data).digest(),
                                 unb64u(assertion["signature"]))])
        bad = {**assertion, "signature": flip(assertion["signature"], 12)}
        self.assertEqual(self.check(bad, auth.cose, verify_signature=verifier).reason,
                         "the signature does not verify (InvalidSignature: )")
        eddsa = Authenticator("EdDSA")
        self.assertEqual(self.check(eddsa.assert_(self.challenge), eddsa.cose, verify_signature=lambda *a: False),
                         cs.AssertionCheck(False, "the signature does not verify"))
        self.assertFalse(self.check(eddsa.assert_(self.challenge), eddsa.cose, verify_signature=lambda *a: 1).ok)


@needs_cryptography
class ReceiptAssertionsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ana = Authenticator("ES256")
        cls.bo = Authenticator("EdDSA")

    def payload(self, *assertions, decided_by=("ana@example.com", "bo@example.com"), **changes):
        return {"approval_id": APPROVAL_ID, "args_digest": ARGS_DIGEST, "decision": "approved",
                "decided_by": list(decided_by), "assertions": list(assertions), **changes}

    def votes(self):
        return (receipt_assertion(self.ana, "ana@example.com", reason="invoice checked", nonce="n-a"),
                receipt_assertion(self.bo, "bo@example.com", nonce="n-b"))

    def passkeys(self, as_jwk=False):
        return {"ana@example.com": [self.ana.passkey(as_jwk)], "bo@example.com": [self.bo.passkey(as_jwk)]}

    def test_valid_assertions_pass_in_decided_by_order(self):
        for as_jwk in (False, True):
            with self.subTest(as_jwk=as_jwk):
                check = cs.verify_receipt_assertions(self.payload(*self.votes()), self.passkeys(as_jwk),
                                                     origin=ORIGIN, rp_id=RP_ID)
                self.assertEqual(check, cs.ReceiptAssertionsCheck(True, [
                    cs.ReceiptAssertionResult("ana@example.com", self.ana.credential_id, True),
                    cs.ReceiptAssertionResult("bo@example.com", self.bo.credential_id, True)], []))

    def test_the_jwk_is_used_when_present_and_removed_passkeys_still_verify(self):
        other = Authenticator("ES256")
        passkeys = self.passkeys()
        # The listing's jwk is ana's key; its COSE public_key is another key's: the jwk decides.
        passkeys["ana@example.com"] = [other.passkey(), {**other.passkey(), "credential_id": self.ana.credential_id,
                                                         "jwk": self.ana.jwk, "removed_at": "2026-12-02T00:00:00Z"}]
        self.assertTrue(cs.verify_receipt_assertions(self.payload(*self.votes()), passkeys).ok)
        passkeys["ana@example.com"][1] = {**other.passkey(), "credential_id": self.ana.credential_id}
        self.assertEqual(cs.verify_receipt_assertions(self.payload(*self.votes()), passkeys).failures,
                         ["assertion 1 (ana@example.com): the signature does not verify"])

    def test_another_reason_nonce_digest_or_request_fails(self):
        ana, bo = self.votes()
        changes = [({"reason": "looks fine"}, {}), ({"nonce": "n-x"}, {}),
                   ({}, {"args_digest": "sha256:" + "3" * 64}), ({}, {"approval_id": "apr_other"})]
        for entry_change, payload_change in changes:
            with self.subTest(entry=entry_change, payload=payload_change):
                check = cs.verify_receipt_assertions(self.payload({**ana, **entry_change}, bo, **payload_change),
                                                     self.passkeys())
                self.assertFalse(check.ok)
                expected = ["assertion 1 (ana@example.com): the assertion answers another challenge"]
                if payload_change:
                    expected.append("assertion 2 (bo@example.com): the assertion answers another challenge")
                self.assertEqual(check.failures, expected)
                self.assertEqual(check.assertions[0].reason, "the assertion answers another challenge")

    def test_one_changed_byte_fails(self):
        ana, bo = self.votes()
        for field in ("authenticator_data", "client_data_json", "signature"):
            with self.subTest(field):
                check = cs.verify_receipt_assertions(self.payload(ana, {**bo, field: flip(bo[field], 33)}),
                                                     self.passkeys())
                self.assertFalse(check.ok)
                self.assertEqual([r.ok for r in check.assertions], [True, False])
                self.assertTrue(check.failures[0].startswith("assertion 2 (bo@example.com): "))

    def test_a_missing_passkey_fails(self):
        ana, bo = self.votes()
        for passkeys in ({"ana@example.com": [self.ana.passkey()]},
                         {**self.passkeys(), "bo@example.com": [self.ana.passkey()]},
                         {**self.passkeys(), "bo@example.com": []},
                         {**self.passkeys(), "bo@example.com": "not a list"},
                         # bo's credential listed under ana: a passkey is only its owner's.
                         {"ana@example.com": [self.ana.passkey(), self.bo.passkey()]}):
            with self.subTest(passkeys=list(passkeys)):
                check = cs.verify_receipt_assertions(self.payload(ana, bo), passkeys)
                self.assertEqual(check.failures, ["assertion 2 (bo@example.com): no such passkey for this reviewer"])

    def test_the_reviewers_must_be_decided_by_in_order(self):
        ana, bo = self.votes()
        order = "the assertions' reviewers are not the receipt's decided_by, in order"
        for assertions, decided_by in (((bo, ana), ("ana@example.com", "bo@example.com")),
                                       ((ana,), ("ana@example.com", "bo@example.com")),
                                       ((ana, bo), ("ana@example.com",)),
                                       ((ana, bo), ("ana@example.com", "bo@example.com", "cy@example.com")),
                                       ((ana, ana), ("ana@example.com", "bo@example.com"))):
            with self.subTest(assertions=[a["reviewer"] for a in assertions], decided_by=decided_by):
                check = cs.verify_receipt_assertions(self.payload(*assertions, decided_by=decided_by), self.passkeys())
                self.assertTrue(all(r.ok for r in check.assertions))
                self.assertEqual(check, cs.ReceiptAssertionsCheck(False, check.assertions, [order]))
        check = cs.verify_receipt_assertions({**self.payload(ana, bo), "decided_by": None}, self.passkeys())
        self.assertEqual(check.failures, [order])
        # Only an approval's assertions are its decided_by.
        self.assertTrue(cs.verify_receipt_assertions(self.payload(bo, decision="denied", decided_by=["ana@example.com"]),
                                                     self.passkeys()).ok)

    def test_malformed_receipts_fail_without_raising(self):
        ana, bo = self.votes()
        none = "the receipt carries no passkey assertions"
        self.assertEqual(cs.verify_receipt_assertions(self.payload(), self.passkeys()),
                         cs.ReceiptAssertionsCheck(False, [], [none]))
        self.assertEqual(cs.verify_receipt_assertions({**self.payload(), "assertions": "x"}, self.passkeys()).failures,
                         [none])
        self.assertEqual(cs.verify_receipt_assertions({"approval_id": "a"}, self.passkeys()).failures, [none])
        self.assertFalse(cs.verify_receipt_assertions(None, self.passkeys()).ok)  # type: ignore[arg-type]
        for bad in (None, "x", {**ana, "reason": None}, {**ana, "nonce": 1},
                    {k: v for k, v in ana.items() if k != "signature"}, {**ana, "reviewer": "a" * 321}):
            with self.subTest(bad=repr(bad)[:50]):
                check = cs.verify_receipt_assertions(self.payload(bad, bo), self.passkeys())
                self.assertEqual(check.assertions[0], cs.ReceiptAssertionResult("", "", False, "malformed"))
                self.assertEqual(check.failures, ["assertion 1 is malformed",
                                                  "the assertions' reviewers are not the receipt's decided_by, in order"])
        for field in ("authenticator_data", "client_data_json", "signature"):
            check = cs.verify_receipt_assertions(self.payload({**ana, field: "%%%"}, bo), self.passkeys())
            self.assertEqual(check.failures, ["assertion 1 (ana@example.com): the assertion cannot be read: "
                                              "its binary fields are not unpadded base64url"])
        check = cs.verify_receipt_assertions(self.payload(ana, bo, args_digest=None), self.passkeys())
        self.assertEqual([r.reason for r in check.assertions], ["the challenge cannot be computed: args_digest must be a string"] * 2)
        broken = {"ana@example.com": [{**self.ana.passkey(), "public_key": "pQ"}], "bo@example.com": [self.bo.passkey()]}
        check = cs.verify_receipt_assertions(self.payload(ana, bo), broken)
        self.assertTrue(check.failures[0].startswith("assertion 1 (ana@example.com): the public key cannot be used: "))
        with self.assertRaises(TypeError):
            cs.verify_receipt_assertions(self.payload(ana, bo), [self.ana.passkey()])  # type: ignore[arg-type]


@needs_cryptography
class OfflineReceiptTests(unittest.TestCase):
    """verify_receipt_offline with passkeys: the receipt's signature and fields, then its assertions."""

    @classmethod
    def setUpClass(cls):
        cls.ana = Authenticator("ES256")
        cls.bo = Authenticator("EdDSA")
        cls.passkeys = {"ana@example.com": [cls.ana.passkey()], "bo@example.com": [cls.bo.passkey(as_jwk=True)]}
        cls.jwks = jwks_of()

    def receipt(self, assertions=None, at=None, **changes):
        claims = {"approval_id": APPROVAL_ID, "service": "payments", "run_id": "run_1", "call_id": "c1",
                  "tool": "payments.pay", "args_digest": ARGS_DIGEST, "decision": "approved",
                  "decided_by": ["ana@example.com", "bo@example.com"], "decided_at": "2026-12-01T10:00:00.000Z",
                  "consumed_at": "2026-12-01T10:01:00.000Z", **issued(at), **changes}
        if assertions is None:
            assertions = [receipt_assertion(self.ana, "ana@example.com", reason="ok", nonce="n-a"),
                          receipt_assertion(self.bo, "bo@example.com", nonce="n-b")]
        if assertions is not False:
            claims["assertions"] = assertions
        return make_receipt(claims), claims

    def test_good_assertions_return_the_payload_even_expired(self):
        jws, claims = self.receipt(at=int(time.time()) - 86400)
        self.assertEqual(cs.verify_receipt_offline(jws, self.jwks, self.passkeys), claims)
        self.assertEqual(cs.verify_receipt_offline(jws, self.jwks, self.passkeys, origin=ORIGIN, rp_id=RP_ID,
                                                   require_assertions=True), claims)
        self.assertEqual(cs.verify_receipt_offline(jws, self.jwks), claims)  # without passkeys: shape only

    def test_a_bad_assertion_raises_invalid_receipt(self):
        ana = receipt_assertion(self.ana, "ana@example.com", reason="ok", nonce="n-a")
        bo = receipt_assertion(self.bo, "bo@example.com", nonce="n-b")
        for assertions, expected in (
            ([ana, {**bo, "signature": flip(bo["signature"], 5)}], "assertion 2 (bo@example.com): the signature does not verify"),
            ([{**ana, "reason": "other"}, bo], "assertion 1 (ana@example.com): the assertion answers another challenge"),
            ([bo, ana], "the assertions' reviewers are not the receipt's decided_by, in order"),
            ([ana, receipt_assertion(self.bo, "bo@example.com", flags=0x01)],
             "assertion 2 (bo@example.com): user verification is not flagged"),
        ):
            with self.subTest(expected):
                jws, _ = self.receipt(assertions)
                with self.assertRaises(cs.CountersignError) as ctx:
                    cs.verify_receipt_offline(jws, self.jwks, self.passkeys)
                self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-receipt", "assertions"))
                self.assertIn(expected, str(ctx.exception))
        jws, _ = self.receipt()
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt_offline(jws, self.jwks, {"ana@example.com": [self.ana.passkey()]})
        self.assertIn("no such passkey for this reviewer", str(ctx.exception))
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt_offline(jws, self.jwks, self.passkeys, origin="https://evil.example")
        self.assertEqual(ctx.exception.reason, "assertions")

    def test_the_receipt_signature_is_checked_first(self):
        jws, _ = self.receipt()
        head, body, sig = jws.split(".")
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt_offline(f"{head}.{body}.{flip(sig, 3)}", self.jwks, self.passkeys)
        self.assertEqual(ctx.exception.reason, "signature")

    def test_a_receipt_without_assertions(self):
        jws, claims = self.receipt(assertions=False)
        self.assertEqual(cs.verify_receipt_offline(jws, self.jwks, self.passkeys), claims)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt_offline(jws, self.jwks, self.passkeys, require_assertions=True)
        self.assertEqual(ctx.exception.reason, "assertions")
        self.assertIn("the receipt carries no passkey assertions", str(ctx.exception))

    def test_passkey_options_need_passkeys(self):
        jws, _ = self.receipt()
        for options in ({"origin": ORIGIN}, {"rp_id": RP_ID}, {"require_assertions": True},
                        {"verify_signature": lambda *a: True}):
            with self.subTest(options=list(options)):
                with self.assertRaises(TypeError):
                    cs.verify_receipt_offline(jws, self.jwks, **options)


if __name__ == "__main__":
    unittest.main()
