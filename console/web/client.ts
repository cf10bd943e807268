// A cdevd client for browsers: JSON-RPC 2.0 over one WebSocket, the token
// sent as the `cdevd.bearer.<token>` subprotocol, initialize first, events
// delivered once and in order per session, and a reconnect that watches
// again from the last event seen (since_seq). It knows nothing of the DOM,
// so that it can become the TypeScript client package.

export interface RpcErrorData {
  [key: string]: unknown;
}

/** A JSON-RPC error answer, with cdevd's stable code and data. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: RpcErrorData) {
    super(message);
    this.name = "RpcError";
  }
}

export interface Availability {
  installed: boolean;
  version?: string;
  reason?: string;
}

export interface Runtime {
  id: string;
  displayName?: string;
  status: "active" | "preview" | "disabled";
  availability: Availability;
  permissionModes?: string[];
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: string;
  serverInfo: { name: string; version: string };
  clientId: string;
  epoch: string;
  capabilities: {
    supportedAgents: string[];
    runtimeRegistry: { defaultRuntime: string; runtimes: Runtime[] };
  };
}

/** An event: the notification's type (without "event/") and its params. */
export interface CdevdEvent {
  type: string;
  params: Record<string, any>;
}

/** What a watched session's reconnect found: replayed or a gap to reload. */
export interface Rewatch {
  sessionId: string;
  gap: boolean;
}

export type ConnState =
  | { kind: "connecting"; attempt: number }
  | { kind: "open"; init: InitializeResult }
  | { kind: "lost"; retryInMs: number }
  | { kind: "unauthorized" }
  | { kind: "closed" };

export interface ClientOptions {
  url: string; // ws://host:port/ws
  token: string;
  clientName?: string;
  onEvent?: (e: CdevdEvent) => void;
  onState?: (s: ConnState) => void;
  onRewatch?: (r: Rewatch) => void;
  /** Tells a refused upgrade (wrong token) from a server that is down. */
  serverUp?: () => Promise<boolean>;
}

interface Pending {
  resolve: (v: any) => void;
  reject: (e: Error) => void;
}

interface Watch {
  workspaceId: string;
  agentType: string;
  lastSeq: number;
}

const maxBackoffMs = 5000;

export class CdevdClient {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private watches = new Map<string, Watch>();
  private stopped = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ready: Promise<InitializeResult> | null = null;
  private epoch = "";

  constructor(private readonly opts: ClientOptions) {}

  /** Connects (and reconnects after a loss until close). */
  start(): Promise<InitializeResult> {
    this.stopped = false;
    return this.open();
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close(1000, "bye");
    this.ws = null;
    this.opts.onState?.({ kind: "closed" });
  }

  /** Calls method once connected; rejects with RpcError on an error answer. */
  async call<T = any>(method: string, params: object = {}): Promise<T> {
    if (!this.ready) throw new Error("not connected");
    await this.ready;
    return this.send<T>(method, params);
  }

  /** Watches a session; later reconnects watch it again since its last event. */
  async watch(workspaceId: string, sessionId: string, agentType: string): Promise<any> {
    const res = await this.call("workspace/session/watch", {
      workspace_id: workspaceId,
      session_id: sessionId,
      agent_type: agentType,
    });
    this.watches.set(sessionId, { workspaceId, agentType, lastSeq: res.last_seq ?? 0 });
    return res;
  }

  /** Counts a session as watched from seq on (session/start watches by itself). */
  track(workspaceId: string, sessionId: string, agentType: string, lastSeq = 0): void {
    if (!this.watches.has(sessionId)) this.watches.set(sessionId, { workspaceId, agentType, lastSeq });
  }

  async unwatch(sessionId: string): Promise<void> {
    const w = this.watches.get(sessionId);
    this.watches.delete(sessionId);
    if (w) await this.call("workspace/session/unwatch", { agent_type: w.agentType, session_id: sessionId });
  }

  private open(): Promise<InitializeResult> {
    this.opts.onState?.({ kind: "connecting", attempt: this.attempt });
    const ws = new WebSocket(this.opts.url, ["cdevd", "cdevd.bearer." + this.opts.token]);
    this.ws = ws;
    let opened = false;
    const p = new Promise<InitializeResult>((resolve, reject) => {
      ws.onopen = async () => {
        opened = true;
        try {
          const init = await this.send<InitializeResult>("initialize", {
            protocolVersion: "1.0",
            clientInfo: { name: this.opts.clientName ?? "cdevd-console", version: "1" },
          });
          this.attempt = 0;
          // A new epoch is a restarted server: its seqs start again.
          const restarted = this.epoch !== "" && this.epoch !== init.epoch;
          this.epoch = init.epoch;
          this.opts.onState?.({ kind: "open", init });
          resolve(init);
          this.rewatch(restarted);
        } catch (e) {
          reject(e as Error);
        }
      };
      ws.onmessage = (m) => this.receive(String(m.data));
      ws.onclose = async () => {
        if (this.ws !== ws) return;
        this.ws = null;
        const err = new Error("connection lost");
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        if (this.stopped) return;
        // A browser hides why an upgrade failed; a server that answers
        // /healthz but refused us has refused the token.
        if (!opened && this.opts.serverUp && (await this.opts.serverUp())) {
          this.stopped = true;
          this.opts.onState?.({ kind: "unauthorized" });
          reject(new RpcError(401, "the token was refused"));
          return;
        }
        reject(err);
        this.retry();
      };
    });
    this.ready = p;
    p.catch(() => {}); // callers see failures through call() and onState
    return p;
  }

  private retry(): void {
    const delay = Math.min(maxBackoffMs, 250 * 2 ** this.attempt);
    this.attempt++;
    this.opts.onState?.({ kind: "lost", retryInMs: delay });
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) this.open();
    }, delay);
  }

  // After a reconnect, every watched session is watched again from the last
  // event delivered: the server replays what was missed, or says gap.
  private async rewatch(restarted: boolean): Promise<void> {
    for (const [sessionId, w] of this.watches) {
      if (restarted) w.lastSeq = 0;
      try {
        const res = await this.send<any>("workspace/session/watch", {
          workspace_id: w.workspaceId,
          session_id: sessionId,
          agent_type: w.agentType,
          since_seq: w.lastSeq,
        });
        if (res.gap || restarted) w.lastSeq = Math.max(w.lastSeq, res.last_seq ?? 0);
        this.opts.onRewatch?.({ sessionId, gap: !!res.gap || restarted });
      } catch {
        // The connection dropped again; the next open retries.
      }
    }
  }

  private send<T>(method: string, params: object): Promise<T> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error("not connected"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  private receive(text: string): void {
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (m.id !== undefined && m.id !== null && !m.method) {
        const p = this.pending.get(m.id);
        if (!p) continue;
        this.pending.delete(m.id);
        if (m.error) p.reject(new RpcError(m.error.code, m.error.message, m.error.data));
        else p.resolve(m.result);
      } else if (typeof m.method === "string" && m.method.startsWith("event/")) {
        this.deliver({ type: m.method.slice("event/".length), params: m.params ?? {} });
      }
    }
  }

  // Session events carry seq: one already seen (a replay overlapping what
  // arrived live) is dropped, so each is delivered once and in order.
  private deliver(e: CdevdEvent): void {
    const sid = e.params.session_id;
    const seq = e.params.seq;
    if (typeof sid === "string" && typeof seq === "number") {
      const w = this.watches.get(sid);
      if (w) {
        if (seq <= w.lastSeq) return;
        w.lastSeq = seq;
      }
    }
    this.opts.onEvent?.(e);
  }
}
