// Models and effort: the start form's choices and the session header's
// change of a running session (session/configure), both from the chosen
// runtime's registry record (its models, each with its efforts).
import type { Runtime } from "../../clients/ts/src/index.js";
import { clearBanner, showBanner } from "./banners.js";
import { $, h } from "./dom.js";
import { call, describe } from "./rpc.js";
import { page } from "./state.js";

type Model = NonNullable<Runtime["models"]>[number];

const record = (id: string) => page.runtimes.find((r) => r.id === id);

// findModel is the record's model called name (its id or an alias); the
// runtime's default model when name is empty.
function findModel(r: Runtime | undefined, name: string): Model | undefined {
  const want = name || r?.defaultModel || "";
  return r?.models?.find((m) => m.id === want || (m.aliases ?? []).includes(want));
}

// fillEfforts lists model's efforts in sel, the first choice being the
// model's own default (no effort sent); keep stays chosen if offered.
function fillEfforts(sel: HTMLSelectElement, model: Model | undefined, keep: string): void {
  const efforts = model?.efforts ?? [];
  const def = model?.defaultEffort ? `default effort (${model.defaultEffort})` : "default effort";
  sel.replaceChildren(h("option", { value: "" }, def));
  for (const e of efforts) sel.append(h("option", { value: e }, e));
  sel.value = efforts.includes(keep) ? keep : "";
  sel.disabled = efforts.length === 0;
}

// renderStartModels offers the chosen runtime's models (typing another
// stays possible: a runtime that lists none takes any) and the efforts of
// the model typed or, empty, of the runtime's default.
export function renderStartModels(): void {
  const r = record($<HTMLSelectElement>("start-runtime").value);
  const list = $("start-models");
  list.replaceChildren();
  for (const m of r?.models ?? []) list.append(h("option", { value: m.id }, m.displayName || m.id));
  const input = $<HTMLInputElement>("start-model");
  input.placeholder = r?.defaultModel ? `model (default: ${r.defaultModel})` : "model (runtime's default)";
  renderStartEfforts();
}

export function renderStartEfforts(): void {
  const r = record($<HTMLSelectElement>("start-runtime").value);
  const sel = $<HTMLSelectElement>("start-effort");
  fillEfforts(sel, findModel(r, $<HTMLInputElement>("start-model").value.trim()), sel.value);
}

// The session header's configuration: what the open session runs with, as
// far as the console knows (session/state, or what started it).
let current = { agentType: "", model: "", effort: "" };

// renderConfigure shows the header's model and effort choices for a
// session of agentType, when its runtime can change them while it runs.
export function renderConfigure(agentType: string, model: string, effort: string): void {
  current = { agentType, model, effort };
  const r = record(agentType);
  const form = $("configure");
  const models = r?.models ?? [];
  form.hidden = !r?.supportsConfigure || models.length === 0;
  if (form.hidden) return;
  const sel = $<HTMLSelectElement>("cfg-model");
  sel.replaceChildren();
  for (const m of models) sel.append(h("option", { value: m.id }, m.displayName || m.id));
  sel.value = findModel(r, model)?.id ?? "";
  renderConfigureEfforts();
  $<HTMLSelectElement>("cfg-effort").value = effort;
}

export function renderConfigureEfforts(): void {
  const sel = $<HTMLSelectElement>("cfg-effort");
  fillEfforts(sel, findModel(record(current.agentType), $<HTMLSelectElement>("cfg-model").value), sel.value || current.effort);
}

// configure asks session/configure for what the header shows; it applies
// from the session's next turn on, which the note says.
export async function configure(sessionId: string, onDone: (model: string, note: string) => void): Promise<void> {
  const model = $<HTMLSelectElement>("cfg-model").value;
  const effort = $<HTMLSelectElement>("cfg-effort").value;
  const params: Parameters<typeof call<"session/configure">>[1] = { session_id: sessionId, agent_type: current.agentType };
  if (model && model !== current.model) params.model = model;
  if (effort && effort !== current.effort) params.effort = effort;
  if (!params.model && !params.effort) return;
  const action = "Change model";
  let res;
  try {
    res = await call("session/configure", params);
  } catch (e) {
    showBanner(action, `${action}: ${describe(e)}`);
    return;
  }
  clearBanner(action);
  current = { agentType: current.agentType, model: res.model ?? "", effort: res.effort ?? "" };
  const what = [res.model, res.effort].filter(Boolean).join(", ");
  onDone(res.model ?? "", `${what}: from the next turn${res.turn_running ? " (the running turn keeps its own)" : ""}`);
}
