// The decision page's rule before Approve (a rule of the page, for every
// request, not a policy option): the reviewer has had the arguments in
// front of them. Their first screen counts as seen once enough of it was
// inside the part of the window nothing covers (above the phone's fixed
// decision bar): all of it when it is short, else half of that part. Opening
// them (focus or a click inside them) counts too; the page checks that.

export type Edges = { top: number; bottom: number };

/** `box`: the arguments' box; `band`: the uncovered part of the window (both in viewport pixels). */
export function firstScreenSeen(box: Edges, band: Edges): boolean {
  const height = box.bottom - box.top;
  const room = band.bottom - band.top;
  if (height <= 0 || room <= 0) return false;
  const visible = Math.min(box.bottom, band.bottom) - Math.max(box.top, band.top);
  // One pixel of slack for fractional layout.
  return visible >= Math.min(height, room / 2) - 1;
}
