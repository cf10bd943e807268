// A cdevd client for browsers: JSON-RPC 2.0 over one WebSocket, the token
// sent as the `cdevd.bearer.<token>` subprotocol, initialize first, events
// delivered once and in order per session, and a reconnect that watches
// again from the last event seen (since_seq). It knows nothing of the DOM,
// so that it can become the TypeScript client package.
/** A JSON-RPC error answer, with cdevd's stable code and data. */
export class RpcError extends Error {
    code;
    data;
    constructor(code, message, data) {
        super(message);
        this.code = code;
        this.data = data;
        this.name = "RpcError";
    }
}
const maxBackoffMs = 5000;
export class CdevdClient {
    opts;
    ws = null;
    nextId = 1;
    pending = new Map();
    watches = new Map();
    stopped = false;
    attempt = 0;
    timer = null;
    ready = null;
    epoch = "";
    constructor(opts) {
        this.opts = opts;
    }
    /** Connects (and reconnects after a loss until close). */
    start() {
        this.stopped = false;
        return this.open();
    }
    close() {
        this.stopped = true;
        if (this.timer)
            clearTimeout(this.timer);
        this.ws?.close(1000, "bye");
        this.ws = null;
        this.opts.onState?.({ kind: "closed" });
    }
    /** Calls method once connected; rejects with RpcError on an error answer. */
    async call(method, params = {}) {
        if (!this.ready)
            throw new Error("not connected");
        await this.ready;
        return this.send(method, params);
    }
    /** Watches a session; later reconnects watch it again since its last event. */
    async watch(workspaceId, sessionId, agentType) {
        const res = await this.call("workspace/session/watch", {
            workspace_id: workspaceId,
            session_id: sessionId,
            agent_type: agentType,
        });
        this.watches.set(sessionId, { workspaceId, agentType, lastSeq: res.last_seq ?? 0 });
        return res;
    }
    /** Counts a session as watched from seq on (session/start watches by itself). */
    track(workspaceId, sessionId, agentType, lastSeq = 0) {
        if (!this.watches.has(sessionId))
            this.watches.set(sessionId, { workspaceId, agentType, lastSeq });
    }
    async unwatch(sessionId) {
        const w = this.watches.get(sessionId);
        this.watches.delete(sessionId);
        if (w)
            await this.call("workspace/session/unwatch", { agent_type: w.agentType, session_id: sessionId });
    }
    open() {
        this.opts.onState?.({ kind: "connecting", attempt: this.attempt });
        const ws = new WebSocket(this.opts.url, ["cdevd", "cdevd.bearer." + this.opts.token]);
        this.ws = ws;
        let opened = false;
        const p = new Promise((resolve, reject) => {
            ws.onopen = async () => {
                opened = true;
                try {
                    const init = await this.send("initialize", {
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
                }
                catch (e) {
                    reject(e);
                }
            };
            ws.onmessage = (m) => this.receive(String(m.data));
            ws.onclose = async () => {
                if (this.ws !== ws)
                    return;
                this.ws = null;
                const err = new Error("connection lost");
                for (const p of this.pending.values())
                    p.reject(err);
                this.pending.clear();
                if (this.stopped)
                    return;
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
        p.catch(() => { }); // callers see failures through call() and onState
        return p;
    }
    retry() {
        const delay = Math.min(maxBackoffMs, 250 * 2 ** this.attempt);
        this.attempt++;
        this.opts.onState?.({ kind: "lost", retryInMs: delay });
        this.timer = setTimeout(() => {
            this.timer = null;
            if (!this.stopped)
                this.open();
        }, delay);
    }
    // After a reconnect, every watched session is watched again from the last
    // event delivered: the server replays what was missed, or says gap.
    async rewatch(restarted) {
        for (const [sessionId, w] of this.watches) {
            if (restarted)
                w.lastSeq = 0;
            try {
                const res = await this.send("workspace/session/watch", {
                    workspace_id: w.workspaceId,
                    session_id: sessionId,
                    agent_type: w.agentType,
                    since_seq: w.lastSeq,
                });
                if (res.gap || restarted)
                    w.lastSeq = Math.max(w.lastSeq, res.last_seq ?? 0);
                this.opts.onRewatch?.({ sessionId, gap: !!res.gap || restarted });
            }
            catch {
                // The connection dropped again; the next open retries.
            }
        }
    }
    send(method, params) {
        const ws = this.ws;
        if (!ws || ws.readyState !== WebSocket.OPEN)
            return Promise.reject(new Error("not connected"));
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject });
            ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
        });
    }
    receive(text) {
        let msg;
        try {
            msg = JSON.parse(text);
        }
        catch {
            return;
        }
        for (const m of Array.isArray(msg) ? msg : [msg]) {
            if (m.id !== undefined && m.id !== null && !m.method) {
                const p = this.pending.get(m.id);
                if (!p)
                    continue;
                this.pending.delete(m.id);
                if (m.error)
                    p.reject(new RpcError(m.error.code, m.error.message, m.error.data));
                else
                    p.resolve(m.result);
            }
            else if (typeof m.method === "string" && m.method.startsWith("event/")) {
                this.deliver({ type: m.method.slice("event/".length), params: m.params ?? {} });
            }
        }
    }
    // Session events carry seq: one already seen (a replay overlapping what
    // arrived live) is dropped, so each is delivered once and in order.
    deliver(e) {
        const sid = e.params.session_id;
        const seq = e.params.seq;
        if (typeof sid === "string" && typeof seq === "number") {
            const w = this.watches.get(sid);
            if (w) {
                if (seq <= w.lastSeq)
                    return;
                w.lastSeq = seq;
            }
        }
        this.opts.onEvent?.(e);
    }
}
