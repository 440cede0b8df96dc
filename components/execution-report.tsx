// The run of an approved request as its executor reported it, or the note
// that no report has arrived since the consume (lib/executions/execution-view.ts).
import type { ExecutionView } from "@/lib/executions/execution-view";
import { Ago, LocalTime } from "./time";

export function ExecutionReport({ execution }: { execution: ExecutionView }) {
  return (
    <section aria-labelledby="execution-h" className="rounded border border-slate-200 bg-white p-4" data-testid="execution">
      <h2 id="execution-h" className="mb-1 text-sm font-semibold">
        Execution
      </h2>
      {execution.state === "reported" ? (
        <p className="text-sm" data-testid="execution-reported">
          Executed at <LocalTime at={execution.finishedAt.toISOString()} />,{" "}
          <span
            className={execution.status === "succeeded" ? "font-medium text-green-800" : "font-medium text-red-800"}
            data-testid="execution-status"
          >
            {execution.status}
          </span>
          , result digest{" "}
          <span className="break-all font-mono" data-testid="result-digest">
            {execution.resultDigest}
          </span>{" "}
          <span className="text-slate-500">
            (reported <LocalTime at={execution.reportedAt.toISOString()} />)
          </span>
        </p>
      ) : (
        <p className="text-sm text-slate-700" data-testid="execution-awaiting">
          No execution report has arrived: the executor took the approval <Ago at={execution.consumedAt.toISOString()} /> and has not said how the
          call ran.
        </p>
      )}
    </section>
  );
}
