// A typed cdevd client: JSON-RPC 2.0 over one WebSocket, initialize first,
// typed calls and events, reconnect with since_seq replay, and a heartbeat
// timeout. The socket comes from a factory, so the same code runs in browsers
// (token as subprotocol, browserSocket) and Node (token as header, node.ts).
// Every failure is a rejected promise or an onState report, never a hang.

import type { InitializeResult, ServerNotification } from "./types.gen.js";
import { answerOf, ConnectionError, decodeFrame, encodeRequest, type Method, type Params, type Result } from "./wire.js";

export * from "./wire.js";

/** The part of the WebSocket API the client uses (browsers and `ws` both have it). */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string | { toString(): string } }) => void) | null;
  onerror: ((ev: any) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string, token: string) => SocketLike;

/** Browsers cannot set headers on a WebSocket: the token rides as a subprotocol. */
export const browserSocket: SocketFactory = (url, token) =>
  new (globalThis as any).WebSocket(url, ["cdevd", "cdevd.bearer." + token]) as SocketLike;

export type ConnState =
  | { kind: "connecting"; attempt: number }
  | { kind: "open"; init: InitializeResult }
  | { kind: "lost"; error: Error; retryInMs: number }
  | { kind: "closed"; error?: Error };

/** What a watched session's rewatch found after a reconnect. */
export interface Rewatch {
  sessionId: string;
  /** The server could not replay everything missed: reload with messages. */
  gap: boolean;
  replayed: number;
}

export interface ClientOptions {
  url: string; // ws://host:port/ws
  token: string;
  socket?: SocketFactory; // default browserSocket
  clientName?: string;
  clientVersion?: string;
  onEvent?: (n: ServerNotification) => void;
  onState?: (s: ConnState) => void;
  onRewatch?: (r: Rewatch) => void;
  /** How long initialize may take before connect rejects (default 10 s). */
  initializeTimeoutMs?: number;
  /** Silence after which the connection counts as lost (default 45 s; the server beats every 25 s). */
  heartbeatTimeoutMs?: number;
  /**
   * Browsers hide why an upgrade failed (a refused token looks like a server
   * that is down). If set, a connection that closes before it opened asks it:
   * true (the server is up, e.g. its /healthz answers) means the token was
   * refused.
   */
  serverUp?: () => Promise<boolean>;
  /** Reconnect after a loss once connected (default true); a refused token stops it. */
  reconnect?: boolean;
  maxBackoffMs?: number;
}

interface Pending {
  method: string;
  onResult?: (r: unknown) => void;
  resolve: (v: any) => void;
  reject: (e: Error) => void;
}

interface Watch {
  workspaceId: string;
  agentType?: string;
  lastSeq: number;
  epoch: string;
}

const OPEN = 1;

// Forgets a socket's handlers but keeps one for errors: ws (Node) throws an
// error event that has no listener, e.g. when closed while connecting.
function detach(ws: SocketLike): void {
  ws.onclose = ws.onmessage = ws.onopen = null;
  ws.onerror = () => {};
}

/** Params may be left out when every param is optional. */
export type ParamArgs<M extends Method> = {} extends Params<M> ? [params?: Params<M>] : [params: Params<M>];

export class CdevdClient {
  private ws: SocketLike | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private watches = new Map<string, Watch>();
  private stopped = true;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private beatTimer: ReturnType<typeof setTimeout> | null = null;
  private lastHeard = 0;
  private initialized = false;
  private epoch = "";
  // Settles the open in progress, if any: close() must not leave it hanging.
  private abortOpen: ((e: Error) => void) | null = null;

  constructor(private readonly opts: ClientOptions) {}

  /**
   * Connects and initializes. Rejects with a ConnectionError (refused,
   * closed, timeout, protocol) or an RpcError if initialize fails; once it
   * has resolved, losses reconnect by themselves (see onState).
   */
  connect(): Promise<InitializeResult> {
    this.stopped = false;
    return this.open();
  }

  /** Closes for good: pending calls reject, no reconnect, no timers left. */
  close(): void {
    if (this.stopped && !this.ws) return;
    this.stopped = true;
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    const closed = new ConnectionError("closed", "client closed");
    this.failPending(closed);
    this.abortOpen?.(closed);
    if (ws) {
      detach(ws);
      ws.close(1000, "bye");
    }
    this.opts.onState?.({ kind: "closed" });
  }

  /** Calls method; rejects with RpcError on an error answer, ConnectionError when not connected. */
  async call<M extends Method>(method: M, ...args: ParamArgs<M>): Promise<Result<M>> {
    if (!this.initialized) throw new ConnectionError("not-connected", `${method}: not connected`);
    const params = args[0] ?? {};
    // session/start watches the session: count it for replay after a
    // reconnect, on the answer itself, before any event that follows it.
    const onResult =
      method === "session/start"
        ? (r: Result<"session/start">) => this.track(r.workspace_id, r.session_id, r.agent_type)
        : undefined;
    return this.send<Result<M>>(method, params, onResult as ((r: unknown) => void) | undefined);
  }

  /** Watches a session; reconnects watch it again from the last event delivered. */
  async watch(params: Params<"workspace/session/watch">): Promise<Result<"workspace/session/watch">> {
    if (!this.initialized) throw new ConnectionError("not-connected", "workspace/session/watch: not connected");
    // Recorded on the answer, synchronously: the events after it (which may
    // be in the same read) then count towards lastSeq.
    return this.send<Result<"workspace/session/watch">>("workspace/session/watch", params, (r) => {
      const w = this.watches.get(params.session_id);
      const res = r as Result<"workspace/session/watch">;
      this.watches.set(params.session_id, {
        workspaceId: params.workspace_id,
        agentType: params.agent_type,
        lastSeq: Math.max(w?.lastSeq ?? 0, res.last_seq),
        epoch: res.epoch,
      });
    });
  }

  async unwatch(sessionId: string): Promise<void> {
    const w = this.watches.get(sessionId);
    this.watches.delete(sessionId);
    if (w) await this.call("workspace/session/unwatch", { session_id: sessionId, agent_type: w.agentType });
  }

  /** Counts a session as watched (from lastSeq) without a watch call. */
  track(workspaceId: string, sessionId: string, agentType?: string, lastSeq = 0): void {
    if (!this.watches.has(sessionId)) this.watches.set(sessionId, { workspaceId, agentType, lastSeq, epoch: this.epoch });
  }

  private open(): Promise<InitializeResult> {
    this.opts.onState?.({ kind: "connecting", attempt: this.attempt });
    let ws: SocketLike;
    try {
      ws = (this.opts.socket ?? browserSocket)(this.opts.url, this.opts.token);
    } catch (e) {
      return Promise.reject(new ConnectionError("refused", `cannot open ${this.opts.url}: ${(e as Error).message}`));
    }
    this.ws = ws;
    this.initialized = false;
    let settled = false;
    let opened = false;
    let lastError = "";
    return new Promise<InitializeResult>((resolve, reject) => {
      const fail = (e: Error) => {
        clearTimeout(initTimer);
        if (this.abortOpen === fail) this.abortOpen = null;
        if (settled) return;
        settled = true;
        reject(e);
      };
      this.abortOpen = fail;
      const initTimer = setTimeout(() => {
        fail(new ConnectionError("timeout", `${this.opts.url}: no answer to initialize in ${this.initTimeout()} ms`));
        this.drop(ws, null);
      }, this.initTimeout());
      ws.onerror = (ev) => {
        // ws (Node) says why an upgrade failed, e.g. "Unexpected server response: 401".
        lastError = ev?.message ?? ev?.error?.message ?? "";
      };
      ws.onmessage = (m) => {
        const err = this.receive(String(m.data));
        if (err) {
          fail(err);
          this.drop(ws, err);
        }
      };
      ws.onclose = (ev) => {
        clearTimeout(initTimer);
        const why = lastError || `code ${ev.code}${String(ev.reason) ? " " + String(ev.reason) : ""}`;
        const err = this.initialized
          ? new ConnectionError("closed", `connection lost (${why})`)
          : new ConnectionError(/\b40[13]\b/.test(why) ? "refused" : "closed", `${this.opts.url}: closed before initialize answered (${why})`);
        const up = this.opts.serverUp;
        if (opened || err.reason === "refused" || !up) {
          fail(err);
          this.drop(ws, err);
          return;
        }
        // Settled after the probe: close() meanwhile settles it first.
        void up().then(
          (yes) => {
            const e = yes ? new ConnectionError("refused", `${this.opts.url}: the token was refused (the server is up)`) : err;
            fail(e);
            this.drop(ws, e);
          },
          () => {
            fail(err);
            this.drop(ws, err);
          },
        );
      };
      ws.onopen = () => {
        opened = true;
        this.heard();
        this.send<InitializeResult>("initialize", {
          protocolVersion: "1.0",
          clientInfo: { name: this.opts.clientName ?? "cdevd-ts", version: this.opts.clientVersion ?? "0" },
        }).then(
          (init) => {
            clearTimeout(initTimer);
            if (this.abortOpen === fail) this.abortOpen = null;
            if (settled) return;
            settled = true;
            this.initialized = true;
            this.attempt = 0;
            // A new epoch is a restarted server: its seqs start again.
            const restarted = this.epoch !== "" && this.epoch !== init.epoch;
            this.epoch = init.epoch;
            this.opts.onState?.({ kind: "open", init });
            resolve(init);
            void this.rewatch(restarted);
          },
          (e: Error) => {
            clearTimeout(initTimer);
            fail(e);
            this.drop(ws, null);
          },
        );
      };
    });
  }

  private initTimeout(): number {
    return this.opts.initializeTimeoutMs ?? 10_000;
  }

  // Forgets ws; after a connection that had initialized, reconnects.
  private drop(ws: SocketLike, err: Error | null): void {
    if (this.ws !== ws) return;
    const wasOpen = this.initialized;
    this.ws = null;
    this.initialized = false;
    detach(ws);
    try {
      ws.close();
    } catch {
      // already closed
    }
    if (this.beatTimer) clearTimeout(this.beatTimer);
    this.beatTimer = null;
    const e = err ?? new ConnectionError("closed", "connection lost");
    this.failPending(e);
    if (this.stopped) return;
    if (!wasOpen) return; // open() rejected: its caller (connect or a retry) decides
    if (this.opts.reconnect === false) {
      this.stopped = true;
      this.opts.onState?.({ kind: "closed", error: e });
      return;
    }
    this.scheduleRetry(e);
  }

  // One timer at a time; a failed attempt schedules the next, with more backoff.
  private scheduleRetry(e: Error): void {
    const delay = Math.min(this.opts.maxBackoffMs ?? 5000, 250 * 2 ** this.attempt);
    this.attempt++;
    this.opts.onState?.({ kind: "lost", error: e, retryInMs: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      this.open().catch((e2: Error) => {
        if (this.stopped) return;
        // A refused token stays refused: trying again would only hammer the server.
        if (e2 instanceof ConnectionError && e2.reason === "refused") {
          this.stopped = true;
          this.opts.onState?.({ kind: "closed", error: e2 });
          return;
        }
        this.scheduleRetry(e2);
      });
    }, delay);
  }

  private failPending(e: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.beatTimer) clearTimeout(this.beatTimer);
    this.retryTimer = this.beatTimer = null;
  }

  // The heartbeat timer is armed once per timeout, not per frame: when it
  // fires it compares with the last frame heard and re-arms for the rest.
  private heard(): void {
    this.lastHeard = Date.now();
    if (this.beatTimer) return;
    const limit = this.opts.heartbeatTimeoutMs ?? 45_000;
    const check = () => {
      this.beatTimer = null;
      const ws = this.ws;
      if (!ws) return;
      const left = this.lastHeard + limit - Date.now();
      if (left > 0) {
        this.beatTimer = setTimeout(check, left);
        return;
      }
      this.drop(ws, new ConnectionError("timeout", `no frame from the server in ${limit} ms (heartbeat)`));
    };
    this.beatTimer = setTimeout(check, limit);
  }

  private send<T>(method: string, params: object, onResult?: (r: unknown) => void): Promise<T> {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN) return Promise.reject(new ConnectionError("not-connected", `${method}: not connected`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, onResult, resolve, reject });
      ws.send(encodeRequest(id, method as Method, params as Params<Method>));
    });
  }

  // Returns an error when the frame is not JSON-RPC: the connection is then
  // dropped, since a server that says something else cannot be trusted on.
  private receive(text: string): Error | null {
    this.heard();
    const msgs = decodeFrame(text);
    if (msgs instanceof Error) return msgs;
    for (const m of msgs) {
      if (m.kind === "event") {
        this.deliver(m.event);
        continue;
      }
      const p = this.pending.get(m.id as number);
      if (!p) continue; // an answer to nothing pending (e.g. a parse error with id null)
      this.pending.delete(m.id as number);
      const a = answerOf(p.method as Method, m);
      if (a.kind === "error") p.reject(a.error);
      else {
        p.onResult?.(a.result);
        p.resolve(a.result);
      }
    }
    return null;
  }

  // After a reconnect, every watched session is watched again from the last
  // event delivered: the server replays what was missed, or says gap.
  private async rewatch(restarted: boolean): Promise<void> {
    for (const [sessionId, w] of this.watches) {
      if (restarted) w.lastSeq = 0;
      try {
        const res = await this.send<Result<"workspace/session/watch">>("workspace/session/watch", {
          workspace_id: w.workspaceId,
          session_id: sessionId,
          agent_type: w.agentType,
          since_seq: w.lastSeq,
          epoch: w.epoch || undefined,
        });
        w.epoch = res.epoch;
        if (res.gap || restarted) w.lastSeq = Math.max(w.lastSeq, res.last_seq);
        this.opts.onRewatch?.({ sessionId, gap: res.gap || restarted, replayed: res.replayed });
      } catch {
        // The connection dropped again; the next open rewatches.
      }
    }
  }

  // Session events carry seq: one already seen (a replay overlapping what
  // arrived live) is dropped, so each is delivered once and in order.
  private deliver(n: ServerNotification): void {
    const p = n.params as { session_id?: unknown; seq?: unknown };
    if (typeof p.session_id === "string" && typeof p.seq === "number") {
      const w = this.watches.get(p.session_id);
      if (w) {
        if (p.seq <= w.lastSeq) return;
        w.lastSeq = p.seq;
      }
    }
    this.opts.onEvent?.(n);
  }
}
