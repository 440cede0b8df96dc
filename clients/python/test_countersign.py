"""Tests of countersign.py (standard library unittest).

Run with: python3 -m unittest discover -s clients/python

The digest vectors are those of lib/digest/args-digest.test.ts; the expected
digests were printed by the TypeScript implementation (lib/digest/args-digest.ts).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402

try:  # optional: only to check real Ed25519 signatures in the receipt tests
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    HAVE_CRYPTOGRAPHY = True
except ImportError:  # pragma: no cover - depends on the machine
    HAVE_CRYPTOGRAPHY = False


def from_bits(hex_bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(hex_bits))[0]


# (name, value, RFC 8785 text, digest printed by the TypeScript implementation)
SHARED_VECTORS = [
    (
        "key ordering",
        {"b": 2, "a": 1, "c": {"z": True, "y": None, "x": "s"}},
        '{"a":1,"b":2,"c":{"x":"s","y":null,"z":true}}',
        "sha256:b0a86d3cd96ac9d22431e4c3ab3f55bc5cbd691921b44446469d7259610ac84e",
    ),
    (
        "UTF-16 key ordering (RFC 8785 section 3.2.3)",
        {
            "\u20ac": "Euro Sign",
            "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\U0001f600": "Emoji: Grinning Face",
            "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis",
        },
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",'
        '"\u20ac":"Euro Sign","\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
        "sha256:5e321556d22018a9656991a9e94f77ec175fa193e52a2429d312f8419ec8b08c",
    ),
    (
        "string escapes",
        {"s": "quote\" backslash\\ slash/ nl\n tab\t bs\b ff\f cr\r nul\u0000 us\u001f del\u007f ls\u2028 é\U0001f600"},
        '{"s":"quote\\" backslash\\\\ slash/ nl\\n tab\\t bs\\b ff\\f cr\\r nul\\u0000 us\\u001f del\u007f ls\u2028 é\U0001f600"}',
        "sha256:9af4e622e19e7651109aba0f3a3d15c4ff09121a7630ce2c5f4eb851007a8c7e",
    ),
    (
        "numbers",
        {"big": 1e21, "negZero": -0.0, "tenth": 0.1, "small": 1e-7, "int": 10, "neg": -42, "max": 9007199254740991, "e20": 1e20},
        '{"big":1e+21,"e20":100000000000000000000,"int":10,"max":9007199254740991,"neg":-42,"negZero":0,"small":1e-7,"tenth":0.1}',
        "sha256:d1bc2f5614aa3b0851f249f52fc7c3c441350fe48aeda1ccbd309bd1eac421ea",
    ),
    (
        "nested",
        {
            "account": "AC-1",
            "amount": 10,
            "lines": [{"sku": "x", "qty": 2}, [], {}, [None, False, True, "", 0]],
            "meta": {"deep": {"deeper": {"deepest": ["ok"]}}},
        },
        '{"account":"AC-1","amount":10,"lines":[{"qty":2,"sku":"x"},[],{},[null,false,true,"",0]],'
        '"meta":{"deep":{"deeper":{"deepest":["ok"]}}}}',
        "sha256:66a17c453cf495c7e305b277956d9e811926b4e6759aad590da04b2f305f31e4",
    ),
    ("empty object", {}, "{}", "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
    (
        "contract example",
        {"account": "AC-1", "amount": 10},
        '{"account":"AC-1","amount":10}',
        "sha256:2fd173065f5e011e640da7fdb8188ffc8756856beb4e9126d627f44e3dd12bf9",
    ),
]

# RFC 8785 Appendix B number samples (IEEE-754 bits -> canonical text).
RFC_NUMBER_SAMPLES = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]

# Random doubles with the text Node.js (Number#toString) gave for them.
NODE_NUMBER_SAMPLES = [
    ("c338f139d8bc13ba", "-7020630192690106"),
    ("6ebcb6f1bdf61e47", "2.6571736737957384e+225"),
    ("8501ed46830d1a02", "-1.50694799385675e-284"),
    ("d90c4695569a8117", "-9.126870595737458e+120"),
    ("425356b15ec6c000", "332235373339"),
    ("4148e7516e6044ff", "3264162.8623129125"),
    ("6e50000000000000", "2.313432234973772e+223"),
    ("40bda858ab78a0ef", "7592.346366442957"),
    ("c3300d4aacb20782", "-4518214003459970"),
    ("584ecdf8ad6d9fcd", "2.4275241704826897e+117"),
    ("3ed4f5c5d16d7b21", "0.00000499726527078309"),
    ("277ee6bd7b807ec1", "1.9146917753948957e-118"),
    ("767863ef78987b46", "4.8001485156274066e+262"),
    ("b8c6f68ebbbbde19", "-3.4551055967335294e-35"),
    ("3e9421f5f40d8376", "3e-7"),
    ("3f89b75cee37ff03", "0.012556768436297277"),
    ("8bf484862c6590b1", "-4.477666198048497e-251"),
    ("608f0088e021822c", "1.330144156052933e+157"),
    ("3ec0d54fa5a0ba9d", "0.0000020066793640285673"),
    ("0280c7ea9a624aa4", "1.2829512003993785e-296"),
    ("72d3868670a7eec4", "1.3332095154645857e+245"),
    ("8eb5b4b8478bdd44", "-8.333395042324001e-238"),
]


class DigestTests(unittest.TestCase):
    def test_shared_vectors_canonical_text(self):
        for name, value, jcs, _ in SHARED_VECTORS:
            with self.subTest(name):
                self.assertEqual(cs.canonical_json(value), jcs)

    def test_shared_vectors_digest_matches_typescript(self):
        for name, value, _, digest in SHARED_VECTORS:
            with self.subTest(name):
                self.assertEqual(cs.args_digest(value), digest)

    def test_rfc8785_number_samples(self):
        for bits, text in RFC_NUMBER_SAMPLES:
            with self.subTest(bits):
                self.assertEqual(cs.canonical_json(from_bits(bits)), text)

    def test_numbers_match_node(self):
        for bits, text in NODE_NUMBER_SAMPLES:
            with self.subTest(bits):
                self.assertEqual(cs.canonical_json(from_bits(bits)), text)

    def test_number_forms(self):
        # Integers up to 2**53 - 1 (I-JSON, docs/security.md: the server refuses 2**53).
        self.assertEqual(cs.canonical_json([1e21, 1e20, -0.0, 0.1, 1e-7, 1e-6, 10.0, 2**53 - 1, -(2**53 - 1), 1.5]),
                         "[1e+21,100000000000000000000,0,0.1,1e-7,0.000001,10,9007199254740991,-9007199254740991,1.5]")

    def test_key_order_independent(self):
        self.assertEqual(cs.args_digest({"a": 1, "b": {"c": 2, "d": 3}}), cs.args_digest({"b": {"d": 3, "c": 2}, "a": 1}))

    def test_booleans_are_not_numbers_and_tuples_are_arrays(self):
        self.assertEqual(cs.canonical_json({"t": True, "f": False, "n": None, "a": (1, "x")}),
                         '{"a":[1,"x"],"f":false,"n":null,"t":true}')

    def test_rejects_unrepresentable_values(self):
        cyclic: dict = {}
        cyclic["self"] = cyclic
        cases = [
            ({"s": "\ud800"}, "lone-surrogate"),
            ({"s": "a\udc00b"}, "lone-surrogate"),
            ({"\ud800": 1}, "lone-surrogate"),
            ({"n": float("nan")}, "non-finite-number"),
            ({"n": float("inf")}, "non-finite-number"),
            ({"n": 2**53}, "integer-out-of-range"),
            ({"n": -(2**53)}, "integer-out-of-range"),
            ({"n": 2**53 + 1}, "integer-out-of-range"),
            ({1: "x"}, "not-representable"),
            ({"b": b"bytes"}, "not-representable"),
            ({"s": {1, 2}}, "not-representable"),
            (cyclic, "circular"),
        ]
        for value, reason in cases:
            with self.subTest(reason=reason, value=repr(value)[:40]):
                with self.assertRaises(cs.CanonicalJsonError) as ctx:
                    cs.args_digest(value)
                self.assertEqual(ctx.exception.reason, reason)

    def test_arguments_must_be_an_object(self):
        for value in ([], [1], "x", 1, None):
            with self.assertRaises(cs.CanonicalJsonError):
                cs.args_digest(value)  # type: ignore[arg-type]

    def test_digest_form(self):
        digest = cs.args_digest({"a": 1})
        self.assertRegex(digest, r"\Asha256:[0-9a-f]{64}\Z")


SALT = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"  # bytes 0..31, as in lib/digest/args-digest.test.ts


class SaltedDigestTests(unittest.TestCase):
    def test_shared_salted_vector(self):
        # The same vector lib/digest/args-digest.test.ts checks.
        self.assertEqual(cs.args_digest({"account": "AC-1", "amount": 10}, SALT),
                         "sha256:b0b3c4ecfeab4782474fa5d87626b3f1aefce1c45c4e464c3c6982423aa49061")

    def test_formula(self):
        for name, value, text, _digest in SHARED_VECTORS:
            with self.subTest(name):
                expected = "sha256:" + hashlib.sha256(f"{SALT}.{text}".encode("utf-8")).hexdigest()
                self.assertEqual(cs.args_digest(value, SALT), expected)
                self.assertNotEqual(cs.args_digest(value, SALT), cs.args_digest(value))

    def test_salt_shape(self):
        def of(n):
            return base64.urlsafe_b64encode(os.urandom(n)).decode().rstrip("=")
        for n in (16, 17, 18, 32, 63, 64):
            self.assertTrue(cs.is_args_salt(of(n)), n)
        for n in (0, 1, 15, 65, 100):
            self.assertFalse(cs.is_args_salt(of(n)), n)
        self.assertFalse(cs.is_args_salt(base64.urlsafe_b64encode(os.urandom(16)).decode()))  # padded
        self.assertFalse(cs.is_args_salt(of(32)[:-1] + "+"))
        self.assertTrue(cs.is_args_salt("A" * 22))
        self.assertFalse(cs.is_args_salt("A" * 21 + "B"))  # non-zero unused bits: not canonical
        for bad in (None, 42, "", " " * 22):
            self.assertFalse(cs.is_args_salt(bad))
        with self.assertRaises(ValueError):
            cs.args_digest({"a": 1}, "short")

    def test_new_salts_are_fresh(self):
        salts = {cs.new_args_salt() for _ in range(50)}
        self.assertEqual(len(salts), 50)
        for salt in salts:
            self.assertTrue(cs.is_args_salt(salt))
            self.assertEqual(len(base64.urlsafe_b64decode(salt + "=")), 32)


# Standard Webhooks known-answer vector.
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
TIMESTAMP = 1614265330
BODY = b'{"test": 2432232314}'
SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def headers(signature=SIGNATURE, **overrides):
    out = {"webhook-id": MSG_ID, "webhook-timestamp": str(TIMESTAMP), "webhook-signature": signature}
    for key, value in overrides.items():
        name = "webhook-" + key
        if value is None:
            out.pop(name, None)
        else:
            out[name] = value
    return out


class WebhookTests(unittest.TestCase):
    def verify(self, signature=SIGNATURE, body=BODY, secrets=(SECRET,), now=TIMESTAMP, **overrides):
        return cs.verify_webhook(list(secrets), headers(signature, **overrides), body, now=now)

    def test_known_answer_vector(self):
        self.assertEqual(cs.sign_webhook(SECRET, MSG_ID, TIMESTAMP, BODY), SIGNATURE)
        self.assertEqual(cs.sign_webhook(SECRET, MSG_ID, TIMESTAMP, BODY.decode()), SIGNATURE)
        self.assertEqual(self.verify(), cs.VerifyResult(True))

    def test_one_byte_change_fails(self):
        for index in range(len(BODY)):
            changed = bytearray(BODY)
            changed[index] ^= 1
            self.assertEqual(self.verify(body=bytes(changed)), cs.VerifyResult(False, "bad-signature"))
        self.assertEqual(self.verify(body=json.dumps(json.loads(BODY)).encode() + b" "), cs.VerifyResult(False, "bad-signature"))

    def test_bad_then_good_entry_passes(self):
        bad = "v1,Zm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyMTI="
        self.assertTrue(self.verify(f"{bad} {SIGNATURE}").ok)
        self.assertTrue(self.verify(f"{SIGNATURE} {bad}").ok)

    def test_only_v1_entries_count(self):
        mac = SIGNATURE[3:]
        for signature in (f"v1a,{mac}", f"v2,{mac}", f"v1a,{mac} v2,{mac}", mac, f"V1,{mac}"):
            with self.subTest(signature):
                self.assertEqual(self.verify(signature), cs.VerifyResult(False, "bad-signature"))

    def test_rotation_either_secret(self):
        other = cs.generate_webhook_secret()
        self.assertTrue(self.verify(secrets=(other, SECRET)).ok)
        signed_other = cs.sign_webhook(other, MSG_ID, TIMESTAMP, BODY)
        self.assertTrue(self.verify(signed_other, secrets=(SECRET, other)).ok)
        self.assertFalse(self.verify(signed_other, secrets=(SECRET,)).ok)

    def test_tolerance(self):
        self.assertEqual(self.verify(now=TIMESTAMP + 301), cs.VerifyResult(False, "stale"))
        self.assertEqual(self.verify(now=TIMESTAMP - 301), cs.VerifyResult(False, "stale"))
        self.assertTrue(self.verify(now=TIMESTAMP + 299).ok)
        self.assertTrue(self.verify(now=TIMESTAMP - 299).ok)
        self.assertTrue(self.verify(now=TIMESTAMP + 300).ok)

    def test_non_digit_timestamp_fails(self):
        for timestamp in ("1614265330abc", " 1614265330", "1614265330\n", "+1614265330", "1.6e9", "1" * 16, "\u0661\u0662"):
            with self.subTest(timestamp):
                self.assertEqual(self.verify(timestamp=timestamp), cs.VerifyResult(False, "bad-timestamp"))

    def test_missing_or_malformed_headers_fail(self):
        self.assertEqual(cs.verify_webhook([SECRET], None, BODY, now=TIMESTAMP), cs.VerifyResult(False, "missing-headers"))
        for overrides in ({"id": None}, {"timestamp": None}, {"signature": None}, {"id": ""}, {"id": "x" * 257}, {"id": "a\x07"}):
            with self.subTest(overrides):
                self.assertEqual(self.verify(**overrides), cs.VerifyResult(False, "missing-headers"))
        # header names are case-insensitive
        mixed = {"Webhook-Id": MSG_ID, "WEBHOOK-TIMESTAMP": str(TIMESTAMP), "webhook-Signature": SIGNATURE}
        self.assertTrue(cs.verify_webhook([SECRET], mixed, BODY, now=TIMESTAMP).ok)

    def test_malformed_secret_raises(self):
        with self.assertRaises(ValueError):
            self.verify(secrets=("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",))
        with self.assertRaises(ValueError):
            cs.sign_webhook("whsec_not*base64", MSG_ID, TIMESTAMP, BODY)

    def test_generate_secret_and_headers(self):
        secret = cs.generate_webhook_secret()
        self.assertRegex(secret, r"\Awhsec_[A-Za-z0-9+/]{43}=\Z")
        self.assertEqual(len(cs.decode_webhook_secret(secret)), 32)
        self.assertNotEqual(secret, cs.generate_webhook_secret())
        signed = cs.sign_webhook_headers([SECRET, secret], BODY, msg_id=MSG_ID, timestamp=TIMESTAMP)
        self.assertEqual(signed["webhook-signature"].split(" ")[0], SIGNATURE)
        fresh = cs.sign_webhook_headers(SECRET, BODY)
        self.assertTrue(cs.verify_webhook([SECRET], fresh, BODY).ok)


CALLBACK_EVENT = {
    "type": "approval.decided",
    "timestamp": "2026-11-29T18:00:00Z",
    "data": {
        "approval_id": "apr_1",
        "run_id": "run_1",
        "call_id": "c1",
        "tool": "payments.pay",
        "args_digest": cs.args_digest({"a": 1}),
        "decision": "denied",
        "decided_by": ["rev@example.com"],
        "decided_at": "2026-11-29T18:00:00Z",
        "reviews": [
            {"by": "bo@example.com", "vote": "approve", "reason": None, "at": "2026-11-29T17:58:00Z"},
            {"by": "rev@example.com", "vote": "deny", "reason": "wrong account", "at": "2026-11-29T18:00:00Z"},
        ],
    },
}


class CallbackTests(unittest.TestCase):
    def test_verifies_and_parses(self):
        secret = cs.generate_webhook_secret()
        body = json.dumps(CALLBACK_EVENT).encode()
        self.assertEqual(cs.verify_callback(secret, cs.sign_webhook_headers(secret, body), body), CALLBACK_EVENT)

    def test_refusals(self):
        secret = cs.generate_webhook_secret()
        body = json.dumps(CALLBACK_EVENT).encode()
        old = cs.sign_webhook_headers(secret, body, timestamp=1_700_000_000)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_callback(secret, old, body)
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-signature", "stale"))
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_callback(cs.generate_webhook_secret(), old, body, now=1_700_000_000)
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-signature", "bad-signature"))
        wrong = json.dumps({**CALLBACK_EVENT, "data": {**CALLBACK_EVENT["data"], "decided_by": "x"}}).encode()
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_callback(secret, cs.sign_webhook_headers(secret, wrong), wrong)
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-request", "data.decided_by"))

    def test_reviews_and_denial_reason(self):
        secret = cs.generate_webhook_secret()
        body = json.dumps(CALLBACK_EVENT).encode()
        event = cs.verify_callback(secret, cs.sign_webhook_headers(secret, body), body)
        self.assertEqual([r["vote"] for r in event["data"]["reviews"]], ["approve", "deny"])
        self.assertEqual(cs.denial_reason(event["data"]), "wrong account")
        self.assertIsNone(cs.denial_reason({"reviews": [CALLBACK_EVENT["data"]["reviews"][0]]}))
        self.assertIsNone(cs.denial_reason({"reviews": []}))
        deny = CALLBACK_EVENT["data"]["reviews"][1]
        for reviews in (None, "x", [{**deny, "vote": "veto"}], [{**deny, "reason": 3}], [{"by": "a", "vote": "deny", "at": "t"}]):
            wrong = json.dumps({**CALLBACK_EVENT, "data": {**CALLBACK_EVENT["data"], "reviews": reviews}}).encode()
            with self.assertRaises(cs.CountersignError) as ctx:
                cs.verify_callback(secret, cs.sign_webhook_headers(secret, wrong), wrong)
            self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-request", "data.reviews"), reviews)


# A receipt signed by jose (Node) with a throwaway Ed25519 key, and its JWKS.
RECEIPT_JWKS = {
    "keys": [
        {
            "crv": "Ed25519",
            "x": "njCXZpyMk7n2rH4GndDlvwAu_yG6QoJB6_9AsA-MhT4",
            "kty": "OKP",
            "kid": "py-test-1",
            "alg": "EdDSA",
            "use": "sig",
        }
    ]
}
RECEIPT_JWS = (
    "eyJhbGciOiJFZERTQSIsImtpZCI6InB5LXRlc3QtMSJ9."
    "eyJhcHByb3ZhbF9pZCI6ImFwcl9weSIsInNlcnZpY2UiOiJwYXltZW50cyIsInJ1bl9pZCI6InJ1bl80MiIsImNhbGxfaWQiOiJjMSIsInRvb2wi"
    "OiJwYXltZW50cy5wYXkiLCJhcmdzX2RpZ2VzdCI6InNoYTI1NjoyZmQxNzMwNjVmNWUwMTFlNjQwZGE3ZmRiODE4OGZmYzg3NTY4NTZiZWI0ZTkx"
    "MjZkNjI3ZjQ0ZTNkZDEyYmY5IiwiZGVjaXNpb24iOiJhcHByb3ZlZCIsImRlY2lkZWRfYnkiOlsiYm9AZXhhbXBsZS5jb20iXSwiZGVjaWRlZF9h"
    "dCI6IjIwMjYtMTEtMjlUMTg6MDA6MDBaIiwiY29uc3VtZWRfYXQiOiIyMDI2LTExLTI5VDE4OjAxOjAwWiJ9."
    "r47mq34qWwT89nw40GTzr4igCtsiT293izLQSrhkPdKu2cGqfzIqb4pD9TDiwfSV45CBTtX7SIsWQkBXiXLoBA"
)
RECEIPT_PAYLOAD = {
    "approval_id": "apr_py",
    "service": "payments",
    "run_id": "run_42",
    "call_id": "c1",
    "tool": "payments.pay",
    "args_digest": "sha256:2fd173065f5e011e640da7fdb8188ffc8756856beb4e9126d627f44e3dd12bf9",
    "decision": "approved",
    "decided_by": ["bo@example.com"],
    "decided_at": "2026-11-29T18:00:00Z",
    "consumed_at": "2026-11-29T18:01:00Z",
}


def flip_signature_byte(jws: str) -> str:
    head, body, sig = jws.split(".")
    raw = bytearray(base64.urlsafe_b64decode(sig + "=="))
    raw[10] ^= 1
    return f"{head}.{body}.{base64.urlsafe_b64encode(bytes(raw)).decode().rstrip('=')}"


def ed25519_with_cryptography(public_key: bytes, message: bytes, signature: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
        return True
    except InvalidSignature:
        return False


class ReceiptTests(unittest.TestCase):
    def test_decode_without_verification(self):
        header, payload = cs.decode_receipt(RECEIPT_JWS)
        self.assertEqual(header, {"alg": "EdDSA", "kid": "py-test-1"})
        self.assertEqual(payload, RECEIPT_PAYLOAD)
        with self.assertRaises(cs.CountersignError):
            cs.decode_receipt("not-a-jws")

    def test_binding_check(self):
        self.assertEqual(cs.check_receipt_binding(RECEIPT_PAYLOAD, approval_id="apr_py", tool="payments.pay"), RECEIPT_PAYLOAD)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.check_receipt_binding(RECEIPT_PAYLOAD, args_digest=cs.args_digest({"account": "AC-1", "amount": 11}))
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-receipt", "args_digest"))
        with self.assertRaises(cs.CountersignError):
            cs.check_receipt_binding({**RECEIPT_PAYLOAD, "decision": "maybe"})

    def test_verify_delegates_exactly_the_signature_check(self):
        seen = []

        def fake(public_key, message, signature):
            seen.append((public_key, message, signature))
            return True

        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, fake, run_id="run_42"), RECEIPT_PAYLOAD)
        public_key, message, signature = seen[0]
        self.assertEqual(public_key, base64.urlsafe_b64decode(RECEIPT_JWKS["keys"][0]["x"] + "="))
        self.assertEqual(message, RECEIPT_JWS.rsplit(".", 1)[0].encode())
        self.assertEqual(len(signature), 64)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, lambda *_: False)
        self.assertEqual(ctx.exception.reason, "signature")

    def test_verify_refuses_other_algorithms_and_unknown_keys(self):
        hs_header = base64.urlsafe_b64encode(b'{"alg":"HS256","kid":"py-test-1"}').decode().rstrip("=")
        forged = hs_header + RECEIPT_JWS[RECEIPT_JWS.index(".") :]
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(forged, RECEIPT_JWKS, lambda *_: True)
        self.assertEqual(ctx.exception.reason, "alg")
        other_kid = {"keys": [{**RECEIPT_JWKS["keys"][0], "kid": "other"}]}
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(RECEIPT_JWS, other_kid, lambda *_: True)
        self.assertEqual(ctx.exception.reason, "no-key")
        with self.assertRaises(TypeError):
            cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, None)  # type: ignore[arg-type]

    @unittest.skipUnless(HAVE_CRYPTOGRAPHY, "needs the third-party cryptography package for Ed25519")
    def test_real_ed25519_signature_and_flipped_byte(self):
        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, ed25519_with_cryptography), RECEIPT_PAYLOAD)
        with self.assertRaises(cs.CountersignError):
            cs.verify_receipt(flip_signature_byte(RECEIPT_JWS), RECEIPT_JWKS, ed25519_with_cryptography)


# --- HTTP plumbing against a local stub (the live-app tests come separately) ---

API_TOKEN = "cs_py_token"
DENY = {"by": "cy@example.com", "vote": "deny", "reason": "wrong account; ask finance", "at": "2026-11-29T18:00:00Z"}
WEBHOOK_SECRET = cs.generate_webhook_secret()


class StubHandler(BaseHTTPRequestHandler):
    received: list = []
    consumed: list = []

    def log_message(self, *args):  # keep test output quiet
        pass

    def reply(self, status, body, extra=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.startswith("/api/v1/webhooks/"):
            result = cs.verify_webhook([WEBHOOK_SECRET], self.headers, raw)
            StubHandler.received.append((self.path, dict(self.headers), raw, result))
            if not result.ok:
                return self.reply(401, {"error": "invalid-signature"})
            data = json.loads(raw)["data"]
            if data["tool"] == "script.rate-limited":
                return self.reply(429, {"error": "rate-limited"}, {"Retry-After": "7"})
            if data["tool"] == "script.invalid":
                return self.reply(422, {"error": "invalid-request", "issues": [{"path": "data.tool", "message": "Invalid"}]})
            if data["args_digest"] != cs.args_digest(data["arguments"], data.get("args_salt")):
                return self.reply(422, {"error": "digest-mismatch"})
            return self.reply(201, {"approval_id": "apr_1", "status": "pending", "args_digest": data["args_digest"],
                                    "expires_at": "2026-11-29T19:00:00Z", "review_url": "http://x/approvals/apr_1"})
        if self.headers.get("Authorization") != f"Bearer {API_TOKEN}":
            return self.reply(401, {"error": "unauthorized"})
        if self.path.endswith("/consume"):
            StubHandler.consumed.append(json.loads(raw))
            if self.path.startswith("/api/v1/approvals/apr_denied/"):
                return self.reply(200, {"approval_id": "apr_denied", "decision": "denied", "decided_by": [DENY["by"]],
                                        "decided_at": DENY["at"], "consumed_at": DENY["at"], "reviews": [DENY],
                                        "receipt": "h.p.s"})
            return self.reply(409, {"error": "already-consumed"})
        if self.path.endswith("/cancel"):
            return self.reply(409, {"error": "already-decided"})
        return self.reply(404, {"error": "not-found"})

    def do_GET(self):  # noqa: N802
        if self.headers.get("Authorization") != f"Bearer {API_TOKEN}":
            return self.reply(401, {"error": "unauthorized"})
        if self.path.startswith("/api/v1/approvals/slow"):
            time.sleep(1.0)
        if self.path.startswith("/api/v1/approvals/boom"):
            self.send_response(500)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"no")
            return
        if self.path.startswith("/api/v1/approvals/apr_1"):
            return self.reply(200, {"approval_id": "apr_1", "status": "approved", "run_id": "r", "call_id": "c",
                                    "tool": "t", "args_digest": cs.args_digest({}), "expires_at": "x",
                                    "decided_at": "y", "decided_by": ["a@example.com"],
                                    "reviews": [{"by": "a@example.com", "vote": "approve", "reason": "ok", "at": "y"}],
                                    "consumed": False})
        if self.path.startswith("/api/v1/approvals/no_reviews"):
            return self.reply(200, {"approval_id": "no_reviews", "status": "pending", "run_id": "r", "call_id": "c",
                                    "tool": "t", "args_digest": cs.args_digest({}), "expires_at": "x",
                                    "decided_at": None, "decided_by": [], "consumed": False})
        return self.reply(404, {"error": "not-found"})


class ClientPlumbingTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
        cls.server.daemon_threads = True
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.base_url = f"http://127.0.0.1:{cls.server.server_address[1]}"

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def client(self, **overrides):
        options = {"base_url": self.base_url, "service_slug": "payments", "webhook_secret": WEBHOOK_SECRET,
                   "api_token": API_TOKEN, "timeout": 5.0}
        options.update(overrides)
        return cs.CountersignClient(**options)

    def test_request_is_signed_and_carries_the_digest(self):
        arguments = {"account": "AC-1", "amount": 10.5, "note": "café"}
        created = self.client().request_approval(run_id="run_1", call_id="c1", tool="payments.pay",
                                                 arguments=arguments, effects="write", summary="Pay")
        self.assertEqual(created["status"], "pending")
        path, headers, raw, result = StubHandler.received[-1]
        self.assertEqual(path, "/api/v1/webhooks/payments")
        self.assertTrue(result.ok)
        event = json.loads(raw)
        self.assertEqual(event["type"], "approval.requested")
        self.assertRegex(event["timestamp"], r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z")
        # A fresh salt (docs/security.md), returned to the caller, and the digest salted with it.
        salt = event["data"]["args_salt"]
        self.assertTrue(cs.is_args_salt(salt))
        self.assertEqual(created["args_salt"], salt)
        self.assertEqual(event["data"]["args_digest"], cs.args_digest(arguments, salt))
        self.assertNotEqual(event["data"]["args_digest"], cs.args_digest(arguments))
        self.assertNotIn("requested_by", event["data"])

    def test_salt_is_fresh_per_call_reused_for_the_same_call_and_used_to_consume(self):
        client = self.client()
        arguments = {"account": "AC-9", "amount": 1}
        first = client.request_approval(run_id="run_s", call_id="c1", tool="payments.pay", arguments=arguments)
        again = client.request_approval(run_id="run_s", call_id="c1", tool="payments.pay", arguments=arguments)
        other = client.request_approval(run_id="run_s", call_id="c2", tool="payments.pay", arguments=arguments)
        self.assertEqual(first["args_salt"], again["args_salt"])
        self.assertNotEqual(first["args_salt"], other["args_salt"])
        given = client.request_approval(run_id="run_t", call_id="c1", tool="t", arguments=arguments, args_salt=SALT)
        self.assertEqual(given["args_salt"], SALT)
        with self.assertRaises(ValueError):
            client.request_approval(run_id="run_u", call_id="c1", tool="t", arguments=arguments, args_salt="bad")

        # consume with the arguments: the remembered salt, a given one, or (another client) unsalted.
        for consumer, salt, expected in (
            (client, None, cs.args_digest(arguments, first["args_salt"])),
            (self.client(), first["args_salt"], cs.args_digest(arguments, first["args_salt"])),
            (self.client(), None, cs.args_digest(arguments)),
        ):
            with self.assertRaises(cs.CountersignError):
                consumer.consume("apr_1", run_id="run_s", call_id="c1", tool="payments.pay", arguments=arguments,
                                 args_salt=salt)
            body = StubHandler.consumed[-1]
            self.assertEqual(sorted(body), ["args_digest", "call_id", "run_id", "tool"])
            self.assertEqual(body["args_digest"], expected)

    def test_error_codes(self):
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client(webhook_secret=cs.generate_webhook_secret()).request_approval(
                run_id="r", call_id="c", tool="t", arguments={})
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("invalid-signature", 401))
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().request_approval(run_id="r", call_id="c", tool="script.rate-limited", arguments={})
        self.assertEqual((ctx.exception.code, ctx.exception.status, ctx.exception.retry_after), ("rate-limited", 429, 7))
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().request_approval(run_id="r", call_id="c", tool="script.invalid", arguments={})
        self.assertEqual(ctx.exception.code, "invalid-request")
        self.assertEqual(ctx.exception.issues, [{"path": "data.tool", "message": "Invalid"}])
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client(api_token="wrong").get_approval("apr_1")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("unauthorized", 401))
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().get_approval("nope")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("not-found", 404))
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().consume("apr_1", run_id="r", call_id="c", tool="t", arguments={})
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("already-consumed", 409))
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().cancel("apr_1")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("already-decided", 409))
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().get_approval("boom")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("unexpected-response", 500))

    def test_state_wait_timeout_and_network_errors(self):
        state = self.client().wait_for_decision("apr_1", timeout=5)
        self.assertEqual(state["status"], "approved")
        with self.assertRaises(ValueError):
            self.client().get_approval("apr_1", wait=31)
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client(timeout=0.2).get_approval("slow")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("timeout", 0))
        probe = ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
        port = probe.server_address[1]
        probe.server_close()
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client(base_url=f"http://127.0.0.1:{port}").get_approval("apr_1")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("network-error", 0))

    def test_answers_carry_reviews(self):
        state = self.client().get_approval("apr_1")
        self.assertEqual(state["reviews"], [{"by": "a@example.com", "vote": "approve", "reason": "ok", "at": "y"}])
        self.assertIsNone(cs.denial_reason(state))
        taken = self.client().consume("apr_denied", run_id="r", call_id="c", tool="t", args_digest=cs.args_digest({}))
        self.assertEqual((taken["decision"], taken["reviews"]), ("denied", [DENY]))
        self.assertEqual(cs.denial_reason(taken), "wrong account; ask finance")
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().get_approval("no_reviews")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("unexpected-response", 200))
        self.assertIn("reviews", str(ctx.exception))

    def test_too_large_is_refused_before_sending(self):
        before = len(StubHandler.received)
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().request_approval(run_id="r", call_id="c", tool="t", arguments={"blob": "x" * (256 * 1024)})
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("too-large", 0))
        self.assertEqual(len(StubHandler.received), before)


if __name__ == "__main__":
    unittest.main()
