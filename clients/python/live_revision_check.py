"""Drives the approval port through a revision against a live Countersign.

Used by test/executor/python-revision-port.test.ts. It asks the port about one
call on the tool named by COUNTERSIGN_TOOL with the secret COUNTERSIGN_TEST_KEY
among its arguments, and prints JSON lines on stdout: {"event": "requested",
"scenario": "revise", "approval_id", "call_id", "status", "warnings"} for each
request the port sends (the test then proposes changes or approves), and one
{"event": "result", ...} when the port answers. The secret itself is never
printed: the result says whether it came back unchanged.

Configuration comes from the environment: COUNTERSIGN_URL, COUNTERSIGN_SLUG,
COUNTERSIGN_WEBHOOK_SECRET, COUNTERSIGN_API_TOKEN, COUNTERSIGN_TOOL and
COUNTERSIGN_TEST_KEY.
"""

import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign  # noqa: E402


def emit(value: dict) -> None:
    print(json.dumps(value), flush=True)


def main() -> int:
    key = os.environ["COUNTERSIGN_TEST_KEY"]
    args = {"account": "AC-1", "amount": 500, "api_key": key}

    def requested(created: dict) -> None:
        emit({"event": "requested", "scenario": "revise", "approval_id": created["approval_id"],
              "status": created["status"], "warnings": created.get("warnings")})

    port = countersign.ApprovalPort(countersign.CountersignClient.from_env(), timeout=30, on_request=requested, max_revisions=10)
    result = port.ask(run_id=f"py-rev-{uuid.uuid4()}", call_id="c1", tool=os.environ["COUNTERSIGN_TOOL"], arguments=args)
    shown = None
    if result.arguments is not None:
        shown = {k: v for k, v in result.arguments.items() if k != "api_key"}
    emit({
        "event": "result", "scenario": "revise", "allowed": result.allowed, "code": result.code,
        "reason": result.reason, "approval_id": result.approval_id, "receipt": result.receipt,
        "receipt_jws": result.receipt_jws, "arguments": shown,
        "api_key_unchanged": result.arguments is not None and result.arguments.get("api_key") == key,
        "original_unchanged": args["amount"] == 500,
        "revisions": [{"approval_id": r.approval_id, "call_id": r.call_id, "proposal": r.proposal,
                       "patch": r.patch, "receipt_jws": r.receipt_jws} for r in result.revisions],
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
