// Secrets split across neighbouring strings: {"a": "sk_live_ab", "b": "cd…"},
// ["ghp_abc", "def…"], a PEM key given as an array of lines. Adjacent
// sibling strings are scanned once more, joined; a match that spans two or
// more of them is hidden in each piece it touches, and a match inside one
// piece that only the neighbours' context reveals ({"a": "password=",
// "b": "hunter2"}, an AWS key id next to its secret) is hidden too.
//
// A joined match is ignored when a piece other than the first already holds
// a match of its own by the same rule: in {"name": "Ana", "email": "ana@example.com"} the
// join "Anaana@example.com" is an email only because of the second piece,
// and "Ana" must stay visible. Card numbers are the exception where the
// number visibly goes on ("pay with 2000 - " + a later piece that is a card
// alone: a separator at the cut) or the first piece holds six of its digits
// (an issuer prefix); "25" + a card stays visible. When the first piece holds a match, it runs
// on into the following pieces, which are hidden too (for emails only where
// the domain visibly goes on), and all of the first piece's share is hidden,
// which can start before its own match ("2000 - 2385 … 88" + "2": the piece
// alone hides only from "2385").
// Some secrets hide every piece they touch, whatever the pieces hold on
// their own (`acrossAlways`): a PEM block, and a seed phrase cut into a few
// words and the rest ("abandon ability able" + "about above … zoo" must not
// leave its first words visible). An unterminated PEM BEGIN always hides the
// following pieces up to the END line.
//
// Bounded: a piece longer than 2 × EDGE joins only its first and last EDGE
// characters (the joined text is cut between them), so the joined texts are
// never longer than the pieces, and each piece is scanned on its own at most
// once more. Joined texts are not decoded: an encoded secret is caught
// within its own string.
import type { Scanner, Tagged } from "./scan";
import { isCardSeparator } from "./rules";

const EDGE = 128;
const PEM_END = /-----END [^\r\n]{0,80}?-----/g;

type Part = { piece: number; from: number; at: number; length: number };
type Portion = { piece: number; start: number; end: number };

// Whether a card number found only across pieces, whose first share is not
// a card alone, reads as one number (see above).
function cardGoesOn(pieces: readonly string[], [first, second]: readonly Portion[]): boolean {
  if (!first || !second) return false;
  const share = (pieces[first.piece] as string).slice(first.start, first.end);
  if (isCardSeparator(share.charCodeAt(share.length - 1))) return true;
  if (isCardSeparator((pieces[second.piece] as string).charCodeAt(second.start))) return true;
  return share.replace(/[^0-9]/g, "").length >= 6;
}

export function splitSecretRanges(
  pieces: readonly string[],
  scanner: Scanner,
  acrossAlways: ReadonlySet<number>,
  rules: { pem: number; email: number; card: number },
): Map<number, Tagged[]> {
  const result = new Map<number, Tagged[]>();
  const own = new Map<number, Tagged[]>();
  const ownRanges = (p: number) => {
    let r = own.get(p);
    if (!r) own.set(p, (r = scanner.find(pieces[p] as string)));
    return r;
  };

  const scanJoined = (text: string, parts: Part[]) => {
    if (parts.length < 2) return;
    for (const range of scanner.findPlain(text)) {
      // Parts are in text order: binary search for the first one the range reaches.
      let lo = 0;
      let hi = parts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const p = parts[mid] as Part;
        if (p.at + p.length <= range.start) lo = mid + 1;
        else hi = mid;
      }
      const touched: Part[] = [];
      for (let k = lo; k < parts.length && (parts[k] as Part).at < range.end; k++) touched.push(parts[k] as Part);
      if (touched.length === 0) continue;
      const portions = touched.map((p) => ({
        piece: p.piece,
        start: p.from + Math.max(0, range.start - p.at),
        end: p.from + Math.min(p.length, range.end - p.at),
      }));
      if (portions.length === 1) {
        // Inside one piece but found only with a neighbour's context (an
        // AWS key id before its secret, "password=" before its value).
        const q = portions[0] as (typeof portions)[number];
        if (ownRanges(q.piece).some((o) => o.rule === range.rule && o.start < q.end && o.end > q.start)) continue;
      } else if (!acrossAlways.has(range.rule)) {
        const explained = portions.map((q) => ownRanges(q.piece).some((o) => o.rule === range.rule && o.start < q.end && o.end > q.start));
        if (explained.some(Boolean)) {
          // See above: "Ana" + "ana@example.com" stays visible; "ana@x.xn" +
          // "--p1ai" is one email, "ana@example.com" + "Bob" is not.
          if (!explained[0] && !(range.rule === rules.card && cardGoesOn(pieces, portions))) continue;
          const next = portions.find((_, k) => !explained[k]);
          if (range.rule === rules.email && !(next && /^[-.]/.test((pieces[next.piece] as string).slice(next.start)))) continue;
          // A share is hidden with the piece's own match it overlaps, as one
          // range: hiding only its part would leave the rest of that match
          // to a scan that no longer finds it.
          portions.forEach((q, k) => {
            if (!explained[k]) return;
            for (const o of ownRanges(q.piece))
              if (o.rule === range.rule && o.start < q.end && o.end > q.start) {
                q.start = Math.min(q.start, o.start);
                q.end = Math.max(q.end, o.end);
              }
          });
        }
      }
      // A PEM block that runs into a long piece cut short here goes on to
      // that piece's END line (or its end).
      const last = portions[portions.length - 1];
      if (last && range.rule === rules.pem && range.end === text.length) {
        const piece = pieces[last.piece] as string;
        PEM_END.lastIndex = last.end;
        const end = PEM_END.exec(piece);
        last.end = end ? end.index + end[0].length : piece.length;
      }
      for (const q of portions) {
        const list = result.get(q.piece) ?? [];
        list.push({ start: q.start, end: q.end, rule: range.rule });
        result.set(q.piece, list);
      }
    }
  };

  let text = "";
  let parts: Part[] = [];
  const flush = () => {
    scanJoined(text, parts);
    text = "";
    parts = [];
  };
  pieces.forEach((piece, index) => {
    if (piece.length === 0) return;
    if (piece.length <= 2 * EDGE) {
      parts.push({ piece: index, from: 0, at: text.length, length: piece.length });
      text += piece;
      return;
    }
    parts.push({ piece: index, from: 0, at: text.length, length: EDGE });
    text += piece.slice(0, EDGE);
    flush();
    parts.push({ piece: index, from: piece.length - EDGE, at: 0, length: EDGE });
    text = piece.slice(piece.length - EDGE);
  });
  flush();
  return result;
}
