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
            key = {"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": _b64(_public(SEED)), "alg": "EdDSA", "use": "sig"}
            return self.send(h, 200, {"keys": [key]})
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
                      "consumed_at": "2026-11-29T18:01:00Z"}
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

        self.assertEqual(cs.verify_receipt(RECEIPT_JWS, RECEIPT_JWKS, ed.ed25519_verify), RECEIPT_PAYLOAD)

    def test_round_trip_and_tampering(self) -> None:
        signature = _sign(SEED, b"hello")
        self.assertTrue(ed.ed25519_verify(_public(SEED), b"hello", signature))
        self.assertFalse(ed.ed25519_verify(_public(SEED), b"hellO", signature))
        self.assertFalse(ed.ed25519_verify(_public(SEED), b"hello", signature[:63] + bytes([signature[63] ^ 1])))
        self.assertFalse(ed.ed25519_verify(b"\x00" * 31, b"hello", signature))


if __name__ == "__main__":
    unittest.main()
