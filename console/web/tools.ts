// Tool calls shown as what they did. Every runtime's calls arrive as
// tool_use blocks {id, name, input}, but each names and shapes them its
// own way: Claude's tools (Bash, Edit, Write…), Codex's items as cdevd
// writes them (Bash {command}, apply_patch {changes}), Gemini's function
// calls in stored chats (run_shell_command, replace, write_file…) and
// ACP's live tool calls, named by their kind (execute, edit, read…) with
// the agent's raw input or only a title. toolView reads them all into a
// few views; whatever it does not know stays readable as JSON.
import { diffView, lineDiff, unifiedLines } from "./diff.js";
import { collapsible, copyButton, h } from "./dom.js";
import { codeBlock } from "./markdown.js";

type Input = Record<string, any>;

type View =
  | { kind: "command"; command: string; description?: string }
  | { kind: "edit"; path: string; edits: { before: string; after: string }[] }
  | { kind: "write"; path: string; content: string }
  | { kind: "patch"; changes: { path: string; type: string; diff: string }[] }
  | { kind: "todo"; todos: { text: string; status: string }[] }
  | { kind: "line"; verb: string; subject: string } // read, search, fetch, think…
  | { kind: "unknown" };

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const pathOf = (i: Input): string => str(i.file_path) || str(i.absolute_path) || str(i.path) || str(i.notebook_path);

// toolView reads one call. Exported for the tests of each runtime's shapes.
export function toolView(name: string, input: Input): View {
  const title = str(input.title);
  switch (name) {
    case "Bash":
    case "run_shell_command":
    case "execute":
    case "shell":
    case "exec_command":
      if (str(input.command) || title) return { kind: "command", command: str(input.command) || title, description: str(input.description) };
      break;
    case "Edit":
    case "replace":
    case "edit":
      if (typeof input.old_string === "string" || typeof input.new_string === "string")
        return { kind: "edit", path: pathOf(input), edits: [{ before: str(input.old_string), after: str(input.new_string) }] };
      if (typeof input.content === "string") return { kind: "write", path: pathOf(input), content: input.content };
      if (title || pathOf(input)) return { kind: "line", verb: "Edit", subject: title || pathOf(input) };
      break;
    case "MultiEdit":
      if (Array.isArray(input.edits))
        return {
          kind: "edit",
          path: pathOf(input),
          edits: input.edits.map((e: Input) => ({ before: str(e?.old_string), after: str(e?.new_string) })),
        };
      break;
    case "Write":
    case "write_file":
      if (typeof input.content === "string") return { kind: "write", path: pathOf(input), content: input.content };
      break;
    case "apply_patch":
      if (Array.isArray(input.changes))
        return {
          kind: "patch",
          changes: input.changes.map((c: Input) => ({ path: str(c?.path), type: str(c?.kind?.type), diff: str(c?.diff) })),
        };
      break;
    case "TodoWrite":
    case "write_todos":
      if (Array.isArray(input.todos))
        return {
          kind: "todo",
          todos: input.todos.map((t: Input) => ({ text: str(t?.content) || str(t?.description), status: str(t?.status) })),
        };
      break;
    case "Read":
    case "read_file":
    case "read":
    case "NotebookRead":
      return { kind: "line", verb: "Read", subject: pathOf(input) || title || str(input.pattern) };
    case "read_many_files":
      return { kind: "line", verb: "Read", subject: Array.isArray(input.paths) ? input.paths.join(", ") : title };
    case "Grep":
    case "search_file_content":
    case "grep_search":
    case "Glob":
    case "glob":
    case "search":
    case "LS":
    case "list_directory": {
      const what = str(input.pattern) || title || pathOf(input);
      const where = str(input.pattern) && pathOf(input) ? ` in ${pathOf(input)}` : "";
      return { kind: "line", verb: name === "LS" || name === "list_directory" ? "List" : "Search", subject: what + where };
    }
    case "WebFetch":
    case "web_fetch":
    case "fetch":
      return { kind: "line", verb: "Fetch", subject: str(input.url) || str(input.prompt) || title };
    case "WebSearch":
    case "google_web_search":
      return { kind: "line", verb: "Web search", subject: str(input.query) || title };
    case "think":
      return { kind: "line", verb: "Think", subject: title || str(input.thought) };
  }
  // An ACP kind we do not draw (delete, move, other) still has a title.
  if (title && Object.keys(input).length === 1) return { kind: "line", verb: name, subject: title };
  return { kind: "unknown" };
}

function head(icon: string, label: string, subject: Node | string, ...extra: Node[]): HTMLElement {
  return h("div", { class: "tool-head" }, h("span", { class: "tool-icon", "aria-hidden": "true" }, icon),
    h("span", { class: "tool-label" }, label), h("span", { class: "tool-subject" }, subject), ...extra,
    h("span", { class: "tool-status running" }, "running"));
}

const checkbox = (status: string) => (status === "completed" ? "☑" : status === "in_progress" ? "◐" : "☐");

// renderToolUse is the card of one call; its result goes into it later
// (attachResult), when the tool_result with its id arrives.
export function renderToolUse(b: any): HTMLElement {
  const name = str(b?.name) || "tool";
  const input: Input = b?.input && typeof b.input === "object" ? b.input : {};
  const v = toolView(name, input);
  const attrs = { class: `tool-use tool tool-${v.kind}`, "data-tool-id": str(b?.id), "data-tool-name": name };
  switch (v.kind) {
    case "command": {
      const card = h("div", attrs, head("$", v.description || "Command", ""));
      card.append(h("div", { class: "tool-command" }, h("pre", { class: "command" }, h("code", {}, v.command)), copyButton(() => v.command)));
      return card;
    }
    case "edit": {
      const card = h("div", attrs, head("✎", "Edit", h("code", { class: "path" }, v.path)));
      for (const e of v.edits) card.append(collapsible(diffView(lineDiff(e.before, e.after)), e.before + e.after, 40));
      return card;
    }
    case "write": {
      const card = h("div", attrs, head("✚", "Write", h("code", { class: "path" }, v.path)));
      card.append(collapsible(diffView(lineDiff("", v.content)), v.content, 40));
      return card;
    }
    case "patch": {
      const card = h("div", attrs, head("✎", "Patch", v.changes.map((c) => c.path).join(", ")));
      for (const c of v.changes) {
        card.append(h("div", { class: "patch-file" }, h("code", { class: "path" }, c.path), c.type ? h("span", { class: "change-type" }, c.type) : null));
        card.append(collapsible(diffView(unifiedLines(c.diff)), c.diff, 40));
      }
      return card;
    }
    case "todo": {
      const card = h("div", attrs, head("☰", "To-do", `${v.todos.filter((t) => t.status === "completed").length}/${v.todos.length} done`));
      const ul = h("ul", { class: "todos" });
      for (const t of v.todos) ul.append(h("li", { class: "todo " + t.status, "data-status": t.status }, h("span", { class: "check" }, checkbox(t.status)), t.text));
      card.append(ul);
      return card;
    }
    case "line": {
      // One compact line; the output is inside, for whoever opens it.
      const d = h("details", attrs);
      d.append(h("summary", {}, head("›", v.verb, v.subject)));
      return d;
    }
    default: {
      const d = h("details", attrs);
      const json = JSON.stringify(b?.input ?? null, null, 2);
      d.append(h("summary", {}, head("⚙", name, "")), codeBlock(json, "json"));
      return d;
    }
  }
}

// resultText is a tool_result's content as text (a string, or blocks).
export function resultText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (typeof b === "string" ? b : b?.text ?? JSON.stringify(b))).join("\n");
  return c == null ? "" : JSON.stringify(c, null, 2);
}

// Runtimes whose command results state a failure's exit code and omit a
// success's (Claude's Bash results begin "Exit code N" when it fails;
// Gemini's run_shell_command adds "Exit Code: N" only when not 0), so a
// success without one exited 0. Codex's results carry exit_code (its
// command tool is named Bash too, so exit_code is read first); ACP's
// carry none, and no code is made up for them.
const zeroUnstated = new Set(["Bash", "run_shell_command"]);
const stating = new Map([["Bash", /^Exit code (\d+)/], ["run_shell_command", /^Exit Code: (\d+)$/m]]);

// exitStatus is a command's exit status as its runtime reported it, or
// null when it did not.
function exitStatus(name: string, b: any, text: string, failed: boolean): number | null {
  if (Number.isInteger(b?.exit_code)) return b.exit_code;
  const stated = stating.get(name)?.exec(text);
  if (stated) return Number(stated[1]);
  return !failed && zeroUnstated.has(name) ? 0 : null;
}

type ToolDiff = { path: string; old_text: string; new_text: string };

// diffsOf is a result's diffs (the files an ACP agent's call changed).
function diffsOf(b: any): ToolDiff[] {
  if (!Array.isArray(b?.diffs)) return [];
  return b.diffs.filter((d: any) => d && typeof d === "object").map((d: Input) => ({ path: str(d.path), old_text: str(d.old_text), new_text: str(d.new_text) }));
}

// diffCard is the card of a call whose result says which files it changed
// and how: the call named them only by a title (ACP's edits), so it is
// drawn again as an edit, each file under its path.
function diffCard(card: HTMLElement, diffs: ToolDiff[]): HTMLElement {
  const created = diffs.every((d) => d.old_text === "");
  const label = created ? "Write" : "Edit";
  const subject = diffs.length === 1 ? h("code", { class: "path" }, diffs[0].path) : diffs.map((d) => d.path).join(", ");
  const edit = h("div", { class: "tool-use tool tool-edit", "data-tool-id": card.dataset.toolId ?? "", "data-tool-name": card.dataset.toolName ?? "" },
    head(created ? "✚" : "✎", label, subject));
  for (const d of diffs) {
    if (diffs.length > 1) edit.append(h("div", { class: "patch-file" }, h("code", { class: "path" }, d.path)));
    edit.append(collapsible(diffView(lineDiff(d.old_text, d.new_text)), d.old_text + d.new_text, 40));
  }
  return edit;
}

// attachResult puts a result into its call's card: the output, and the
// status where the card said "running". It returns the card, which is a
// new one when the result shows the call's diffs (diffCard).
export function attachResult(card: HTMLElement, b: any): HTMLElement {
  const text = resultText(b?.content);
  const failed = !!b?.is_error;
  const diffs = diffsOf(b);
  if (diffs.length && !card.matches(".tool-edit, .tool-write, .tool-patch")) {
    const edit = diffCard(card, diffs);
    card.replaceWith(edit);
    card = edit;
  }
  const command = card.classList.contains("tool-command");
  const status = card.querySelector<HTMLElement>(".tool-status");
  if (status) {
    status.className = "tool-status " + (failed ? "failed" : "ok");
    if (command) {
      const code = exitStatus(card.dataset.toolName ?? "", b, text, failed);
      if (code !== null) status.classList.toggle("failed", failed || code !== 0);
      status.textContent = code !== null ? `exit ${code}` : failed ? "failed, exit status unknown" : "done, exit status unknown";
    } else status.textContent = failed ? "failed" : "done";
  }
  card.classList.toggle("error", failed);
  card.querySelector(".tool-result")?.remove();
  if (text !== "") card.append(renderResult(text, failed, command ? "output" : "result"));
  return card;
}

// renderResult is a result on its own (its call not on the page).
export function renderResult(text: string, failed: boolean, label = "tool result"): HTMLElement {
  const pre = h("pre", { class: "output" }, text);
  return h("div", { class: "tool-result" + (failed ? " error" : "") }, h("div", { class: "result-head" }, h("span", {}, failed ? label + " (error)" : label), copyButton(() => text)),
    collapsible(pre, text, 20));
}
