// A whole session against a real cdevd (ts_test.go starts it, with the real
// Claude CLI and the fake model API, and sets CDEVD_*): skipped without it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionError, nodeClient, type EventMethod, type Events, type ServerNotification } from "../src/node.js";

const url = process.env.CDEVD_URL;
const token = process.env.CDEVD_TOKEN ?? "";

// Events in arrival order, and a way to wait for the first of a kind after a point.
class Inbox {
  readonly all: ServerNotification[] = [];
  private waiters: Array<() => void> = [];
  push(n: ServerNotification) {
    this.all.push(n);
    for (const w of this.waiters.splice(0)) w();
  }
  async next<M extends EventMethod>(method: M, from = 0): Promise<Events[M]> {
    for (;;) {
      const hit = this.all.slice(from).find((n) => n.method === method);
      if (hit) return hit.params as Events[M];
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
}

test("a wrong token is refused", { skip: !url && "CDEVD_URL not set" }, async () => {
  const c = nodeClient({ url: url!, token: token + "x" });
  await assert.rejects(c.connect(), (e: Error) => e instanceof ConnectionError && e.reason === "refused" && /401/.test(e.message));
  c.close();
});

test("a full claude session through the client", { skip: !url && "CDEVD_URL not set" }, async () => {
  const inbox = new Inbox();
  const c = nodeClient({ url: url!, token, clientName: "ts-live", onEvent: (n) => inbox.push(n) });
  try {
    const init = await c.connect();
    assert.ok(init.capabilities.supportedAgents.includes("claude"));

    const w = await c.call("workspace/add", { path: process.env.CDEVD_WORKSPACE!, name: "ts" });
    const start = await c.call("session/start", { workspace_id: w.id, agent_type: "claude" });
    assert.equal(start.status, "started");
    const sid = start.session_id;

    const mark = inbox.all.length;
    const sent = await c.call("session/send", { session_id: sid, prompt: "create ts.txt", agent_type: "claude" });
    assert.equal(sent.session_id, sid);

    const ask = await inbox.next("event/pty_permission", mark);
    assert.equal(ask.session_id, sid);
    assert.equal(ask.tool_name, "Bash");
    assert.equal(ask.target, process.env.CDEVD_COMMAND);
    const ok = await c.call("session/respond", { session_id: sid, type: "permission", response: "yes", request_id: ask.request_id });
    assert.equal(ok.status, "responded");
    const resolved = await inbox.next("event/pty_permission_resolved", mark);
    assert.equal(resolved.request_id, ask.request_id);
    assert.equal(resolved.decision, "allow");
    const done = await inbox.next("event/turn_completed", mark);
    assert.equal(done.session_id, sid);

    // Deltas streamed the reply, and events of the session came in seq order.
    const deltas = inbox.all.slice(mark).flatMap((n) => (n.method === "event/message_delta" ? [n.params.text] : []));
    assert.ok(deltas.join("").includes("tool said: "), `deltas: ${JSON.stringify(deltas)}`);
    const seqs = inbox.all.flatMap((n) => ("seq" in n.params && n.params.session_id === sid ? [n.params.seq] : []));
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    assert.equal(new Set(seqs).size, seqs.length);

    const hist = await c.call("workspace/session/history", { workspace_id: w.id, agent_type: "claude" });
    assert.ok(hist.sessions.some((s) => s.session_id === sid), `history: ${JSON.stringify(hist.sessions)}`);
    const msgs = await c.call("workspace/session/messages", { workspace_id: w.id, session_id: sid, agent_type: "claude" });
    assert.ok(msgs.total >= 2, `messages: ${msgs.total}`);

    const stop = await c.call("session/stop", { session_id: sid, agent_type: "claude" });
    assert.equal(stop.success, true);
    await inbox.next("event/session_stopped", mark);
  } finally {
    c.close();
  }
});
