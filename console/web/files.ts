// The Files view: a workspace's folders (workspace/files/list, a page at a
// time), a file's content (workspace/file/get: text highlighted and with
// line numbers; binary and cut-short content said as such), and a search
// over the workspace's paths (repository/search) whose hits open the file.
// The search matches paths, not content: "name:line" opens the file found
// at that line.
import type { DirEntry, FileEntry, FileGetResult, SearchHit } from "../../clients/ts/src/index.js";

import { guard } from "./banners.js";
import { $, h } from "./dom.js";
import { highlight } from "./markdown.js";
import { call } from "./rpc.js";

const pageSize = 200;
// Past this size highlighting costs more than it helps a reader.
const highlightMax = 256 << 10;
const images: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

let workspaceId = "";
let dir = "";
let offset = 0;
let searchTimer: ReturnType<typeof setTimeout> | null = null;
let searchGeneration = 0;

export async function loadFiles(wid: string, again: boolean): Promise<void> {
  if (wid !== workspaceId || !again) {
    workspaceId = wid;
    closeViewer();
    $<HTMLInputElement>("search-input").value = "";
    $("search-results").hidden = true;
    dir = "";
  }
  await listDir(dir);
}

async function listDir(d: string, more = false): Promise<void> {
  const wid = workspaceId;
  const from = more ? offset : 0;
  const res = await call("workspace/files/list", { workspace_id: wid, directory: d, limit: pageSize, offset: from });
  if (wid !== workspaceId) return;
  dir = res.directory ?? d;
  offset = from + (res.directories?.length ?? 0) + (res.files?.length ?? 0);
  $("file-list").dataset.directory = dir;
  drawCrumbs();
  const ul = $("file-list");
  if (!more) {
    ul.replaceChildren();
    if (dir) ul.append(entry("..", "dir up", "", () => openDir(parent(dir))));
  }
  for (const x of res.directories ?? []) ul.append(dirRow(x));
  for (const f of res.files ?? []) ul.append(fileRow(f));
  if (!more && !res.directories?.length && !res.files?.length) ul.append(h("li", { class: "empty" }, "This folder is empty."));
  $("files-more").hidden = !res.pagination?.has_more;
}

function openDir(d: string): void {
  void guard("Files", () => listDir(d));
}

function parent(d: string): string {
  const i = d.lastIndexOf("/");
  return i < 0 ? "" : d.slice(0, i);
}

function drawCrumbs(): void {
  const nav = $("crumbs");
  const root = h("button", { type: "button", class: "crumb" }, $("review-ws").textContent || "/");
  root.onclick = () => openDir("");
  nav.replaceChildren(root);
  let at = "";
  for (const name of dir ? dir.split("/") : []) {
    at = at ? `${at}/${name}` : name;
    const to = at;
    const b = h("button", { type: "button", class: "crumb" }, name);
    b.onclick = () => openDir(to);
    nav.append(h("span", { class: "crumb-sep" }, "/"), b);
  }
}

function entry(name: string, cls: string, meta: string, open: () => void, path = ""): HTMLElement {
  const b = h("button", { type: "button", class: "entry-open" }, h("span", { class: "entry-icon" }, cls.startsWith("dir") ? "▸" : "·"), name);
  b.onclick = open;
  return h("li", { class: "entry " + cls, "data-path": path }, b, h("span", { class: "entry-meta" }, meta));
}

function dirRow(d: DirEntry): HTMLElement {
  const n = d.folder_count + d.file_count;
  return entry(d.name + "/", "dir", `${n} item${n === 1 ? "" : "s"}`, () => openDir(d.path), d.path);
}

function fileRow(f: FileEntry): HTMLElement {
  const flags = [size(f.size_bytes), f.is_binary ? "binary" : "", f.is_sensitive ? "sensitive" : "", f.git_ignored ? "ignored" : ""];
  const li = entry(f.name, "file", flags.filter(Boolean).join(" · "), () => openFile(f.path), f.path);
  if (f.is_sensitive) li.classList.add("sensitive");
  return li;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1 << 20)).toFixed(1)} MB`;
}

export function openFile(path: string, line = 0): void {
  void guard("Open file", async () => {
    const wid = workspaceId;
    const res = await call("workspace/file/get", { workspace_id: wid, path });
    if (wid !== workspaceId) return;
    showFile(res, line);
  });
}

function showFile(f: FileGetResult, line: number): void {
  $("files").classList.add("viewing");
  $("viewer").hidden = false;
  $("viewer").dataset.path = f.path;
  $("viewer-path").textContent = f.path;
  $("viewer-meta").textContent = size(f.size);
  const notes: string[] = [];
  if (f.is_sensitive) notes.push("This kind of file often holds secrets: mind who sees your screen.");
  // cdevd sends at most the first MiB of a file (FileGetResult.truncated).
  if (f.truncated) notes.push(`Cut short: only the first 1 MB of ${size(f.size)} is shown.`);
  $("viewer-note").textContent = notes.join(" ");
  $("viewer-note").hidden = notes.length === 0;
  const body = $("viewer-body");
  const ext = f.path.includes(".") ? f.path.slice(f.path.lastIndexOf(".") + 1).toLowerCase() : "";
  if (f.is_binary || f.encoding === "base64") {
    const img = images[ext] && !f.truncated ? h("img", { class: "viewer-image", alt: f.path, src: `data:${images[ext]};base64,${f.content}` }) : null;
    body.replaceChildren(h("p", { class: "binary-note" }, `Binary file (${size(f.size)}): not shown as text.`), ...(img ? [img] : []));
    return;
  }
  const lines = f.content.replace(/\n$/, "").split("\n");
  const gutter = h("pre", { class: "gutter", "aria-hidden": "true" });
  const frag = document.createDocumentFragment();
  for (let i = 1; i <= lines.length; i++) frag.append(h("span", { "data-line": String(i) }, String(i)), "\n");
  gutter.append(frag);
  const code = h("code", {}, f.content);
  if (f.content.length <= highlightMax) highlight(code, ext);
  body.replaceChildren(h("div", { class: "file-view" }, gutter, h("pre", { class: "code file-code" }, code)));
  if (line > 0) {
    const n = Math.min(line, lines.length);
    const target = gutter.querySelector<HTMLElement>(`[data-line="${n}"]`);
    target?.classList.add("target");
    target?.scrollIntoView({ block: "center" });
  } else {
    $("viewer").scrollIntoView({ block: "start" });
  }
}

function closeViewer(): void {
  $("files").classList.remove("viewing");
  $("viewer").hidden = true;
  delete $("viewer").dataset.path;
  $("viewer-body").replaceChildren();
}

// parseQuery splits "name:line" into the path to find and the line.
export function parseQuery(q: string): { query: string; line: number } {
  const m = /^(.*?):(\d+)$/.exec(q.trim());
  return m && m[1] ? { query: m[1], line: Number(m[2]) } : { query: q.trim(), line: 0 };
}

async function search(): Promise<void> {
  const { query, line } = parseQuery($<HTMLInputElement>("search-input").value);
  const ul = $("search-results");
  const mine = ++searchGeneration;
  if (!query) {
    ul.hidden = true;
    ul.replaceChildren();
    return;
  }
  const res = await call("repository/search", { workspace_id: workspaceId, query, limit: 30 });
  if (mine !== searchGeneration) return;
  ul.replaceChildren(...(res.results ?? []).map((x) => hitRow(x, line)));
  if (!res.results?.length) ul.append(h("li", { class: "empty" }, `No file matches “${query}”.`));
  else if (res.has_more) ul.append(h("li", { class: "more" }, `${res.total - res.results.length} more: type more of the name.`));
  ul.hidden = false;
}

function hitRow(x: SearchHit, line: number): HTMLElement {
  const b = h("button", { type: "button", class: "hit-open" }, h("span", { class: "hit-name" }, x.name),
    h("span", { class: "hit-dir" }, x.directory ? x.directory + "/" : ""), line ? h("span", { class: "hit-line" }, `:${line}`) : null);
  b.onclick = () => {
    $("search-results").hidden = true;
    openFile(x.path, line);
  };
  return h("li", { class: "search-hit", "data-path": x.path }, b);
}

export function wireFiles(): void {
  $("files-more").onclick = () => void guard("Files", () => listDir(dir, true));
  $("viewer-close").onclick = closeViewer;
  $("search-form").onsubmit = (e) => {
    e.preventDefault();
    void guard("Search", search);
  };
  $("search-input").oninput = () => {
    if (searchTimer) clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      searchTimer = null;
      void guard("Search", search);
    }, 150);
  };
}
