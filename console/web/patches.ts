// git's unified diffs as a reader reviews them: one section per file,
// git's header lines (diff --git, index, mode) left out, each hunk's
// "@@ … @@" line kept as a marker of where the lines are. Drawn with
// diff.ts's diffView, as the transcript's edits are.
import { diffView, type DiffLine } from "./diff.js";
import { h } from "./dom.js";

export interface FilePatch {
  path: string; // the new path ("b/…"), or the old one for a deletion
  lines: DiffLine[];
  binary: boolean;
}

// splitPatches reads git diff output holding any number of files.
export function splitPatches(diff: string): FilePatch[] {
  const out: FilePatch[] = [];
  let cur: FilePatch | null = null;
  let inHunk = false;
  for (const l of diff.replace(/\n$/, "").split("\n")) {
    if (l.startsWith("diff --git ")) {
      cur = { path: pathOf(l), lines: [], binary: false };
      out.push(cur);
      inHunk = false;
      continue;
    }
    if (!cur) continue; // anything before the first file header is noise
    if (l.startsWith("@@")) {
      inHunk = true;
      cur.lines.push({ op: " ", text: l });
      continue;
    }
    if (!inHunk) {
      // Header lines: "+++ b/…" names the file unquoted where the
      // header line may quote it.
      if (l.startsWith("+++ b/")) cur.path = l.slice(6);
      else if (l.startsWith("Binary files ")) cur.binary = true;
      continue;
    }
    const op = l[0];
    if (op === "+" || op === "-") cur.lines.push({ op, text: l.slice(1) });
    else if (op === "\\") continue; // "\ No newline at end of file"
    else cur.lines.push({ op: " ", text: l.slice(1) });
  }
  return out;
}

// "diff --git a/x b/x": the b side, which a rename names as it is now.
function pathOf(header: string): string {
  const rest = header.slice("diff --git ".length);
  const i = rest.lastIndexOf(" b/");
  return i >= 0 ? rest.slice(i + 3) : rest;
}

// patchView is one file's section: its lines as a diff, or a note for a
// binary file (git shows no lines for one).
export function patchView(p: FilePatch): HTMLElement {
  if (p.binary) return h("p", { class: "binary-note" }, "Binary file changed (not shown).");
  if (p.lines.length === 0) return h("p", { class: "binary-note" }, "No line changes (mode or rename only).");
  const pre = diffView(p.lines);
  for (const s of pre.querySelectorAll("span.ctx")) if (s.textContent?.startsWith("  @@")) s.classList.add("hunk");
  return pre;
}

// plusMinus is "+3 −1" as two coloured spans.
export function plusMinus(add: number | undefined, del: number | undefined): HTMLElement {
  return h("span", { class: "plus-minus" }, h("span", { class: "plus" }, `+${add ?? 0}`), " ", h("span", { class: "minus" }, `−${del ?? 0}`));
}
