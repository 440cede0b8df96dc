"""Tests of Standard Webhooks signing and verification (countersign.webhooks)."""

from __future__ import annotations

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
