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

// exitCode finds the exit status a command's output states (Claude's
// failed Bash results begin "Exit code N").
function exitCode(text: string): number | null {
  const m = /^Exit code (\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

// attachResult puts a result into its call's card: the output, and the
// status where the card said "running".
export function attachResult(card: HTMLElement, b: any): void {
  const text = resultText(b?.content);
  const failed = !!b?.is_error;
  const command = card.classList.contains("tool-command");
  const status = card.querySelector<HTMLElement>(".tool-status");
  if (status) {
    // A command's status is its exit code where the output states it;
    // Codex and ACP say only whether it failed.
    const code = exitCode(text);
    status.className = "tool-status " + (failed ? "failed" : "ok");
    if (code !== null) status.textContent = `exit ${code}`;
    else if (failed) status.textContent = "failed";
    else status.textContent = command ? "exit 0" : "done";
  }
  card.classList.toggle("error", failed);
  card.querySelector(".tool-result")?.remove();
  if (text !== "") card.append(renderResult(text, failed, command ? "output" : "result"));
}

// renderResult is a result on its own (its call not on the page).
export function renderResult(text: string, failed: boolean, label = "tool result"): HTMLElement {
  const pre = h("pre", { class: "output" }, text);
  return h("div", { class: "tool-result" + (failed ? " error" : "") }, h("div", { class: "result-head" }, h("span", {}, failed ? label + " (error)" : label), copyButton(() => text)),
    collapsible(pre, text, 20));
}
