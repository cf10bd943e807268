// What the page has open: shared by the modules that draw it.
import type { Runtime } from "../../clients/ts/src/index.js";

export interface Workspace {
  id: string;
  name: string;
  path: string;
}

export interface Open {
  workspaceId: string;
  sessionId: string;
  agentType: string;
  offset: number; // messages loaded from the newest backwards (paging)
  hasMore: boolean;
  loading: boolean;
  seen: Set<string>; // message keys loaded, so a page and live events never repeat one
  msgs: any[]; // every message loaded, oldest first
  lo: number; // msgs[lo:hi] are drawn: a long transcript is drawn a window at a time
  hi: number;
  tools: Map<string, HTMLElement>; // tool call id → its card, for results that arrive later
  orphans: Map<string, HTMLElement>; // results drawn before their call (paging backwards)
}

export const page = {
  runtimes: [] as Runtime[],
  defaultRuntime: "",
  workspaces: [] as Workspace[],
  selected: null as Workspace | null,
  open: null as Open | null,
};

export const usable = (r: Runtime) => r.status !== "disabled";

export const runtimeName = (id: string) => page.runtimes.find((r) => r.id === id)?.displayName ?? id;

// messageKey is a message's stable string id: uuid where the server sends
// one (id becoming the message's integer position), else its string id.
export function messageKey(m: any): string {
  if (typeof m?.uuid === "string" && m.uuid) return m.uuid;
  if (typeof m?.id === "string") return m.id;
  return m?.id != null ? String(m.id) : "";
}
