// The session header's meters: how full the session's context window is,
// and the fullest rate-limit window of its runtime's plan, as the CLI last
// reported them (session/state's context and usage/limits when a session
// opens; event/context_usage and event/rate_limits after).
import { $, h, when } from "./dom.js";
import { call } from "./rpc.js";

interface ContextUsage {
  used_tokens: number;
  window_tokens?: number;
  used_percent?: number;
}

interface LimitWindow {
  id: string;
  used_percent?: number;
  window_minutes?: number;
  resets_at?: string;
  status?: string;
}

// Past this share a meter is drawn as a warning, as notifications say it.
const warnAt = 90;

const fmt = new Intl.NumberFormat();

function meter(percent: number): HTMLElement {
  const m = h("meter", { min: "0", max: "100", low: "70", high: String(warnAt), optimum: "0" });
  (m as HTMLMeterElement).value = percent;
  return m;
}

export function showContext(c: ContextUsage | null | undefined): void {
  const el = $("session-context");
  if (!c || typeof c.used_tokens !== "number") {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  const pct = typeof c.used_percent === "number" && c.window_tokens ? c.used_percent : null;
  el.replaceChildren(
    "Context ",
    ...(pct === null ? [`${fmt.format(c.used_tokens)} tokens`] : [meter(pct), ` ${Math.round(pct)} %`]),
  );
  el.title = c.window_tokens
    ? `${fmt.format(c.used_tokens)} of ${fmt.format(c.window_tokens)} tokens in the context window`
    : `${fmt.format(c.used_tokens)} tokens in the context window`;
  el.classList.toggle("warn", pct !== null && pct >= warnAt);
  el.hidden = false;
}

function windowName(w: LimitWindow): string {
  if (w.id === "five_hour" || w.window_minutes === 300) return "5h";
  if (w.window_minutes === 7 * 24 * 60) return "week";
  return w.id;
}

// showLimits draws the fullest window (a reached one first) and lists
// every window in its tooltip.
export function showLimits(windows: LimitWindow[] | null | undefined): void {
  const el = $("session-limit");
  const known = (windows ?? []).filter((w) => typeof w.used_percent === "number" || w.status === "rejected");
  if (known.length === 0) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  const score = (w: LimitWindow) => (w.status === "rejected" ? 1000 : (w.used_percent ?? 0));
  const top = known.reduce((a, b) => (score(b) > score(a) ? b : a));
  const pct = top.status === "rejected" ? 100 : (top.used_percent ?? 0);
  el.replaceChildren(`Limit ${windowName(top)} `, meter(pct), top.status === "rejected" ? " reached" : ` ${Math.round(pct)} %`);
  el.title = known
    .map((w) => {
      const used = w.status === "rejected" ? "reached" : `${Math.round(w.used_percent ?? 0)} % used`;
      const reset = when(w.resets_at);
      return `${windowName(w)}: ${used}${reset ? `, resets ${reset}` : ""}`;
    })
    .join("\n");
  el.classList.toggle("warn", pct >= warnAt);
  el.hidden = false;
}

// loadUsage fills both meters for a session being opened.
export async function loadUsage(agentType: string, context: ContextUsage | null | undefined): Promise<void> {
  showContext(context);
  try {
    const res = await call("usage/limits", { agent_type: agentType });
    showLimits(res.runtimes.find((r) => r.agent_type === agentType)?.windows);
  } catch {
    showLimits(null); // an older cdevd: no meter rather than an error
  }
}
