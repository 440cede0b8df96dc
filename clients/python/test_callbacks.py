"""Tests of verify_callback and denial_reason (countersign.callbacks, countersign.reviews)."""

from __future__ import annotations

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
