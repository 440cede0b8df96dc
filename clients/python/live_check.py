"""Drives the Python client through a whole approval against a live Countersign.

Used by test/executor/python-client.test.ts: it requests an approval, prints
{"approval_id": ...} on stdout, waits for one line on stdin (the test decides
the request meanwhile), then waits for the decision, consumes it, tries a
second consume (which must be refused) and prints the outcome as JSON.

Configuration comes from the environment: COUNTERSIGN_URL, COUNTERSIGN_SLUG,
COUNTERSIGN_WEBHOOK_SECRET, COUNTERSIGN_API_TOKEN.
"""

import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign  # noqa: E402


def main() -> int:
    client = countersign.CountersignClient(
        base_url=os.environ["COUNTERSIGN_URL"],
        service_slug=os.environ["COUNTERSIGN_SLUG"],
        webhook_secret=os.environ["COUNTERSIGN_WEBHOOK_SECRET"],
        api_token=os.environ["COUNTERSIGN_API_TOKEN"],
    )
    run_id = f"py-run-{uuid.uuid4()}"
    arguments = {"account": "AC-7", "amount": 42, "memo": "refund order 1234", "nested": {"ok": True, "n": None}}
    created = client.request_approval(run_id=run_id, call_id="c1", tool="payments.refund", arguments=arguments)
    salt = created["args_salt"]  # fresh, made by the client (docs/security.md)
    print(json.dumps({"approval_id": created["approval_id"], "args_digest": created["args_digest"], "args_salt": salt}), flush=True)

    sys.stdin.readline()  # the test has decided the request
    state = client.wait_for_decision(created["approval_id"], timeout=20)
    taken = client.consume(created["approval_id"], run_id=run_id, call_id="c1", tool="payments.refund", arguments=arguments)
    _header, payload = countersign.decode_receipt(taken["receipt"])
    countersign.check_receipt_binding(
        payload, approval_id=created["approval_id"], run_id=run_id, call_id="c1", tool="payments.refund",
        args_digest=countersign.args_digest(arguments, salt),
    )
    try:
        client.consume(created["approval_id"], run_id=run_id, call_id="c1", tool="payments.refund", arguments=arguments)
        second = "accepted"
    except countersign.CountersignError as error:
        second = error.code
    print(json.dumps({
        "status": state["status"],
        "decision": taken["decision"],
        "decided_by": taken["decided_by"],
        "reviews": taken["reviews"],
        "state_reviews": state["reviews"],
        "denial_reason": countersign.denial_reason(taken),
        "receipt": taken["receipt"],
        "second_consume": second,
        "local_digest": countersign.args_digest(arguments, salt),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
