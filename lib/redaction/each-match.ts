// The one loop over a global regex's matches that the text rules share.

/** Calls `visit` for each match of the global regex `re` in `text`, from the start; empty matches are stepped over. */
export function eachMatch(re: RegExp, text: string, visit: (m: RegExpExecArray) => void): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    else visit(m);
  }
}
