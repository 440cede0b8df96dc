// The redacted arguments as a collapsible tree. Text only: every value is
// rendered as a React text node, never as HTML.
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isJson(v: unknown): v is Json {
  return v === null || ["boolean", "number", "string", "object"].includes(typeof v);
}

function Leaf({ value }: { value: Json }) {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  const redacted = typeof value === "string" && value.startsWith("[redacted:");
  return <span className={redacted ? "rounded bg-amber-100 px-1 text-amber-900" : "text-slate-800"}>{text}</span>;
}

function Node({ name, value, depth }: { name: string | null; value: Json; depth: number }) {
  const label = name === null ? null : <span className="text-slate-500">{name}: </span>;
  if (value === null || typeof value !== "object") {
    return (
      <li className="break-all">
        {label}
        <Leaf value={value} />
      </li>
    );
  }
  const entries: Array<[string, Json]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const kind = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <li>
      <details open={depth < 3}>
        <summary className="cursor-pointer">
          {label}
          <span className="text-slate-500">{kind}</span>
        </summary>
        <ul className="ml-4 border-l border-slate-200 pl-3">
          {entries.map(([k, v]) => (
            <Node key={k} name={k} value={v} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

export function JsonTree({ value }: { value: unknown }) {
  if (!isJson(value)) return <p>(not JSON)</p>;
  return (
    <ul className="font-mono text-sm" aria-label="Arguments (redacted)">
      <Node name={null} value={value} depth={0} />
    </ul>
  );
}
