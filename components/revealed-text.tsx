// Service-written text as revealed by lib/display/reveal: isolated from its
// neighbours (<bdi dir="ltr">: no bidi reordering across values), escaped
// characters highlighted, look-alike letters marked, and a visible flag when
// the value is suspicious.
import type { Segment } from "@/lib/display/reveal";

export function Segments({ segments }: { segments: readonly Segment[] }) {
  return (
    <>
      {segments.map((s, i) =>
        "t" in s ? (
          s.t
        ) : "e" in s ? (
          <span
            key={i}
            className="whitespace-nowrap rounded-sm bg-rose-100 font-mono text-rose-900 outline outline-1 outline-rose-300 [word-break:normal]"
            title={s.title}
            data-escape=""
          >
            {s.e}
          </span>
        ) : (
          // A look-alike letter (a Cyrillic а in a Latin word): the letter itself, marked.
          <mark
            key={i}
            className="rounded-sm bg-yellow-200 text-inherit underline decoration-red-600 decoration-wavy"
            title={s.title}
            data-lookalike=""
          >
            {s.m}
          </mark>
        ),
      )}
    </>
  );
}

/** The per-value mark; `block` puts it on a line of its own (in the arguments tree). */
export function Flag({ reason, block = false }: { reason: string | null; block?: boolean }) {
  if (!reason) return null;
  return (
    <span
      className={`${block ? "mt-0.5 block w-fit" : "ml-1 inline-block"} rounded bg-red-100 px-1 font-sans text-xs font-medium text-red-800 [word-break:normal]`}
      data-flag=""
      title={reason}
    >
      ⚠ {reason}
    </span>
  );
}

/** One value: isolated, left to right, with its flag after it. */
export function RevealedText({ value, className }: { value: { segments: readonly Segment[]; flag: string | null }; className?: string }) {
  return (
    <>
      <bdi dir="ltr" className={className}>
        <Segments segments={value.segments} />
      </bdi>
      <Flag reason={value.flag} />
    </>
  );
}
