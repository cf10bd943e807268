// How the client reads what the server sends: a text frame becomes messages
// (a batch is several), each sorted into an event or an answer, and an answer
// becomes a result or an RpcError typed by the method of the request it
// answers. CdevdClient uses exactly these functions, so that a test (and a
// client author) can feed them recorded frames without a socket.

import { eventTable, type ErrorDataByCode, type Events, type Methods } from "./methods.gen.js";
import type { ServerNotification } from "./types.gen.js";

export type Method = keyof Methods;
export type Params<M extends Method> = Methods[M]["params"];
export type Result<M extends Method> = Methods[M]["result"];
export type EventMethod = keyof Events;

/** A JSON-RPC error answer, with cdevd's stable code and data. */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${message} (${code})`);
    this.name = "RpcError";
  }

  /** Narrows data to the schema of code's data. */
  is<C extends keyof ErrorDataByCode>(code: C): this is RpcError & { code: C; data: ErrorDataByCode[C] } {
    return this.code === code;
  }
}

/** The connection failed: closed, refused, timed out or spoke something else. */
export class ConnectionError extends Error {
  constructor(
    readonly reason: "closed" | "refused" | "timeout" | "protocol" | "not-connected",
    message: string,
  ) {
    super(message);
    this.name = "ConnectionError";
  }
}

/** The error member of an error answer, as sent. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * One message of a frame. An event whose method this package does not know
 * (the server may add event types) is still an event: known says whether
 * its params are typed by the generated tables.
 */
export type Incoming =
  | { kind: "event"; known: boolean; event: ServerNotification }
  | { kind: "answer"; id: unknown; result?: unknown; error?: WireError };

/** An answer read as the answer to method. */
export type Answer<M extends Method> =
  | { kind: "result"; method: M; result: Result<M> }
  | { kind: "error"; method: M; error: RpcError };

/**
 * Reads one text frame. A frame that is not JSON-RPC 2.0 is a protocol
 * ConnectionError (the client then drops the connection); messages that are
 * neither events nor answers (none today) are skipped.
 */
export function decodeFrame(text: string): Incoming[] | ConnectionError {
  let msg: any;
  try {
    msg = JSON.parse(text);
  } catch {
    return new ConnectionError("protocol", `the server sent a frame that is not JSON: ${text.slice(0, 80)}`);
  }
  const out: Incoming[] = [];
  for (const m of Array.isArray(msg) ? msg : [msg]) {
    if (m === null || typeof m !== "object" || m.jsonrpc !== "2.0") {
      return new ConnectionError("protocol", `the server sent a frame that is not JSON-RPC 2.0: ${text.slice(0, 80)}`);
    }
    if (typeof m.method === "string") {
      if (m.method.startsWith("event/")) {
        out.push({ kind: "event", known: Object.hasOwn(eventTable, m.method), event: m as ServerNotification });
      }
      continue;
    }
    if (!("result" in m) && !("error" in m)) continue;
    if ("error" in m && (m.error === null || typeof m.error !== "object" || typeof m.error.code !== "number")) {
      return new ConnectionError("protocol", `the server sent an error answer without a code: ${text.slice(0, 80)}`);
    }
    out.push({ kind: "answer", id: m.id, result: m.result, error: m.error });
  }
  return out;
}

/** Reads an answer as the answer to a request of method. */
export function answerOf<M extends Method>(method: M, a: { result?: unknown; error?: WireError }): Answer<M> {
  if (a.error) return { kind: "error", method, error: new RpcError(method, a.error.code, a.error.message, a.error.data) };
  return { kind: "result", method, result: a.result as Result<M> };
}

/** The request frame the client sends for method. */
export function encodeRequest<M extends Method>(id: number, method: M, params: Params<M>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
