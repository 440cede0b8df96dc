"""Tests of the approval port (countersign.approval_port) against a local fake
Countersign served by http.server in a thread: every failure path must deny."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import sys
import threading
import time
import unittest
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign as cs  # noqa: E402
from countersign import _ed25519 as ed  # noqa: E402

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
SEED = bytes(range(32))
ARGS = {"account": "AC-1", "amount": 10}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _sign(seed: bytes, message: bytes) -> bytes:
    """RFC 8032 signing, for the tests only (the package only verifies)."""
    digest = hashlib.sha512(seed).digest()
    a = int.from_bytes(digest[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    public = ed._compress(ed._mul(a, ed._BASE))
    r = ed._hash_mod_l(digest[32:] + message)
    big_r = ed._compress(ed._mul(r, ed._BASE))
    s = (r + ed._hash_mod_l(big_r + public + message) * a) % ed._L
    return big_r + s.to_bytes(32, "little")


def _public(seed: bytes) -> bytes:
    a = int.from_bytes(hashlib.sha512(seed).digest()[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    return ed._compress(ed._mul(a, ed._BASE))


def make_receipt(claims: dict[str, Any], seed: bytes = SEED, kid: str = "k1") -> str:
    head = _b64(json.dumps({"alg": "EdDSA", "kid": kid, "typ": "countersign-receipt+jws"}).encode())
    body = _b64(cs.canonical_json(claims).encode())
    return f"{head}.{body}.{_b64(_sign(seed, f'{head}.{body}'.encode()))}"


def jwks_of(seed: bytes = SEED, kid: str = "k1") -> dict[str, Any]:
    return {"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": kid, "x": _b64(_public(seed)), "alg": "EdDSA", "use": "sig"}]}


AUDIT_HEAD = "ab" * 32


def issued(iat: int | None = None, ttl: int = 600) -> dict[str, Any]:
    """The receipt fields of issue 19, as Countersign signs them at a consume at ``iat`` (default now)."""
    at = int(time.time()) if iat is None else iat
    return {"iat": at, "exp": at + ttl, "policy": {"name": "payments", "version": 2}, "audit_seq": 17,
            "audit_head": AUDIT_HEAD}


class FakeCountersign:
    """Just enough of the executor API; ``mode`` picks the misbehaviour."""

    def __init__(self) -> None:
        self.mode = "approve"
        self.requests: list[dict[str, Any]] = []
        self.cancelled: list[str] = []
        self.consumes = 0
        # Execution reports as received: (path, headers, body); ``report_mode`` picks the answer.
        self.reports: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.report_mode = "ok"
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                fake.route(self, "GET")

            def do_POST(self) -> None:  # noqa: N802
                fake.route(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll interval: shutdown() waits up to one interval, and every test closes a server.
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def call(self) -> dict[str, Any]:
        data = self.requests[-1]
        return {k: data[k] for k in ("run_id", "call_id", "tool", "args_digest")}

    def route(self, h: BaseHTTPRequestHandler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        path = h.path.split("?")[0]
        mode = self.mode
        if path == "/.well-known/jwks.json":
            return self.send(h, 200, jwks_of())
        if path.endswith("/result"):
            return self.report(h, path, body)
        if path.startswith("/api/v1/webhooks/"):
            if mode == "webhook-500":
                return self.send(h, 500, {"error": "boom"})
            if mode == "webhook-malformed":
                return self.send(h, 201, None, raw=b"{not json")
            self.requests.append(json.loads(body)["data"])
            created = {"approval_id": "apr_1", "status": "pending", "args_digest": self.requests[-1]["args_digest"],
                       "expires_at": "2030-01-01T00:00:00Z", "review_url": f"{self.url}/approvals/apr_1"}
            return self.send(h, 201, created)
        if path.endswith("/cancel"):
            self.cancelled.append(path.split("/")[-2])
            return self.send(h, 200, {"approval_id": "apr_1", "status": "cancelled"})
        if path.endswith("/consume"):
            self.consumes += 1
            decision = "denied" if mode == "deny" else "approved"
            claims = {"approval_id": "apr_1", "service": "svc", **self.call(), "decision": decision,
                      "decided_by": ["bo@example.com"], "decided_at": "2026-11-29T18:00:00Z",
                      "consumed_at": "2026-11-29T18:01:00Z", **issued()}
            answered = dict(claims)  # the consume answer's fields; the receipt may differ below
            if mode.startswith("receipt-other:"):  # the receipt names another call (or outcome) than this one
                name = mode.split(":", 1)[1]
                claims[name] = "denied" if name == "decision" else cs.args_digest({}) if name == "args_digest" else "other"
            if mode.startswith("receipt-exp-ago:"):  # exp that many seconds ago
                claims |= issued(int(time.time()) - 600 - int(mode.split(":", 1)[1]))
            if mode == "receipt-before-issue-19":
                for name in ("iat", "exp", "policy", "audit_seq", "audit_head"):
                    del claims[name]
            receipt = make_receipt(claims, seed=b"x" * 32 if mode == "receipt-bad-signature" else SEED)
            claims = answered
            reviews = [{"by": "bo@example.com", "vote": "deny" if mode == "deny" else "approve",
                        "reason": "wrong account" if mode == "deny" else None, "at": "2026-11-29T18:00:00Z"}]
            return self.send(h, 200, {k: claims[k] for k in ("approval_id", "decision", "decided_by", "decided_at",
                                                             "consumed_at")} | {"reviews": reviews, "receipt": receipt})
        if mode == "state-500":
            return self.send(h, 500, {"error": "boom"})
        if mode == "state-malformed":
            return self.send(h, 200, None, raw=b"[]")
        if mode == "state-other-call":
            return self.send(h, 200, self.state("approved") | {"call_id": "other"})
        status = "pending" if mode == "pending" else "approved"
        if mode == "pending":
            time.sleep(0.2)
        return self.send(h, 200, self.state(status) | {"consumed": mode == "consumed"})

    def state(self, status: str) -> dict[str, Any]:
        return {"approval_id": "apr_1", "status": status, **self.call(), "expires_at": "2030-01-01T00:00:00Z",
                "decided_at": None, "decided_by": [], "reviews": [], "consumed": False}

    def report(self, h: BaseHTTPRequestHandler, path: str, body: bytes) -> None:
        """``POST /api/v1/approvals/{id}/result`` as Countersign answers it (docs/api.md)."""
        report = json.loads(body)
        self.reports.append((path, {k.lower(): v for k, v in h.headers.items()}, report))
        if h.headers.get("Authorization") != "Bearer token":
            return self.send(h, 401, {"error": "unauthorized"})
        if self.report_mode in ("already-reported", "not-consumed", "not-found"):
            return self.send(h, 404 if self.report_mode == "not-found" else 409, {"error": self.report_mode})
        if self.report_mode == "down":
            return self.send(h, 503, {"error": "unavailable"})
        if len(self.reports) > 1:  # once per request
            return self.send(h, 409, {"error": "already-reported"})
        return self.send(h, 200, {"approval_id": path.split("/")[4], **report,
                                  "finished_at": report["finished_at"], "reported_at": "2026-11-29T18:02:00.000Z"})

    @staticmethod
    def send(h: BaseHTTPRequestHandler, status: int, body: Any, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)


class ApprovalPortTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeCountersign()
        self.addCleanup(self.fake.close)

    def ask(self, mode: str, url: str | None = None, **options: Any) -> cs.PortDecision:
        self.fake.mode = mode
        client = cs.CountersignClient(url or self.fake.url, "svc", SECRET, "token", timeout=2)
        port = cs.ApprovalPort(client, timeout=options.pop("timeout", 5))
        return port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS, **options)

    def test_approved_allows_with_verified_receipt(self) -> None:
        result = self.ask("approve")
        self.assertTrue(result.allowed, result.reason)
        self.assertTrue(result)
        self.assertEqual(result.code, "approved")
        self.assertEqual(result.receipt["call_id"], "c1")
        self.assertEqual(self.fake.consumes, 1)
        self.assertEqual(self.fake.requests[0]["args_digest"], cs.args_digest(ARGS, self.fake.requests[0]["args_salt"]))

    def test_denied_carries_the_reason_and_reviews(self) -> None:
        result = self.ask("deny")
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "denied")
        self.assertIn("wrong account", result.reason)
        self.assertEqual(result.reviews[0]["vote"], "deny")

    def test_timeout_denies_and_cancels(self) -> None:
        started = time.monotonic()
        result = self.ask("pending", timeout=1)
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "timeout")
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(self.fake.cancelled, ["apr_1"])
        self.assertEqual(self.fake.consumes, 0)

    def test_connection_refused_denies(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed = f"http://127.0.0.1:{s.getsockname()[1]}"
        result = self.ask("approve", url=closed)
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "network-error")

    def test_server_error_denies(self) -> None:
        for mode in ("webhook-500", "state-500"):
            with self.subTest(mode=mode):
                result = self.ask(mode, timeout=1)
                self.assertFalse(result.allowed)
                self.assertEqual(result.code, "unexpected-response")
        self.assertEqual(self.fake.cancelled, ["apr_1"])  # the request that exists is withdrawn

    def test_malformed_json_denies(self) -> None:
        for mode in ("webhook-malformed", "state-malformed"):
            with self.subTest(mode=mode):
                result = self.ask(mode, timeout=1)
                self.assertFalse(result.allowed)
                self.assertEqual(result.code, "unexpected-response")
        self.assertEqual(self.fake.consumes, 0)

    def test_bad_receipt_signature_denies(self) -> None:
        result = self.ask("receipt-bad-signature")
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "invalid-receipt")

    def test_receipt_bound_to_another_call_denies(self) -> None:
        # Each field of the binding, and the outcome: a validly signed receipt about anything else never allows.
        for name in ("approval_id", "service", "run_id", "call_id", "tool", "args_digest", "decision"):
            with self.subTest(field=name):
                result = self.ask(f"receipt-other:{name}")
                self.assertEqual((result.allowed, result.code), (False, "binding-mismatch"))
                self.assertIn(f"its {name} differs", result.reason)
                self.assertIsNone(result.receipt)
                self.assertNotIn("other", result.reason)  # names the field, not the value

    def test_expired_receipt_denies(self) -> None:
        result = self.ask("receipt-exp-ago:60")
        self.assertEqual((result.allowed, result.code), (False, "invalid-receipt"))
        self.assertIn("expired", result.reason)

    def test_receipt_expiry_allows_the_clock_tolerance(self) -> None:
        # 30 seconds by default: 10 seconds past exp still allows; a port with no tolerance refuses it.
        self.assertEqual(self.ask("receipt-exp-ago:10").code, "approved")
        self.fake.mode = "receipt-exp-ago:10"
        client = cs.CountersignClient(self.fake.url, "svc", SECRET, "token", timeout=2)
        strict = cs.ApprovalPort(client, timeout=5, clock_tolerance=0)
        result = strict.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        self.assertEqual((result.allowed, result.code), (False, "invalid-receipt"))
        self.assertIn("expired", result.reason)
        # The port's clock decides: an hour ahead, a fresh receipt (exp in 600 s) is expired.
        later = cs.ApprovalPort(client, timeout=5, clock=lambda: time.time() + 3600)
        result = later.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        self.assertEqual((result.allowed, result.code), (False, "invalid-receipt"))

    def test_receipt_without_the_issue_19_fields_denies(self) -> None:
        result = self.ask("receipt-before-issue-19")
        self.assertEqual((result.allowed, result.code), (False, "invalid-receipt"))
        self.assertIn("iat", result.reason)

    def test_state_of_another_call_denies_without_consuming(self) -> None:
        result = self.ask("state-other-call")
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "binding-mismatch")
        self.assertEqual(self.fake.consumes, 0)

    def test_consumed_call_is_not_reused(self) -> None:
        result = self.ask("consumed")
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "replayed")
        self.assertEqual(self.fake.consumes, 0)

    def test_arguments_without_a_json_form_deny_before_sending(self) -> None:
        client = cs.CountersignClient(self.fake.url, "svc", SECRET, "token", timeout=2)
        result = cs.ApprovalPort(client).ask(run_id="r", call_id="c", tool="t", arguments={"x": float("nan")})
        self.assertEqual((result.allowed, result.code), (False, "invalid-arguments"))
        self.assertEqual(self.fake.requests, [])

    def test_raise_errors_raises_failures(self) -> None:
        self.fake.mode = "webhook-500"
        client = cs.CountersignClient(self.fake.url, "svc", SECRET, "token", timeout=2)
        port = cs.ApprovalPort(client, raise_errors=True)
        with self.assertRaises(cs.CountersignError):
            port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)


class PaymentDeclined(Exception):
    pass


def expected_digest(salt: str, value: Any) -> str:
    """The spec's formula, spelled out: sha256 of salt + "." + JCS(value)."""
    return "sha256:" + hashlib.sha256(f"{salt}.{cs.canonical_json(value)}".encode()).hexdigest()


class ExecutionReportTest(unittest.TestCase):
    """The port reports how an allowed call ran: ``report_execution`` and ``run``."""

    def setUp(self) -> None:
        self.fake = FakeCountersign()
        self.addCleanup(self.fake.close)
        self.hooked: list[tuple[Exception, cs.PortDecision]] = []

    def port(self, mode: str = "approve", hook: bool = True, **options: Any) -> cs.ApprovalPort:
        self.fake.mode = mode
        client = cs.CountersignClient(self.fake.url, "svc", SECRET, "token", timeout=2)
        on_error = (lambda error, decision: self.hooked.append((error, decision))) if hook else None
        return cs.ApprovalPort(client, timeout=5, on_report_error=on_error, **options)

    def salt(self) -> str:
        return self.fake.requests[-1]["args_salt"]  # as sent in the webhook

    def test_report_execution_sends_the_salted_digest_of_the_result(self) -> None:
        port = self.port()
        decision = port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        self.assertTrue(decision.allowed, decision.reason)
        self.assertEqual(decision.args_salt, self.salt())
        self.assertNotIn(self.salt(), repr(decision))  # kept out of repr
        before = time.time()
        recorded = port.report_execution(decision, status="succeeded", result={"refunded": 10, "ok": True})
        path, headers, body = self.fake.reports[-1]
        self.assertEqual(path, "/api/v1/approvals/apr_1/result")
        self.assertEqual((headers["authorization"], headers["content-type"]), ("Bearer token", "application/json"))
        self.assertEqual(sorted(body), ["finished_at", "result_digest", "status"])
        self.assertEqual(body["status"], "succeeded")
        self.assertEqual(body["result_digest"], expected_digest(self.salt(), {"refunded": 10, "ok": True}))
        self.assertEqual(body["result_digest"], cs.result_digest({"ok": True, "refunded": 10}, decision.args_salt))
        self.assertRegex(body["finished_at"], r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
        finished = datetime.fromisoformat(body["finished_at"].replace("Z", "+00:00")).timestamp()
        self.assertLessEqual(before - 0.001, finished)
        self.assertLessEqual(finished, time.time())
        self.assertEqual(recorded["reported_at"], "2026-11-29T18:02:00.000Z")
        self.assertEqual(self.hooked, [])

    def test_a_failure_reports_the_error_class_and_none_is_null(self) -> None:
        port = self.port()
        decision = port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        port.report_execution(decision, status="failed", error=PaymentDeclined("card AC-1 declined"))
        self.assertEqual(self.fake.reports[-1][2]["result_digest"],
                         expected_digest(self.salt(), {"error": "PaymentDeclined"}))
        self.assertEqual(self.fake.reports[-1][2]["status"], "failed")
        self.fake.reports.clear()
        port.report_execution(decision, status="succeeded")
        self.assertEqual(self.fake.reports[-1][2]["result_digest"], expected_digest(self.salt(), None))

    def test_run_executes_the_approved_arguments_and_reports_succeeded(self) -> None:
        calls: list[dict[str, Any]] = []

        def pay(account: str, amount: int) -> dict[str, Any]:
            calls.append({"account": account, "amount": amount})
            return {"paid": amount, "to": account}

        result = self.port().run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS, execute=pay)
        self.assertEqual(result, {"paid": 10, "to": "AC-1"})
        self.assertEqual(calls, [ARGS])
        (_, _, body), = self.fake.reports
        self.assertEqual((body["status"], body["result_digest"]),
                         ("succeeded", expected_digest(self.salt(), {"paid": 10, "to": "AC-1"})))

    def test_run_reports_failed_and_raises_the_tools_exception_again(self) -> None:
        raised = PaymentDeclined("card declined")

        def pay(account: str, amount: int) -> None:
            raise raised

        with self.assertRaises(PaymentDeclined) as ctx:
            self.port().run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS, execute=pay)
        self.assertIs(ctx.exception, raised)
        (_, _, body), = self.fake.reports
        self.assertEqual((body["status"], body["result_digest"]),
                         ("failed", expected_digest(self.salt(), {"error": "PaymentDeclined"})))

    def test_run_denied_does_not_execute_nor_report(self) -> None:
        ran: list[Any] = []
        outcome = self.port("deny").run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS,
                                        execute=lambda **kw: ran.append(kw))
        self.assertIsInstance(outcome, cs.PortDecision)
        self.assertEqual((outcome.allowed, outcome.code), (False, "denied"))
        self.assertIn("wrong account", outcome.reason)
        self.assertEqual((ran, self.fake.reports), ([], []))
        # A receipt about another call denies the same way: nothing runs.
        outcome = self.port("receipt-other:args_digest").run(run_id="run_1", call_id="c1", tool="payments.pay",
                                                              arguments=ARGS, execute=lambda **kw: ran.append(kw))
        self.assertEqual((outcome.allowed, outcome.code, ran), (False, "binding-mismatch", []))
        with self.assertRaises(TypeError):
            self.port().run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS, execute=None)  # type: ignore[arg-type]
        self.assertEqual(len(self.fake.requests), 2)  # nothing was asked for the last one

    def test_report_errors_go_to_the_hook_never_to_the_caller(self) -> None:
        for mode, code in (("already-reported", "already-reported"), ("not-consumed", "not-consumed"),
                           ("down", "unexpected-response")):
            with self.subTest(mode=mode):
                self.hooked.clear()
                self.fake.report_mode = mode
                result = self.port().run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS,
                                         execute=lambda **kw: "done")
                self.assertEqual(result, "done")
                ((error, decision),) = self.hooked
                self.assertIsInstance(error, cs.CountersignError)
                self.assertEqual((error.code, decision.approval_id), (code, "apr_1"))
        # A second report of the same call: Countersign records one.
        self.fake.report_mode = "ok"
        self.fake.reports.clear()
        self.hooked.clear()
        port = self.port()
        decision = port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        self.assertIsNotNone(port.report_execution(decision, status="succeeded", result=1))
        self.assertIsNone(port.report_execution(decision, status="succeeded", result=1))
        self.assertEqual([e.code for e, _ in self.hooked], ["already-reported"])

    def test_nothing_is_sent_for_a_call_that_was_not_allowed_or_a_bad_status(self) -> None:
        port = self.port("deny")
        denied = port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        self.assertIsNone(port.report_execution(denied, status="succeeded", result=1))
        allowed = self.port().ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS)
        self.assertIsNone(port.report_execution(allowed, status="done", result=1))
        self.assertEqual(self.fake.reports, [])
        (first, _), (second, _) = self.hooked
        self.assertEqual((type(first), first.code, first.status), (cs.CountersignError, "not-consumed", 0))
        self.assertIsInstance(second, ValueError)

    def test_the_default_hook_logs_one_line_without_values(self) -> None:
        self.fake.report_mode = "not-found"
        port = self.port(hook=False)
        secret_args = {"account": "AC-SECRET-ACCOUNT", "amount": 10}
        with self.assertLogs("countersign", level="WARNING") as logs:
            result = port.run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=secret_args,
                              execute=lambda **kw: {"token": "RESULT-SECRET-TOKEN"})
        self.assertEqual(result, {"token": "RESULT-SECRET-TOKEN"})
        (line,) = logs.output
        self.assertNotIn("\n", line)
        self.assertIn("apr_1", line)
        self.assertIn("not-found", line)
        for value in ("AC-SECRET-ACCOUNT", "RESULT-SECRET-TOKEN", self.salt()):
            self.assertNotIn(value, line)

    def test_a_failing_hook_falls_back_to_the_warning(self) -> None:
        self.fake.report_mode = "already-reported"
        client = cs.CountersignClient(self.fake.url, "svc", SECRET, "token", timeout=2)

        def broken(error: Exception, decision: cs.PortDecision) -> None:
            raise RuntimeError("hook bug")

        port = cs.ApprovalPort(client, timeout=5, on_report_error=broken)
        with self.assertLogs("countersign", level="WARNING") as logs:
            self.assertEqual(port.run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS,
                                      execute=lambda **kw: 7), 7)
        self.assertIn("already-reported", logs.output[0])

    def test_a_report_after_a_revision_uses_the_changed_calls_salt(self) -> None:
        fake = RevisingFake([[{"op": "replace", "path": "/amount", "value": 5}], "approve"])
        self.addCleanup(fake.close)
        client = cs.CountersignClient(fake.url, "svc", SECRET, "token", timeout=2)
        port = cs.ApprovalPort(client, timeout=5, max_revisions=10)
        result = port.run(run_id="run_1", call_id="c1", tool="payments.pay", arguments=ARGS,
                          execute=lambda account, amount: amount)
        self.assertEqual(result, 5)
        path, _, body = fake.reports[-1]
        self.assertEqual(path, "/api/v1/approvals/apr_2/result")
        self.assertEqual(body["result_digest"], expected_digest(fake.requests[-1]["args_salt"], 5))
        self.assertNotEqual(fake.requests[0]["args_salt"], fake.requests[-1]["args_salt"])


class RevisingFake(FakeCountersign):
    """Several requests, each decided as it arrives by the next of ``steps``: a
    patch (the reviewer proposes it), "approve", "deny", or ("elsewhere", patch)
    for changes another call already carried. Revisions are checked as
    Countersign checks them: only of a revised request, once, and compared
    with the original arguments with the patch applied."""

    def __init__(self, steps: list[Any]) -> None:
        super().__init__()
        self.steps = list(steps)
        self.always_differs = False
        self.held: dict[str, dict[str, Any]] = {}

    def route(self, h: BaseHTTPRequestHandler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        path = h.path.split("?")[0]
        if path == "/.well-known/jwks.json":
            return self.send(h, 200, jwks_of())
        if path.endswith("/result"):
            return self.report(h, path, body)
        if path.startswith("/api/v1/webhooks/"):
            data = json.loads(body)["data"]
            self.requests.append(data)
            warnings = []
            if "revises" in data:
                original = self.held.get(data["revises"])
                if original is None or original["status"] != "revised":
                    return self.send(h, 422, {"error": "invalid-request"})
                if original["revised_by"] is not None:
                    return self.send(h, 409, {"error": "already-revised"})
                original["revised_by"] = data["call_id"]
                expected = cs.apply_json_patch(original["arguments"], original["patch"])
                if self.always_differs or expected != data["arguments"] or data["tool"] != original["tool"]:
                    warnings = ["revision-differs"]
            approval_id = f"apr_{len(self.held) + 1}"
            step = self.steps.pop(0) if self.steps else "approve"
            held = {k: data[k] for k in ("run_id", "call_id", "tool", "args_digest", "arguments")}
            held |= {"status": "approved", "patch": None, "revised_by": None}
            if step in ("approve", "deny"):
                held["status"] = "approved" if step == "approve" else "denied"
            else:
                elsewhere = isinstance(step, tuple)
                held |= {"status": "revised", "patch": step[1] if elsewhere else step,
                         "revised_by": "another-call" if elsewhere else None}
            self.held[approval_id] = held
            created = {"approval_id": approval_id, "status": "pending", "args_digest": data["args_digest"],
                       "expires_at": "2030-01-01T00:00:00Z", "review_url": f"{self.url}/approvals/{approval_id}"}
            return self.send(h, 201, created | ({"warnings": warnings} if warnings else {}))
        approval_id = path.split("/")[4]
        held = self.held[approval_id]
        binding = {k: held[k] for k in ("run_id", "call_id", "tool", "args_digest")}
        decided = {"decided_by": ["ana@example.com"], "decided_at": "2026-11-29T18:00:00Z"}
        if path.endswith("/cancel"):
            self.cancelled.append(approval_id)
            return self.send(h, 200, {"approval_id": approval_id, "status": "cancelled"})
        if path.endswith("/consume"):
            self.consumes += 1
            claims = {"approval_id": approval_id, "service": "svc", **binding, "decision": held["status"], **decided,
                      "consumed_at": "2026-11-29T18:01:00Z", **issued()}
            vote = "deny" if held["status"] == "denied" else "approve"
            answer = {k: claims[k] for k in ("approval_id", "decision", "decided_by", "decided_at", "consumed_at")}
            answer |= {"reviews": [] if held["status"] == "revised" else
                       [{"by": "ana@example.com", "vote": vote, "reason": "no", "at": "2026-11-29T18:00:00Z"}],
                       "receipt": make_receipt(claims)}
            if held["status"] == "revised":
                answer |= {"patch": held["patch"],
                           "proposal": {"by": "ana@example.com", "reason": "smaller", "at": "2026-11-29T18:00:00Z"}}
            return self.send(h, 200, answer)
        return self.send(h, 200, {"approval_id": approval_id, "status": held["status"], **binding, **decided,
                                  "expires_at": "2030-01-01T00:00:00Z", "reviews": [], "consumed": False})


class RevisionTest(unittest.TestCase):
    ARGS = {"account": "AC-1", "amount": 500, "api_key": "sk_live_not_a_real_key_0123456789"}

    def ask(self, steps: list[Any], **options: Any) -> tuple[cs.PortDecision, RevisingFake]:
        fake = RevisingFake(steps)
        self.addCleanup(fake.close)
        fake.always_differs = options.pop("always_differs", False)
        client = cs.CountersignClient(fake.url, "svc", SECRET, "token", timeout=2)
        port = cs.ApprovalPort(client, timeout=5, **{"max_revisions": 10, **options})
        return port.ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=self.ARGS), fake

    def test_revised_then_approved_runs_the_changed_arguments(self) -> None:
        before = json.dumps(self.ARGS)
        result, fake = self.ask([[{"op": "replace", "path": "/amount", "value": 50}], "approve"])
        self.assertTrue(result.allowed, result.reason)
        self.assertEqual(result.reason, "approved by ana@example.com after 1 revision")
        self.assertEqual(result.arguments, {"account": "AC-1", "amount": 50, "api_key": self.ARGS["api_key"]})
        self.assertEqual(json.dumps(self.ARGS), before)  # the caller's arguments are never changed
        first, second = fake.requests
        self.assertNotIn("revises", first)
        self.assertEqual((second["run_id"], second["call_id"], second["tool"], second["revises"]),
                         ("run_1", "c1~rev1", "payments.pay", "apr_1"))
        self.assertEqual(second["arguments"], result.arguments)
        self.assertNotEqual(second["args_salt"], first["args_salt"])
        self.assertEqual(second["args_digest"], cs.args_digest(result.arguments, second["args_salt"]))
        # The final request's receipt; the revised one is kept as evidence.
        self.assertEqual((result.approval_id, result.receipt["call_id"], result.receipt["decision"]),
                         ("apr_2", "c1~rev1", "approved"))
        (revision,) = result.revisions
        self.assertEqual((revision.approval_id, revision.call_id, revision.receipt["decision"]), ("apr_1", "c1", "revised"))
        self.assertEqual(revision.patch, [{"op": "replace", "path": "/amount", "value": 50}])
        self.assertEqual(revision.proposal["by"], "ana@example.com")
        self.assertEqual(fake.cancelled, [])

    def test_a_chain_of_two_revisions(self) -> None:
        result, fake = self.ask([
            [{"op": "replace", "path": "/amount", "value": 50}],
            [{"op": "replace", "path": "/account", "value": "AC-3"}, {"op": "remove", "path": "/api_key"}],
            "approve",
        ])
        self.assertTrue(result.allowed, result.reason)
        self.assertEqual(result.arguments, {"account": "AC-3", "amount": 50})
        self.assertEqual([(d["call_id"], d.get("revises")) for d in fake.requests],
                         [("c1", None), ("c1~rev1", "apr_1"), ("c1~rev2", "apr_2")])
        self.assertEqual([r.approval_id for r in result.revisions], ["apr_1", "apr_2"])
        self.assertIn("after 2 revisions", result.reason)

    def test_a_revision_then_denied_denies(self) -> None:
        result, _ = self.ask([[{"op": "replace", "path": "/amount", "value": 50}], "deny"])
        self.assertEqual((result.allowed, result.code, result.arguments), (False, "denied", None))
        self.assertEqual(len(result.revisions), 1)

    def test_a_patch_that_does_not_apply_denies_and_sends_nothing_more(self) -> None:
        result, fake = self.ask([[{"op": "replace", "path": "/missing", "value": 1}], "approve"])
        self.assertEqual((result.allowed, result.code, result.approval_id), (False, "invalid-revision", "apr_1"))
        self.assertIsNone(result.arguments)
        self.assertNotIn(self.ARGS["api_key"], result.reason)
        self.assertEqual(len(fake.requests), 1)
        not_an_object, _ = self.ask([[{"op": "replace", "path": "", "value": [1]}]])
        self.assertEqual(not_an_object.code, "invalid-revision")

    def test_already_revised_denies(self) -> None:
        result, fake = self.ask([("elsewhere", [{"op": "replace", "path": "/amount", "value": 50}]), "approve"])
        self.assertEqual((result.allowed, result.code), (False, "already-revised"))
        self.assertIsNone(result.arguments)
        self.assertEqual([d["call_id"] for d in fake.requests], ["c1", "c1~rev1"])

    def test_revision_differs_denies_and_withdraws(self) -> None:
        seen: list[str] = []
        result, fake = self.ask([[{"op": "replace", "path": "/amount", "value": 50}], "approve"], always_differs=True,
                                on_request=lambda created: seen.append(created["approval_id"]))
        self.assertEqual((result.allowed, result.code), (False, "revision-differs"))
        self.assertEqual(fake.cancelled, ["apr_2"])
        self.assertEqual(seen, ["apr_1"])

    def test_the_chain_is_bounded(self) -> None:
        patch = [{"op": "replace", "path": "/amount", "value": 1}]
        limited, fake = self.ask([patch, patch, "approve"], max_revisions=1)
        self.assertEqual((limited.allowed, limited.code), (False, "too-many-revisions"))
        self.assertEqual(len(fake.requests), 2)
        none, fake = self.ask([patch], max_revisions=0)
        self.assertEqual((none.allowed, none.code), (False, "revised"))
        self.assertEqual(len(fake.requests), 1)

    def test_following_is_opted_into(self) -> None:
        # A caller written before revisions runs its own arguments: by default a revised call is denied.
        fake = RevisingFake([[{"op": "replace", "path": "/amount", "value": 1}]])
        self.addCleanup(fake.close)
        client = cs.CountersignClient(fake.url, "svc", SECRET, "token", timeout=2)
        decision = cs.ApprovalPort(client, timeout=5).ask(run_id="run_1", call_id="c1", tool="payments.pay", arguments=self.ARGS)
        self.assertEqual((decision.allowed, decision.code), (False, "revised"))
        self.assertEqual(len(fake.requests), 1)

    def test_revision_call_ids(self) -> None:
        self.assertEqual(cs.revision_call_id("c1", 3), "c1~rev3")
        self.assertEqual(cs.revision_call_id("z" * 195, 1), "z" * 195 + "~rev1")  # exactly 200 is kept
        long = "x" * 196
        digest = hashlib.sha256(long.encode()).hexdigest()[:16]
        self.assertEqual(cs.revision_call_id(long, 1), "x" * 150 + "~rev1~" + digest)
        self.assertNotEqual(cs.revision_call_id(long + "y", 1), cs.revision_call_id(long, 1))
        self.assertLessEqual(len(cs.revision_call_id("y" * 195, 12)), 200)
        # Counted in UTF-16 code units, as Countersign counts; a pair is never cut.
        astral = "a" + "\U0001F600" * 100
        self.assertTrue(cs.revision_call_id(astral, 1).startswith("a" + "\U0001F600" * 74 + "~rev1~"))
        with self.assertRaises(ValueError):
            cs.revision_call_id("c1", 0)


class Ed25519Test(unittest.TestCase):
    def test_rfc8032_vector_1(self) -> None:
        public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        signature = bytes.fromhex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )
        self.assertTrue(ed.ed25519_verify(public, b"", signature))
        self.assertFalse(ed.ed25519_verify(public, b"x", signature))
        self.assertEqual(_public(bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")), public)

    def test_verifies_a_receipt_signed_by_jose(self) -> None:
        from test_receipts import RECEIPT_JWKS, RECEIPT_JWS, RECEIPT_PAYLOAD

        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, ed.ed25519_verify, allow_expired=True), RECEIPT_PAYLOAD)

    def test_round_trip_and_tampering(self) -> None:
        signature = _sign(SEED, b"hello")
        self.assertTrue(ed.ed25519_verify(_public(SEED), b"hello", signature))
        self.assertFalse(ed.ed25519_verify(_public(SEED), b"hellO", signature))
        self.assertFalse(ed.ed25519_verify(_public(SEED), b"hello", signature[:63] + bytes([signature[63] ^ 1])))
        self.assertFalse(ed.ed25519_verify(b"\x00" * 31, b"hello", signature))


if __name__ == "__main__":
    unittest.main()
