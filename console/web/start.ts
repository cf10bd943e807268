// The start form: runtime, and what that runtime accepts (the permission
// modes, models and efforts its registry record lists), and the folder
// inside the workspace.
import { showBanner, clearBanner } from "./banners.js";
import { $, h } from "./dom.js";
import { call, describe } from "./rpc.js";
import { renderStartModels } from "./models.js";
import { failedStart, openSession } from "./session.js";
import { page, usable } from "./state.js";

export function renderStartChoices(): void {
  const sel = $<HTMLSelectElement>("start-runtime");
  sel.replaceChildren();
  for (const r of page.runtimes) {
    const o = h("option", { value: r.id }, r.displayName ?? r.id) as HTMLOptionElement;
    if (!usable(r)) {
      o.disabled = true;
      o.textContent += ` (disabled: ${r.availability?.reason ?? "unavailable"})`;
    }
    sel.append(o);
  }
  const first = page.runtimes.find((r) => r.id === page.defaultRuntime && usable(r)) ?? page.runtimes.find(usable);
  if (first) sel.value = first.id;
  $<HTMLButtonElement>("start").disabled = !page.runtimes.some(usable);
  renderModes();
}

// renderModes lists the chosen runtime's permission modes; the first
// choice is the runtime's own default (no permission_mode sent).
export function renderModes(): void {
  const id = $<HTMLSelectElement>("start-runtime").value;
  const modes = page.runtimes.find((r) => r.id === id)?.permissionModes ?? [];
  const sel = $<HTMLSelectElement>("start-mode");
  const was = sel.value;
  sel.replaceChildren(h("option", { value: "" }, "default permissions"));
  for (const m of modes) if (m !== "default") sel.append(h("option", { value: m }, m));
  sel.value = modes.includes(was as never) ? was : "";
  sel.disabled = modes.length === 0;
  renderStartModels();
}

export async function start(): Promise<void> {
  const ws = page.selected;
  if (!ws) return;
  const agent = $<HTMLSelectElement>("start-runtime").value;
  const model = $<HTMLInputElement>("start-model").value.trim();
  const effort = $<HTMLSelectElement>("start-effort").value;
  const mode = $<HTMLSelectElement>("start-mode").value;
  const cwd = $<HTMLInputElement>("start-cwd").value.trim();
  const params: Parameters<typeof call<"session/start">>[1] = { workspace_id: ws.id, agent_type: agent };
  if (model) params.model = model;
  if (effort) params.effort = effort;
  if (mode) params.permission_mode = mode as never;
  if (cwd) params.cwd = cwd;
  const action = "Start session";
  let res;
  try {
    res = await call("session/start", params);
  } catch (e) {
    showBanner(action, `${action}: ${describe(e)}`);
    failedStart(agent, describe(e));
    return;
  }
  clearBanner(action);
  await openSession(ws.id, res.session_id, res.agent_type ?? agent, true, model, effort);
  $<HTMLTextAreaElement>("prompt").focus();
}
