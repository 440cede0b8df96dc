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


RECORDED_AT = "2026-11-29T18:02:00.000Z"
RESULT_DIGEST = "sha256:" + "5a" * 32


class StubHandler(BaseHTTPRequestHandler):
    received: list = []
    consumed: list = []
    reports: list = []

    def log_message(self, *args):  # keep test output quiet
        pass

    def reply(self, status, body, extra=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        try:
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (the timeout test's slow answer)

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
        if self.path.endswith("/result"):
            return self.result(raw)
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

    def result(self, raw):
        """The execution report: one id per answer of docs/api.md."""
        StubHandler.reports.append((self.path, self.headers.get("Content-Type"), raw))
        approval_id = self.path.split("/")[4]
        report = json.loads(raw)
        if approval_id == "apr_ok":
            return self.reply(200, {"approval_id": approval_id, "status": report["status"],
                                    "result_digest": report["result_digest"], "finished_at": report["finished_at"],
                                    "reported_at": RECORDED_AT})
        if approval_id == "apr_reported":
            return self.reply(409, {"error": "already-reported"})
        if approval_id == "apr_unconsumed":
            return self.reply(409, {"error": "not-consumed"})
        if approval_id == "apr_late":
            return self.reply(422, {"error": "invalid-request", "issues": [
                {"path": "finished_at", "message": "must not be more than 5 minutes in the future"}]})
        if approval_id == "apr_malformed":
            return self.reply(200, {"approval_id": approval_id, "status": report["status"]})
        if approval_id == "apr_down":
            return self.reply(503, {"error": "unavailable"}, {"Retry-After": "5"})
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
        if self.path.startswith("/api/v1/approvals/executed") or self.path.startswith("/api/v1/approvals/bad_execution"):
            execution = {"status": "succeeded", "result_digest": RESULT_DIGEST, "finished_at": "2026-11-29T18:01:30.000Z",
                         "reported_at": RECORDED_AT}
            if self.path.startswith("/api/v1/approvals/bad_execution"):
                execution = {**execution, "status": "done"}
            return self.reply(200, {"approval_id": "executed", "status": "approved", "run_id": "r", "call_id": "c",
                                    "tool": "t", "args_digest": cs.args_digest({}), "expires_at": "x",
                                    "decided_at": "y", "decided_by": ["a@example.com"], "reviews": [],
                                    "consumed": True, "execution": execution})
        if self.path.startswith("/api/v1/approvals/waiting") or self.path.startswith("/api/v1/approvals/bad_waiting"):
            waiting = [{"role": "payments", "needed": 2, "eligible": 3}, {"role": "oncall", "needed": 2, "eligible": 0}]
            if self.path.startswith("/api/v1/approvals/bad_waiting"):
                waiting = [{"role": "payments", "needed": -1, "eligible": 3}]
            return self.reply(200, {"approval_id": "waiting", "status": "pending", "run_id": "r", "call_id": "c",
                                    "tool": "t", "args_digest": cs.args_digest({}), "expires_at": "x",
                                    "decided_at": None, "decided_by": [], "reviews": [], "consumed": False,
                                    "execution": None, "waiting_on": waiting})
        if self.path.startswith("/api/v1/approvals/no_reviews"):
            return self.reply(200, {"approval_id": "no_reviews", "status": "pending", "run_id": "r", "call_id": "c",
                                    "tool": "t", "args_digest": cs.args_digest({}), "expires_at": "x",
                                    "decided_at": None, "decided_by": [], "consumed": False})
        return self.reply(404, {"error": "not-found"})


class StubServerTestCase(unittest.TestCase):
    """Starts the stub server once per test class; ``client()`` talks to it."""

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


class ClientPlumbingTests(StubServerTestCase):

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


class ExecutionReportTests(StubServerTestCase):
    """``report_execution``: POST /api/v1/approvals/{id}/result (docs/api.md, "Report how the call ran")."""

    def test_wire_format_and_answer(self):
        from datetime import datetime, timedelta, timezone

        finished = datetime(2026, 11, 29, 19, 1, 30, 123456, tzinfo=timezone(timedelta(hours=1)))
        recorded = self.client().report_execution("apr_ok", status="succeeded", result_digest=RESULT_DIGEST,
                                                  finished_at=finished)
        path, content_type, raw = StubHandler.reports[-1]
        self.assertEqual(path, "/api/v1/approvals/apr_ok/result")
        self.assertEqual(content_type, "application/json")
        # Exactly the three fields (the server refuses any other), the time in UTC with milliseconds.
        self.assertEqual(json.loads(raw), {"status": "succeeded", "result_digest": RESULT_DIGEST,
                                           "finished_at": "2026-11-29T18:01:30.123Z"})
        self.assertEqual(recorded, {"approval_id": "apr_ok", "status": "succeeded", "result_digest": RESULT_DIGEST,
                                    "finished_at": "2026-11-29T18:01:30.123Z", "reported_at": RECORDED_AT})
        # A string is sent as given; the id is quoted into the path.
        self.client().report_execution("apr_ok", status="failed", result_digest=RESULT_DIGEST,
                                       finished_at="2026-11-29T19:01:30+01:00")
        self.assertEqual(json.loads(StubHandler.reports[-1][2])["finished_at"], "2026-11-29T19:01:30+01:00")
        with self.assertRaises(cs.CountersignError):
            self.client().report_execution("a/b", status="failed", result_digest=RESULT_DIGEST, finished_at="x")
        self.assertEqual(StubHandler.reports[-1][0], "/api/v1/approvals/a%2Fb/result")

    def test_error_mapping(self):
        self.assertTrue({"already-reported", "not-consumed"} <= cs.CONTRACT_ERROR_CODES)
        report = {"status": "succeeded", "result_digest": RESULT_DIGEST, "finished_at": "2026-11-29T18:01:30Z"}
        for approval_id, code, status in (
            ("apr_reported", "already-reported", 409),
            ("apr_unconsumed", "not-consumed", 409),
            ("apr_nobody", "not-found", 404),
            ("apr_late", "invalid-request", 422),
            ("apr_malformed", "unexpected-response", 200),
            ("apr_down", "unexpected-response", 503),
        ):
            with self.subTest(code=code, approval_id=approval_id):
                with self.assertRaises(cs.CountersignError) as ctx:
                    self.client().report_execution(approval_id, **report)
                self.assertEqual((ctx.exception.code, ctx.exception.status), (code, status))
                if code == "invalid-request":
                    self.assertEqual(ctx.exception.issues[0]["path"], "finished_at")
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client(api_token="wrong").report_execution("apr_ok", **report)
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("unauthorized", 401))

    def test_refused_before_sending(self):
        from datetime import datetime

        before = len(StubHandler.reports)
        good = {"status": "succeeded", "result_digest": RESULT_DIGEST, "finished_at": "2026-11-29T18:01:30Z"}
        for wrong in ({"status": "done"}, {"status": None}, {"result_digest": "sha256:" + "5A" * 32},
                      {"result_digest": "5a" * 32}, {"finished_at": datetime(2026, 11, 29, 18, 1, 30)}):
            with self.subTest(wrong=wrong):
                with self.assertRaises(ValueError):
                    self.client().report_execution("apr_ok", **{**good, **wrong})
        with self.assertRaises(TypeError):
            self.client().report_execution("apr_ok", **{**good, "finished_at": 1_700_000_000})
        self.assertEqual(len(StubHandler.reports), before)

    def test_the_state_carries_the_execution(self):
        state = self.client().get_approval("executed")
        self.assertEqual(state["execution"], {"status": "succeeded", "result_digest": RESULT_DIGEST,
                                              "finished_at": "2026-11-29T18:01:30.000Z", "reported_at": RECORDED_AT})
        self.assertNotIn("execution", self.client().get_approval("apr_1"))  # servers before the field
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().get_approval("bad_execution")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("unexpected-response", 200))
        self.assertIn("execution", str(ctx.exception))


    def test_the_state_says_who_may_still_decide(self):
        state = self.client().get_approval("waiting")
        self.assertEqual(state["waiting_on"], [{"role": "payments", "needed": 2, "eligible": 3},
                                               {"role": "oncall", "needed": 2, "eligible": 0}])
        self.assertNotIn("waiting_on", self.client().get_approval("apr_1"))  # servers before the field
        with self.assertRaises(cs.CountersignError) as ctx:
            self.client().get_approval("bad_waiting")
        self.assertEqual((ctx.exception.code, ctx.exception.status), ("unexpected-response", 200))
        self.assertIn("waiting_on", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
