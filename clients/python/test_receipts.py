"""Tests of receipt decoding and verification (countersign.receipts)."""

from __future__ import annotations

import base64
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402

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

    def test_real_ed25519_signature_and_flipped_byte(self):
        # The package's own verifier: always there, so this check runs on every machine.
        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify), RECEIPT_PAYLOAD)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(flip_signature_byte(RECEIPT_JWS), RECEIPT_JWKS, cs.ed25519_verify)
        self.assertEqual(ctx.exception.reason, "signature")


if __name__ == "__main__":
    unittest.main()
