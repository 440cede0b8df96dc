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
    head = _b64(json.dumps({"alg": "EdDSA", "kid": kid}).encode())
    body = _b64(json.dumps(claims).encode())
    return f"{head}.{body}.{_b64(_sign(seed, f'{head}.{body}'.encode()))}"


class FakeCountersign:
    """Just enough of the executor API; ``mode`` picks the misbehaviour."""

    def __init__(self) -> None:
        self.mode = "approve"
        self.requests: list[dict[str, Any]] = []
        self.cancelled: list[str] = []
        self.consumes = 0
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
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

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
            key = {"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": _b64(_public(SEED)), "alg": "EdDSA", "use": "sig"}
            return self.send(h, 200, {"keys": [key]})
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
                      "consumed_at": "2026-11-29T18:01:00Z"}
            if mode == "receipt-other-call":
                claims["call_id"] = "c2"
            if mode == "receipt-expired":
                claims["exp"] = int(time.time()) - 60
            receipt = make_receipt(claims, seed=b"x" * 32 if mode == "receipt-bad-signature" else SEED)
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
        result = self.ask("receipt-other-call")
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "invalid-receipt")
        self.assertIn("call_id", result.reason)

    def test_expired_receipt_denies(self) -> None:
        result = self.ask("receipt-expired")
        self.assertFalse(result.allowed)
        self.assertEqual(result.code, "invalid-receipt")

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

        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, ed.ed25519_verify), RECEIPT_PAYLOAD)

    def test_round_trip_and_tampering(self) -> None:
        signature = _sign(SEED, b"hello")
        self.assertTrue(ed.ed25519_verify(_public(SEED), b"hello", signature))
        self.assertFalse(ed.ed25519_verify(_public(SEED), b"hellO", signature))
        self.assertFalse(ed.ed25519_verify(_public(SEED), b"hello", signature[:63] + bytes([signature[63] ^ 1])))
        self.assertFalse(ed.ed25519_verify(b"\x00" * 31, b"hello", signature))


if __name__ == "__main__":
    unittest.main()
