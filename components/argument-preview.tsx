// A listed request's arguments (the run page): the small preview of
// lib/display/listed-request, read-only, keys and values revealed and
// flagged as in the request's own viewer, each isolated from its
// neighbours; what is left out is said ("… and more"), with a link to the
// request's page for all of it. Text only: every value is a React text node.
import type { PreviewBranch, PreviewKey, PreviewNode } from "@/lib/display/listed-request";
import { countLabel } from "@/lib/display/tree-state";
import { Flag, Segments } from "./revealed-text";

const MORE = "cs-more";

/** "142 KB", "900 bytes". */
const sizeOf = (bytes: number) => (bytes < 1000 ? `${bytes} bytes` : `${Math.round(bytes / 1000).toLocaleString("en-US")} KB`);

function Key({ name }: { name: PreviewKey | number | null }) {
  if (name === null) return null;
  if (typeof name === "number") return <span className="text-slate-500">{name}: </span>;
  return (
    <span className="text-slate-500">
      <bdi dir="ltr" data-key="">
        <Segments segments={name.segments} />
        {name.cut && <span className={MORE}>…</span>}
      </bdi>
      <Flag reason={name.flag ? `key: ${name.flag}` : null} compact />:{" "}
    </span>
  );
}

const sizeText = (b: PreviewBranch) =>
  b.size === null
    ? b.type === "array"
      ? "[items]"
      : "{keys}"
    : b.type === "array"
      ? `[${countLabel("array", b.size)}]`
      : `{${countLabel("object", b.size)}}`;

function Node({ node }: { node: PreviewNode }) {
  if (node.k === "leaf") {
    const tone = node.redacted ? "rounded bg-amber-100 px-1 text-amber-900" : node.type === "string" ? "text-slate-800" : "text-blue-900";
    return (
      <li className="[overflow-wrap:anywhere]">
        <Key name={node.key} />
        <bdi dir="ltr" className={tone} data-value="">
          <Segments segments={node.segments} />
          {node.cut && <span className={MORE}> …</span>}
        </bdi>
        <Flag reason={node.flag} compact />
      </li>
    );
  }
  return (
    <li className="[overflow-wrap:anywhere]" data-container={node.type}>
      <Key name={node.key} />
      <span className="text-slate-500">{node.size === 0 ? (node.type === "array" ? "[]" : "{}") : sizeText(node)}</span>
      {node.children.length > 0 && <Children branch={node} />}
      {node.children.length === 0 && node.more && <span className={MORE}> …</span>}
    </li>
  );
}

function Children({ branch }: { branch: PreviewBranch }) {
  return (
    <ul className="ml-4 border-l border-slate-200 pl-2">
      {branch.children.map((c, i) => (
        <Node key={i} node={c} />
      ))}
      {branch.more && <li className={MORE}>… and more</li>}
    </ul>
  );
}

/** The preview, and a link to the whole arguments on the request's page (said when something is left out). */
export function ArgumentPreview({ approvalId, root, cut, bytes }: { approvalId: string; root: PreviewBranch; cut: boolean; bytes: number }) {
  return (
    <div className="font-mono text-xs" data-testid="run-args">
      {root.children.length === 0 ? (
        <p className="text-slate-500">{root.more ? "…" : root.type === "array" ? "[]" : "{}"}</p>
      ) : (
        <ul>
          {root.children.map((c, i) => (
            <Node key={i} node={c} />
          ))}
          {root.more && <li className={MORE}>… and more</li>}
        </ul>
      )}
      <p className="mt-1 font-sans">
        <a href={`/approvals/${approvalId}`} className="text-blue-800 underline" data-testid="run-full-args">
          {cut ? `All arguments (${sizeOf(bytes)}) on the request's page` : "The arguments on the request's page"}
        </a>
      </p>
    </div>
  );
}
