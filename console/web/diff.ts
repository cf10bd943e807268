// Line diffs for file edits: an Edit's old and new text become the lines
// a reader expects in a review (removed, added, kept).
import { h } from "./dom.js";

export type DiffLine = { op: " " | "-" | "+"; text: string };

// Past this many line pairs the table of a longest common subsequence
// costs more than it is worth: show the old lines removed, the new added.
const maxCells = 400_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  // Common head and tail first: most edits touch a few lines in the middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: " ", text }));
  if ((am.length + 1) * (bm.length + 1) > maxCells) {
    for (const text of am) out.push({ op: "-", text });
    for (const text of bm) out.push({ op: "+", text });
  } else {
    // lcs[i][j]: the longest common subsequence of am[i:] and bm[j:].
    const w = bm.length + 1;
    const lcs = new Uint32Array((am.length + 1) * w);
    for (let i = am.length - 1; i >= 0; i--)
      for (let j = bm.length - 1; j >= 0; j--)
        lcs[i * w + j] = am[i] === bm[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    let i = 0;
    let j = 0;
    while (i < am.length || j < bm.length) {
      if (i < am.length && j < bm.length && am[i] === bm[j]) {
        out.push({ op: " ", text: am[i] });
        i++;
        j++;
      } else if (i < am.length && (j === bm.length || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        // Removed lines first, as in a review.
        out.push({ op: "-", text: am[i++] });
      } else {
        out.push({ op: "+", text: bm[j++] });
      }
    }
  }
  for (const text of a.slice(a.length - tail)) out.push({ op: " ", text });
  return out;
}

// unifiedLines reads a unified diff (Codex's patches) as lines; headers
// and hunk markers are kept as context so the reader sees where they are.
export function unifiedLines(diff: string): DiffLine[] {
  return diff
    .replace(/\n$/, "")
    .split("\n")
    .filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "))
    .map((l) => {
      const op = l[0];
      if (op === "+" || op === "-") return { op, text: l.slice(1) };
      return { op: " ", text: l.startsWith(" ") ? l.slice(1) : l };
    });
}

// diffView shows lines as a diff, with unchanged runs longer than a few
// lines folded to their edges.
export function diffView(lines: DiffLine[]): HTMLElement {
  const pre = h("pre", { class: "diff" });
  const context = 3;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.op === " ") {
      // Fold the middle of a long unchanged run.
      let end = i;
      while (end < lines.length && lines[end].op === " ") end++;
      const keepHead = i === 0 ? 0 : context;
      const keepTail = end === lines.length ? 0 : context;
      if (end - i > keepHead + keepTail + 1) {
        for (let k = i; k < i + keepHead; k++) pre.append(line(lines[k]));
        pre.append(h("span", { class: "fold" }, `… ${end - i - keepHead - keepTail} unchanged lines\n`));
        for (let k = end - keepTail; k < end; k++) pre.append(line(lines[k]));
        i = end - 1;
        continue;
      }
    }
    pre.append(line(l));
  }
  return pre;
}

function line(l: DiffLine): HTMLElement {
  const cls = l.op === "+" ? "add" : l.op === "-" ? "del" : "ctx";
  return h("span", { class: cls }, `${l.op} ${l.text}\n`);
}
