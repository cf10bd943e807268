// The connection the page holds: one client at a time, and errors as text.
import { CdevdClient, RpcError, type Method, type ParamArgs, type Result } from "../../clients/ts/src/index.js";

let current: CdevdClient | null = null;

export function setClient(c: CdevdClient | null): void {
  current = c;
}

export function client(): CdevdClient | null {
  return current;
}

export function call<M extends Method>(method: M, ...args: ParamArgs<M>): Promise<Result<M>> {
  if (!current) return Promise.reject(new Error("not connected"));
  return current.call(method, ...args);
}

// describe is an error as one line: the message and, for a JSON-RPC
// error, its reason unless the message already says it.
export function describe(e: unknown): string {
  if (e instanceof RpcError) {
    const d = (e.data ?? {}) as { reason?: unknown };
    const reason = typeof d.reason === "string" && !e.message.includes(d.reason) ? `: ${d.reason}` : "";
    return `${e.message}${reason}`;
  }
  return e instanceof Error ? e.message : String(e);
}
