"""Drives the approval port against a live Countersign.

Used by test/executor/python-port.test.ts. For each scenario named on the
command line (default: all, in this order) it asks the port about one call and
prints JSON lines on stdout: {"event": "requested", "scenario", "approval_id"}
as soon as the request exists (the test then decides it, or not), and
{"event": "result", "scenario", "allowed", "code", "reason", ...} when the port
answers. Scenarios: approve, deny, replay (the approved call asked again),
replay-elsewhere (the same, from a client with a fresh salt), timeout, expired.

Configuration comes from the environment: COUNTERSIGN_URL, COUNTERSIGN_SLUG,
COUNTERSIGN_WEBHOOK_SECRET, COUNTERSIGN_API_TOKEN. Run it from this directory
or with the package installed (``pip install ./clients/python``).
"""

import json
import os
import sys
import uuid

if os.environ.get("COUNTERSIGN_USE_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import countersign  # noqa: E402

SCENARIOS = ("approve", "deny", "replay", "replay-elsewhere", "timeout", "expired")
ARGS = {"account": "AC-7", "amount": 42, "memo": "refund order 1234"}


def client() -> countersign.CountersignClient:
    return countersign.CountersignClient(
        base_url=os.environ["COUNTERSIGN_URL"],
        service_slug=os.environ["COUNTERSIGN_SLUG"],
        webhook_secret=os.environ["COUNTERSIGN_WEBHOOK_SECRET"],
        api_token=os.environ["COUNTERSIGN_API_TOKEN"],
    )


def emit(value: dict) -> None:
    print(json.dumps(value), flush=True)


def main(names: list[str]) -> int:
    run_id = f"py-port-{uuid.uuid4()}"
    shared = client()  # the approve and replay scenarios share it, as one executor would
    calls = {"approve": "c1", "deny": "c2", "replay": "c1", "replay-elsewhere": "c1", "timeout": "c3", "expired": "c4"}
    for name in names or SCENARIOS:
        def requested(created: dict, name: str = name) -> None:
            emit({"event": "requested", "scenario": name, "approval_id": created["approval_id"], "status": created["status"]})

        port = countersign.ApprovalPort(
            client() if name == "replay-elsewhere" else shared,
            timeout=1 if name == "timeout" else 20,
            on_request=requested,
        )
        result = port.ask(
            run_id=run_id, call_id=calls[name], tool="payments.refund", arguments=ARGS,
            summary="Refund order 1234", effects="write", expires_in=2 if name == "expired" else None,
        )
        emit({
            "event": "result", "scenario": name, "run_id": run_id, "allowed": result.allowed, "truthy": bool(result),
            "code": result.code, "reason": result.reason, "approval_id": result.approval_id,
            "reviews": result.reviews, "receipt": result.receipt, "receipt_jws": result.receipt_jws,
            "package": os.path.dirname(countersign.__file__),
        })
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
