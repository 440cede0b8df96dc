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
          <span key={i} className="cs-escape" title={s.title} data-escape="">
            {s.e}
          </span>
        ) : (
          // A look-alike letter (a Cyrillic а in a Latin word): the letter itself, marked.
          <mark key={i} className="cs-lookalike" title={s.title} data-lookalike="">
            {s.m}
          </mark>
        ),
      )}
    </>
  );
}

/** The per-value mark; `block` puts it on a line of its own (in the arguments tree). */
export function Flag({ reason, block = false, compact = false }: { reason: string | null; block?: boolean; compact?: boolean }) {
  if (!reason) return null;
  if (compact) {
    // In a listing: the sign, its reason as its name and tooltip (said once, not twice, on a page of a hundred requests).
    return (
      <span role="img" className="cs-flag ml-1 inline-block" data-flag="" title={reason}>
        ⚠
      </span>
    );
  }
  return (
    <span className={`${block ? "mt-0.5 block w-fit" : "ml-1 inline-block"} cs-flag`} data-flag="" title={reason}>
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

/**
 * A listed value (lib/display/listed-request): its start, revealed and
 * isolated, "…" when the rest is on the request's page, and its flag as a sign
 * whose reason is its tooltip.
 */
export function ClippedText({
  value,
  className,
}: {
  value: { segments: readonly Segment[]; flag: string | null; cut: boolean };
  className?: string;
}) {
  return (
    <>
      <bdi dir="ltr" className={className}>
        <Segments segments={value.segments} />
      </bdi>
      {value.cut && <span className="text-slate-500">…</span>}
      <Flag reason={value.flag} compact />
    </>
  );
}
