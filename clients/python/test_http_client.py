"""Tests of CountersignClient's HTTP plumbing against a local stub server
(countersign.http_client); the live-app tests come separately
(test/executor/python-client.test.ts runs live_check.py).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402
from test_digest import SALT  # noqa: E402


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

    def test_from_env_reads_the_four_variables_and_names_the_missing_ones(self):
        env = {
            "COUNTERSIGN_URL": "http://127.0.0.1:9",
            "COUNTERSIGN_SLUG": "billing",
            "COUNTERSIGN_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "COUNTERSIGN_API_TOKEN": "cs_tok_x",
        }
        client = cs.CountersignClient.from_env(env)
        self.assertEqual((client.base_url, client.service_slug), ("http://127.0.0.1:9", "billing"))
        with self.assertRaises(ValueError) as caught:
            cs.CountersignClient.from_env({"COUNTERSIGN_URL": "http://127.0.0.1:9", "COUNTERSIGN_SLUG": "billing"})
        self.assertEqual(str(caught.exception), "Countersign client: set COUNTERSIGN_WEBHOOK_SECRET, COUNTERSIGN_API_TOKEN")

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
