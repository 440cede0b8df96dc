"""Drives the approval port against a live Countersign.

Used by test/executor/python-port.test.ts. For each scenario named on the
command line (default: all, in this order) it asks the port about one call and
prints JSON lines on stdout: {"event": "requested", "scenario", "approval_id"}
as soon as the request exists (the test then decides it, or not), and
{"event": "result", "scenario", "allowed", "code", "reason", ...} when the port
answers. Scenarios: approve, deny, replay (the approved call asked again),
replay-elsewhere (the same, from a client with a fresh salt), timeout, expired.

In the approve scenario the port then runs the call (a stand-in refund) and
reports the run (``port.report_execution``), and the script checks that the
server recorded it: the state's ``execution`` must hold "succeeded" and the
salted digest of the refund's result, else it exits with 1 (saying why on
stderr). The result line carries ``execution`` (the state's, as read back)
and ``reported`` (the report's answer); other scenarios carry null for both.

Configuration comes from the environment: COUNTERSIGN_URL, COUNTERSIGN_SLUG,
COUNTERSIGN_WEBHOOK_SECRET, COUNTERSIGN_API_TOKEN. Run it from this directory
or with the package installed (``pip install ./clients/python``).
"""

import json
import os
import sys
import uuid
from typing import Any

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


def refund(account: str, amount: int, memo: str) -> dict:
    """The tool the approve scenario runs once allowed (nothing is refunded)."""
    return {"refunded": amount, "account": account, "reference": f"rf-{uuid.uuid4().hex[:8]}"}


def run_and_report(
    port: countersign.ApprovalPort, decision: countersign.PortDecision, errors: list[str]
) -> tuple[Any, Any]:
    """Runs the allowed call, reports it, and checks the server recorded exactly that report."""
    outcome = refund(**decision.arguments)
    reported = port.report_execution(decision, status="succeeded", result=outcome)
    if reported is None:
        sys.exit(f"the execution report was not recorded: {errors}")
    execution = port.client.get_approval(decision.approval_id)["execution"]
    expected = {"status": "succeeded", "result_digest": countersign.result_digest(outcome, decision.args_salt)}
    if not execution or {k: execution.get(k) for k in expected} != expected:
        sys.exit(f"the state's execution is not the report sent: {execution!r}")
    if execution["reported_at"] != reported["reported_at"] or execution["finished_at"] != reported["finished_at"]:
        sys.exit(f"the state's execution differs from the report's answer: {execution!r} / {reported!r}")
    return execution, reported


def main(names: list[str]) -> int:
    run_id = f"py-port-{uuid.uuid4()}"
    shared = client()  # the approve and replay scenarios share it, as one executor would
    calls = {"approve": "c1", "deny": "c2", "replay": "c1", "replay-elsewhere": "c1", "timeout": "c3", "expired": "c4"}
    report_errors: list[str] = []  # what the ports' on_report_error was told
    for name in names or SCENARIOS:
        def requested(created: dict, name: str = name) -> None:
            emit({"event": "requested", "scenario": name, "approval_id": created["approval_id"], "status": created["status"]})

        port = countersign.ApprovalPort(
            client() if name == "replay-elsewhere" else shared,
            timeout=1 if name == "timeout" else 20,
            on_request=requested,
            on_report_error=lambda error, _decision: report_errors.append(f"{type(error).__name__}: {error}"),
        )
        result = port.ask(
            run_id=run_id, call_id=calls[name], tool="payments.refund", arguments=ARGS,
            summary="Refund order 1234", effects="write", expires_in=2 if name == "expired" else None,
        )
        execution = reported = None
        if name == "approve" and result.allowed:
            execution, reported = run_and_report(port, result, report_errors)
        emit({
            "event": "result", "scenario": name, "run_id": run_id, "allowed": result.allowed, "truthy": bool(result),
            "code": result.code, "reason": result.reason, "approval_id": result.approval_id,
            "reviews": result.reviews, "receipt": result.receipt, "receipt_jws": result.receipt_jws,
            "package": os.path.dirname(countersign.__file__),
            "execution": execution, "reported": reported,
        })
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
