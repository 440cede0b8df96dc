// The redacted arguments as a collapsible tree, from a bounded display tree
// (lib/display/bounded-tree): keys and values already revealed, each isolated
// from its neighbours, the rest of a long container or string behind a
// "show more" button that fetches it a page at a time. Text only: every value
// is a React text node, never HTML. No hooks: rendered on the server for the
// first view and in the browser for pages fetched later.
import type { BranchView, KeyView, NodeView } from "@/lib/display/bounded-tree";
import { Flag, Segments } from "./revealed-text";
import { MoreChildren, MoreText } from "./json-tree-more";

type Where = { approvalId: string; path: number[] };

function Key({ name, where }: { name: KeyView | number | null; where: Where }) {
  if (name === null) return null;
  if (typeof name === "number") return <span className="text-slate-500">{name}: </span>;
  return (
    <span className="text-slate-500">
      <bdi dir="ltr" data-key="">
        <Segments segments={name.segments} />
        {name.rest > 0 && <MoreText approvalId={where.approvalId} path={where.path} from={name.at} remaining={name.rest} keyOf />}
      </bdi>
      :{" "}
    </span>
  );
}

const keyFlag = (key: KeyView | number | null) => (key !== null && typeof key === "object" && key.flag ? `key: ${key.flag}` : null);

export function JsonNode({ node, where, depth }: { node: NodeView; where: Where; depth: number }) {
  if (node.k === "leaf") {
    const tone = node.redacted ? "rounded bg-amber-100 px-1 text-amber-900" : node.type === "string" ? "text-slate-800" : "text-blue-900";
    return (
      <li className="break-all">
        <Key name={node.key} where={where} />
        <bdi dir="ltr" className={tone} data-value="">
          <Segments segments={node.segments} />
          {node.rest > 0 && <MoreText approvalId={where.approvalId} path={where.path} from={node.at} remaining={node.rest} />}
        </bdi>
        <Flag reason={keyFlag(node.key)} block />
        <Flag reason={node.flag} block />
      </li>
    );
  }
  return (
    <li>
      <details open={depth < 3 && node.children.length > 0}>
        <summary className="cursor-pointer">
          <Key name={node.key} where={where} />
          <span className="text-slate-500">
            {node.type === "array" ? `[${node.size.toLocaleString("en-US")}]` : `{${node.size.toLocaleString("en-US")}}`}
          </span>
          <Flag reason={keyFlag(node.key)} />
        </summary>
        <JsonChildren parent={node} where={where} depth={depth} />
      </details>
    </li>
  );
}

/** A container's children, then the button for the ones not shown yet. */
export function JsonChildren({ parent, where, depth }: { parent: Pick<BranchView, "children" | "size" | "type">; where: Where; depth: number }) {
  const shown = parent.children.length;
  return (
    <ul className="ml-4 border-l border-slate-200 pl-3">
      <JsonNodes nodes={parent.children} where={where} from={0} depth={depth + 1} />
      {shown < parent.size && (
        <MoreChildren approvalId={where.approvalId} path={where.path} from={shown} remaining={parent.size - shown} kind={parent.type} />
      )}
    </ul>
  );
}

/** Sibling nodes, the first at child position `from` of the container at `where.path`. */
export function JsonNodes({ nodes, where, from, depth }: { nodes: readonly NodeView[]; where: Where; from: number; depth: number }) {
  return (
    <>
      {nodes.map((n, i) => (
        <JsonNode key={from + i} node={n} where={{ approvalId: where.approvalId, path: [...where.path, from + i] }} depth={depth} />
      ))}
    </>
  );
}

export function JsonTree({ approvalId, root }: { approvalId: string; root: BranchView }) {
  return (
    <div className="font-mono text-sm" aria-label="Arguments (redacted)" role="group">
      <span className="text-slate-500">
        {root.type === "array" ? `[${root.size.toLocaleString("en-US")}]` : `{${root.size.toLocaleString("en-US")}}`}
      </span>
      <JsonChildren parent={root} where={{ approvalId, path: [] }} depth={0} />
    </div>
  );
}
