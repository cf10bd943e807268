// The client against servers that misbehave: each failure is a rejected
// promise with a message that says what happened, never a hang.
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import net, { type AddressInfo } from "node:net";
import WebSocket from "ws";
import { CdevdClient, ConnectionError, RpcError, browserSocket, nodeClient, type ConnState, type ServerNotification } from "../src/node.js";

// A ws server on a free port; onConn decides what it does with a client.
async function server(onConn: (s: ServerSocket) => void, verifyClient?: () => boolean) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, verifyClient });
  wss.on("connection", onConn);
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
  return {
    url,
    clients: () => [...wss.clients],
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

const init = {
  protocolVersion: "1.0",
  serverInfo: { name: "fake", version: "0" },
  clientId: "c1",
  epoch: "e1",
  capabilities: { supportedAgents: [], runtimeRegistry: { defaultRuntime: "claude", runtimes: [] } },
};

// Answers initialize (and watch) like cdevd; calls hook with every request.
function answering(hook?: (s: ServerSocket, req: any) => boolean) {
  return (s: ServerSocket) =>
    s.on("message", (data) => {
      const req = JSON.parse(String(data));
      if (hook?.(s, req)) return;
      if (req.method === "initialize") s.send(JSON.stringify({ jsonrpc: "2.0", id: req.id, result: init }));
    });
}

async function rejectsWith(p: Promise<unknown>, reason: string, text: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ConnectionError, `want ConnectionError, got ${e}`);
    assert.equal(e.reason, reason);
    assert.match(e.message, text);
    return true;
  });
}

test("a server that closes at once: connect rejects", async () => {
  const srv = await server((s) => s.close(1011, "going away"));
  const c = nodeClient({ url: srv.url, token: "t" });
  await rejectsWith(c.connect(), "closed", /closed before initialize answered \(code 1011 going away\)/);
  c.close();
  await srv.close();
});

test("a server that refuses the token: connect rejects with refused", async () => {
  const srv = await server(() => {}, () => false);
  const c = nodeClient({ url: srv.url, token: "t" });
  await rejectsWith(c.connect(), "refused", /401/);
  c.close();
  await srv.close();
});

test("a browser-like close before the upgrade, with serverUp: refused if the server is up", async () => {
  // Closed before any upgrade answer: what a browser sees of a refused token.
  const tcp = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", () => r()));
  const url = `ws://127.0.0.1:${(tcp.address() as AddressInfo).port}/ws`;
  for (const up of [true, false]) {
    const c = nodeClient({ url, token: "t", serverUp: async () => up });
    if (up) await rejectsWith(c.connect(), "refused", /the token was refused/);
    else await rejectsWith(c.connect(), "closed", /closed before initialize answered/);
    c.close();
  }
  await new Promise<void>((r) => tcp.close(() => r()));
});

test("a token refused on reconnect: the client stops, closed with the refusal", async () => {
  let conns = 0;
  const srv = await server(answering(), () => ++conns === 1);
  const states: ConnState[] = [];
  let onClosed: (s: ConnState) => void = () => {};
  const closed = new Promise<ConnState>((r) => (onClosed = r));
  const c = nodeClient({
    url: srv.url,
    token: "t",
    onState: (s) => {
      states.push(s);
      if (s.kind === "closed") onClosed(s);
    },
  });
  await c.connect();
  for (const sock of srv.clients()) sock.terminate();
  const last = await closed;
  assert.ok(last.kind === "closed" && last.error instanceof ConnectionError && last.error.reason === "refused", JSON.stringify(states));
  assert.equal(conns, 2, "the client tried again after the refusal");
  assert.deepEqual(states.map((s) => s.kind), ["connecting", "open", "lost", "connecting", "closed"]);
  c.close();
  await srv.close();
});

test("a server that sends garbage: connect rejects with protocol", async () => {
  const srv = await server((s) => s.send("<html>hello</html>"));
  // A timeout that the garbage must beat: the error is protocol, not timeout.
  const c = nodeClient({ url: srv.url, token: "t", initializeTimeoutMs: 5000 });
  await rejectsWith(c.connect(), "protocol", /not JSON: <html>hello/);
  c.close();
  await srv.close();
});

test("a server that never answers initialize: connect rejects with timeout", async () => {
  const srv = await server(() => {});
  const c = nodeClient({ url: srv.url, token: "t", initializeTimeoutMs: 50 });
  await rejectsWith(c.connect(), "timeout", /no answer to initialize/);
  c.close();
  await srv.close();
});

test("close during connect: connect rejects at once", async () => {
  const srv = await server(() => {}); // never answers initialize
  const c = nodeClient({ url: srv.url, token: "t" }); // default 10 s initialize timeout
  const p = c.connect();
  c.close();
  await rejectsWith(p, "closed", /client closed/);
  await srv.close();
});

test("the token: a header in Node, a subprotocol in browsers", async () => {
  const seen: string[] = [];
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: (ps) => (ps.has("cdevd") ? "cdevd" : false) });
  wss.on("connection", (s, req) => {
    seen.push(`auth=${req.headers.authorization ?? ""} protocols=${req.headers["sec-websocket-protocol"] ?? ""}`);
    answering()(s);
  });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
  const a = nodeClient({ url, token: "tok1" });
  await a.connect();
  a.close();
  // browserSocket uses the global WebSocket, as a browser has; ws stands in.
  const g = globalThis as { WebSocket?: unknown };
  const had = g.WebSocket;
  g.WebSocket = WebSocket;
  try {
    const b = new CdevdClient({ url, token: "tok2", socket: browserSocket });
    await b.connect();
    b.close();
  } finally {
    g.WebSocket = had;
  }
  for (const c of wss.clients) c.terminate();
  await new Promise<void>((r) => wss.close(() => r()));
  assert.deepEqual(seen, ["auth=Bearer tok1 protocols=cdevd", "auth= protocols=cdevd,cdevd.bearer.tok2"]);
});

test("nothing listening: connect rejects", async () => {
  const srv = await server(() => {});
  const url = srv.url;
  await srv.close();
  const c = nodeClient({ url, token: "t" });
  await rejectsWith(c.connect(), "closed", /ECONNREFUSED/);
  c.close();
});

test("an error answer rejects with a typed RpcError", async () => {
  const srv = await server(
    answering((s, req) => {
      if (req.method !== "session/state") return false;
      s.send(JSON.stringify({ jsonrpc: "2.0", id: req.id, error: { code: -32010, message: "session not found", data: { session_id: "x" } } }));
      return true;
    }),
  );
  const c = nodeClient({ url: srv.url, token: "t" });
  await c.connect();
  await assert.rejects(c.call("session/state", { session_id: "x" }), (e: unknown) => {
    assert.ok(e instanceof RpcError && e.is(-32010));
    assert.equal(e.data.session_id, "x"); // typed as SessionNotFoundData
    assert.match(e.message, /session\/state: session not found \(-32010\)/);
    return true;
  });
  c.close();
  await srv.close();
});

test("pending calls reject when the connection drops; silence trips the heartbeat", async () => {
  const srv = await server(answering()); // answers initialize, then nothing
  const states: ConnState[] = [];
  const c = nodeClient({ url: srv.url, token: "t", heartbeatTimeoutMs: 50, reconnect: false, onState: (s) => states.push(s) });
  await c.connect();
  await rejectsWith(c.call("workspace/list"), "timeout", /heartbeat/);
  const last = states.at(-1);
  assert.equal(last?.kind, "closed");
  await rejectsWith(c.call("workspace/list"), "not-connected", /not connected/);
  c.close();
  await srv.close();
});

test("a reconnect watches again since the last seq; events arrive once and in order", async () => {
  let conns = 0;
  const sinces: number[] = [];
  const event = (seq: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "event/message_delta",
      params: { session_id: "s1", workspace_id: "w1", agent_type: "claude", timestamp: "2026-01-01T00:00:00.000Z", seq, epoch: "e1", message_id: "m", phase: "text", text: "t" + seq },
    });
  const srv = await server((s) => {
    conns++;
    answering((s2, req) => {
      if (req.method !== "workspace/session/watch") return false;
      sinces.push(req.params.since_seq ?? -1);
      const since = req.params.since_seq ?? 0;
      s2.send(JSON.stringify({ jsonrpc: "2.0", id: req.id, result: { status: "watching", watching: true, workspace_id: "w1", session_id: "s1", epoch: "e1", last_seq: since === 0 ? 0 : 4, replayed: since === 0 ? 0 : 4 - since, gap: false } }));
      if (since === 0) {
        // First connection: 1..2 live, then the connection drops.
        s2.send(event(1));
        s2.send(event(2));
        s2.close(1012, "restart");
      } else {
        // The replay overlaps what was seen (2), then 3, 4.
        for (let q = since; q <= 4; q++) s2.send(event(q));
      }
      return true;
    })(s);
  });
  const got: string[] = [];
  let done: () => void;
  const all = new Promise<void>((r) => (done = r));
  const c = nodeClient({
    url: srv.url,
    token: "t",
    maxBackoffMs: 1,
    onEvent: (n: ServerNotification) => {
      switch (n.method) {
        case "event/message_delta":
          got.push(n.params.text); // narrowed: text exists only on deltas
          if (n.params.seq === 4) done();
          break;
        case "event/heartbeat":
          break;
      }
    },
  });
  await c.connect();
  await c.watch({ workspace_id: "w1", session_id: "s1", agent_type: "claude" });
  await all;
  assert.deepEqual(got, ["t1", "t2", "t3", "t4"]);
  assert.equal(conns, 2);
  assert.deepEqual(sinces.slice(-1), [2]);
  c.close();
  await srv.close();
});
