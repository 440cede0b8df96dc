"""Tests of receipt decoding and verification (countersign.receipts): the
signature (receipts signed by jose and by the tests' own RFC 8032 signer), the
payload's fields, expiry, and the offline verifier."""

from __future__ import annotations

import base64
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402
from test_approval_port import issued, jwks_of, make_receipt  # noqa: E402  (the tests' Ed25519 signer)

# A receipt signed by jose (Node) with a throwaway Ed25519 key, as Countersign
# signs them since issue 19 (JCS payload, typ header), and its JWKS. Its exp
# (2026-11-29T18:11:00Z) is long past: check it with allow_expired or now=.
RECEIPT_JWKS = {
    "keys": [
        {
            "crv": "Ed25519",
            "x": "aprqHa0aa4HKy1KetMPbiZusv0ws5VTrmIQHgbOjqjk",
            "kty": "OKP",
            "kid": "py-test-2",
            "alg": "EdDSA",
            "use": "sig",
        }
    ]
}
RECEIPT_JWS = (
    "eyJhbGciOiJFZERTQSIsImtpZCI6InB5LXRlc3QtMiIsInR5cCI6ImNvdW50ZXJzaWduLXJlY2VpcHQrandzIn0.eyJhcHByb3ZhbF9pZCI6ImFw"
    "cl9weSIsImFyZ3NfZGlnZXN0Ijoic2hhMjU2OjJmZDE3MzA2NWY1ZTAxMWU2NDBkYTdmZGI4MTg4ZmZjODc1Njg1NmJlYjRlOTEyNmQ2MjdmNDRl"
    "M2RkMTJiZjkiLCJhdWRpdF9oZWFkIjoiOWYyYzRlMWEwYjdkM2M1ZThmNmExYjJjM2Q0ZTVmNjA3MTgyOTNhNGI1YzZkN2U4ZjlhMGIxYzJkM2U0"
    "ZjVhNiIsImF1ZGl0X3NlcSI6NDEyLCJjYWxsX2lkIjoiYzEiLCJjb25zdW1lZF9hdCI6IjIwMjYtMTEtMjlUMTg6MDE6MDAuMDAwWiIsImRlY2lk"
    "ZWRfYXQiOiIyMDI2LTExLTI5VDE4OjAwOjAwLjAwMFoiLCJkZWNpZGVkX2J5IjpbImJvQGV4YW1wbGUuY29tIl0sImRlY2lzaW9uIjoiYXBwcm92"
    "ZWQiLCJleHAiOjE3OTU5NzU4NjAsImlhdCI6MTc5NTk3NTI2MCwicG9saWN5Ijp7Im5hbWUiOiJwYXltZW50cy1mb3VyLWV5ZXMiLCJ2ZXJzaW9u"
    "IjozfSwicnVuX2lkIjoicnVuXzQyIiwic2VydmljZSI6InBheW1lbnRzIiwidG9vbCI6InBheW1lbnRzLnBheSJ9.PuLkcE8ByGthjMlPiciFS-V"
    "b4U5VN7dO7bpKLXjzbbwMZcafyWHUmGgFtvOxfi1IK7na43znvm2WKtvPgfg2CQ"
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
    "decided_at": "2026-11-29T18:00:00.000Z",
    "consumed_at": "2026-11-29T18:01:00.000Z",
    "iat": 1795975260,
    "exp": 1795975860,
    "policy": {"name": "payments-four-eyes", "version": 3},
    "audit_seq": 412,
    "audit_head": "9f2c4e1a0b7d3c5e8f6a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6",
}
RECEIPT_EXP = RECEIPT_PAYLOAD["exp"]

# A receipt from before issue 19 (no iat, exp, policy, audit_seq, audit_head), signed by jose.
LEGACY_JWKS = {
    "keys": [{"crv": "Ed25519", "x": "njCXZpyMk7n2rH4GndDlvwAu_yG6QoJB6_9AsA-MhT4", "kty": "OKP", "kid": "py-test-1",
              "alg": "EdDSA", "use": "sig"}]
}
LEGACY_JWS = (
    "eyJhbGciOiJFZERTQSIsImtpZCI6InB5LXRlc3QtMSJ9."
    "eyJhcHByb3ZhbF9pZCI6ImFwcl9weSIsInNlcnZpY2UiOiJwYXltZW50cyIsInJ1bl9pZCI6InJ1bl80MiIsImNhbGxfaWQiOiJjMSIsInRvb2wi"
    "OiJwYXltZW50cy5wYXkiLCJhcmdzX2RpZ2VzdCI6InNoYTI1NjoyZmQxNzMwNjVmNWUwMTFlNjQwZGE3ZmRiODE4OGZmYzg3NTY4NTZiZWI0ZTkx"
    "MjZkNjI3ZjQ0ZTNkZDEyYmY5IiwiZGVjaXNpb24iOiJhcHByb3ZlZCIsImRlY2lkZWRfYnkiOlsiYm9AZXhhbXBsZS5jb20iXSwiZGVjaWRlZF9h"
    "dCI6IjIwMjYtMTEtMjlUMTg6MDA6MDBaIiwiY29uc3VtZWRfYXQiOiIyMDI2LTExLTI5VDE4OjAxOjAwWiJ9."
    "r47mq34qWwT89nw40GTzr4igCtsiT293izLQSrhkPdKu2cGqfzIqb4pD9TDiwfSV45CBTtX7SIsWQkBXiXLoBA"
)

def flip_signature_byte(jws: str) -> str:
    head, body, sig = jws.split(".")
    raw = bytearray(base64.urlsafe_b64decode(sig + "=="))
    raw[10] ^= 1
    return f"{head}.{body}.{base64.urlsafe_b64encode(bytes(raw)).decode().rstrip('=')}"


class ReceiptTests(unittest.TestCase):
    def test_decode_without_verification(self):
        header, payload = cs.decode_receipt(RECEIPT_JWS)
        self.assertEqual(header, {"alg": "EdDSA", "kid": "py-test-2", "typ": "countersign-receipt+jws"})
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

        payload = cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, fake, now=RECEIPT_EXP, run_id="run_42")
        self.assertEqual(payload, RECEIPT_PAYLOAD)
        public_key, message, signature = seen[0]
        self.assertEqual(public_key, base64.urlsafe_b64decode(RECEIPT_JWKS["keys"][0]["x"] + "="))
        self.assertEqual(message, RECEIPT_JWS.rsplit(".", 1)[0].encode())
        self.assertEqual(len(signature), 64)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, lambda *_: False, now=RECEIPT_EXP)
        self.assertEqual(ctx.exception.reason, "signature")

    def test_verify_refuses_other_algorithms_and_unknown_keys(self):
        hs_header = base64.urlsafe_b64encode(b'{"alg":"HS256","kid":"py-test-2"}').decode().rstrip("=")
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
        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify, allow_expired=True), RECEIPT_PAYLOAD)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(flip_signature_byte(RECEIPT_JWS), RECEIPT_JWKS, cs.ed25519_verify, allow_expired=True)
        self.assertEqual(ctx.exception.reason, "signature")

    def test_a_receipt_from_before_issue_19_is_refused(self):
        # Its signature is good; it lacks the fields every receipt carries now.
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(LEGACY_JWS, LEGACY_JWKS, cs.ed25519_verify, allow_expired=True)
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-receipt", "iat"))


def signed(at=None, **changes):
    """A receipt signed here with real Ed25519 (the tests' RFC 8032 signer); a change to MISSING drops the field."""
    claims = {**RECEIPT_PAYLOAD, **issued(at), **changes}
    claims = {name: value for name, value in claims.items() if value is not MISSING}
    return make_receipt(claims), claims


MISSING = object()
JWKS = jwks_of()


class ReceiptExpiryTests(unittest.TestCase):
    def test_a_fresh_receipt_verifies_on_the_current_time(self):
        jws, claims = signed()
        self.assertEqual(cs.verify_receipt(jws, JWKS, cs.ed25519_verify), claims)

    def test_an_expired_receipt_is_refused(self):
        jws, _ = signed(at=int(time.time()) - 3600)  # exp 50 minutes ago
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(jws, JWKS, cs.ed25519_verify)
        self.assertEqual((ctx.exception.code, ctx.exception.reason, ctx.exception.status), ("invalid-receipt", "expired", 0))
        self.assertIn("expired", str(ctx.exception))
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify)  # the jose receipt, on today's clock
        self.assertEqual(ctx.exception.reason, "expired")

    def test_allow_expired_accepts_it(self):
        jws, claims = signed(at=int(time.time()) - 3600)
        self.assertEqual(cs.verify_receipt(jws, JWKS, cs.ed25519_verify, allow_expired=True), claims)
        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify, allow_expired=True), RECEIPT_PAYLOAD)

    def test_clock_tolerance(self):
        exp = RECEIPT_EXP
        verify = cs.verify_receipt
        # Refused only when now > exp + tolerance: 30 seconds by default.
        for now in (exp - 600, exp, exp + 29.5, exp + 30):
            self.assertEqual(verify(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify, now=now), RECEIPT_PAYLOAD, now - exp)
        for now, tolerance in ((exp + 30.5, 30), (exp + 31, 30), (exp + 1, 0), (exp + 61, 60)):
            with self.assertRaises(cs.CountersignError) as ctx:
                verify(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify, now=now, clock_tolerance=tolerance)
            self.assertEqual(ctx.exception.reason, "expired", (now - exp, tolerance))
        self.assertEqual(verify(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify, now=exp + 60, clock_tolerance=60), RECEIPT_PAYLOAD)
        self.assertEqual(cs.RECEIPT_CLOCK_TOLERANCE_SECONDS, 30)

    def test_signature_fields_and_binding_are_checked_before_expiry(self):
        late = RECEIPT_EXP + 3600
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(flip_signature_byte(RECEIPT_JWS), RECEIPT_JWKS, cs.ed25519_verify, now=late)
        self.assertEqual(ctx.exception.reason, "signature")
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, cs.ed25519_verify, now=late, call_id="c2")
        self.assertEqual(ctx.exception.reason, "call_id")
        jws, _ = signed(at=int(time.time()) - 3600, policy={"name": "p"})
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(jws, JWKS, cs.ed25519_verify)
        self.assertEqual(ctx.exception.reason, "policy")


ASSERTION = {
    "reviewer": "bo@example.com",
    "credential_id": "Y3JlZC0x",
    "nonce": "n-1",
    "reason": "",
    "authenticator_data": "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ",
    "client_data_json": "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0",
    "signature": "MEUCIQDx",
}


class ReceiptShapeTests(unittest.TestCase):
    def refused_on(self, field, **changes):
        jws, _ = signed(**changes)
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt(jws, JWKS, cs.ed25519_verify)
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-receipt", field), changes)
        self.assertIn(f"field {field} is missing or invalid", str(ctx.exception))

    def test_the_issue_19_fields_are_required(self):
        for field in ("iat", "exp", "policy", "audit_seq", "audit_head"):
            self.refused_on(field, **{field: MISSING})

    def test_times_are_integers(self):
        now = int(time.time())
        for field in ("iat", "exp"):
            # JCS writes 1.0 as 1, so a float the payload can carry is one with a fraction.
            for value in (now + 0.5, str(now), True, None):
                self.refused_on(field, **{field: value})

    def test_policy(self):
        for policy in ({"name": "p"}, {"version": 1}, {"name": "p", "version": -1}, {"name": "p", "version": True},
                       {"name": "p", "version": 1.5}, {"name": 3, "version": 1}, "p", ["p", 1]):
            self.refused_on("policy", policy=policy)

    def test_audit_anchor(self):
        for seq in (0, -1, 1.5, "1", True):
            self.refused_on("audit_seq", audit_seq=seq)
        for head in ("AB" * 32, "ab" * 31, "ab" * 33, "zz" * 32, "sha256:" + "ab" * 32, 1):
            self.refused_on("audit_head", audit_head=head)

    def test_standing_approval_is_an_optional_string(self):
        jws, claims = signed(standing_approval="sta_1")
        self.assertEqual(cs.verify_receipt(jws, JWKS, cs.ed25519_verify)["standing_approval"], "sta_1")
        for value in (None, 1, ["sta_1"]):
            self.refused_on("standing_approval", standing_approval=value)

    def test_assertions_are_an_optional_list_of_the_spec_shape(self):
        jws, _ = signed(assertions=[ASSERTION, {**ASSERTION, "reviewer": "cy@example.com", "nonce": "n-2"}])
        self.assertEqual(len(cs.verify_receipt(jws, JWKS, cs.ed25519_verify)["assertions"]), 2)
        jws, _ = signed(assertions=[])
        self.assertEqual(cs.verify_receipt(jws, JWKS, cs.ed25519_verify)["assertions"], [])
        wrong = [None, ASSERTION, [ASSERTION, "x"], [{**ASSERTION, "credential_id": "not base64url!"}],
                 [{**ASSERTION, "signature": "abc="}], [{**ASSERTION, "nonce": 1}], [{**ASSERTION, "reviewer": None}],
                 [{**ASSERTION, "reason": None}]]
        wrong += [[{k: v for k, v in ASSERTION.items() if k != name}] for name in ASSERTION]
        for value in wrong:
            self.refused_on("assertions", assertions=value)


class OfflineVerifierTests(unittest.TestCase):
    def test_signature_and_shape_of_an_expired_receipt(self):
        self.assertEqual(cs.verify_receipt_offline(RECEIPT_JWS, RECEIPT_JWKS), RECEIPT_PAYLOAD)
        jws, claims = signed(at=int(time.time()) - 86400)
        self.assertEqual(cs.verify_receipt_offline(jws, JWKS), claims)
        self.assertEqual(cs.verify_receipt_offline(jws, JWKS, ed25519_verify=cs.ed25519_verify), claims)

    def test_refusals(self):
        for jws, jwks, reason in (
            (flip_signature_byte(RECEIPT_JWS), RECEIPT_JWKS, "signature"),
            (RECEIPT_JWS, JWKS, "no-key"),
            (LEGACY_JWS, LEGACY_JWKS, "iat"),
            (signed(audit_head="x")[0], JWKS, "audit_head"),
        ):
            with self.assertRaises(cs.CountersignError) as ctx:
                cs.verify_receipt_offline(jws, jwks)
            self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-receipt", reason))

    def test_passkey_assertions_are_checked_when_passkeys_are_given(self):
        # Real assertions are in test_passkeys.py; this one's signature is not even DER.
        jws, claims = signed(assertions=[ASSERTION])
        self.assertEqual(cs.verify_receipt_offline(jws, JWKS), claims)  # shape only, as documented
        passkeys = {"bo@example.com": [{"credential_id": "Y3JlZC0x", "public_key": "pQECAyYgASFYIA", "alg": -7}]}
        with self.assertRaises(cs.CountersignError) as ctx:
            cs.verify_receipt_offline(jws, JWKS, passkeys)
        self.assertEqual((ctx.exception.code, ctx.exception.reason), ("invalid-receipt", "assertions"))
        self.assertIn("assertion 1 (bo@example.com)", str(ctx.exception))
        # Nothing to check: no assertions in the receipt.
        self.assertEqual(cs.verify_receipt_offline(RECEIPT_JWS, RECEIPT_JWKS, passkeys), RECEIPT_PAYLOAD)
        with self.assertRaises(TypeError):
            cs.verify_receipt_offline(jws, JWKS, ["bo@example.com"])  # type: ignore[arg-type]

if __name__ == "__main__":
    unittest.main()
