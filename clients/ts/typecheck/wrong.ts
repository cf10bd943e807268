// Calls that must not compile: ts_test.go runs tsc --strict on this file and
// wants an error on exactly the lines marked "want error", and no other.
import { CdevdClient, type ServerNotification } from "../src/index.js";

declare const c: CdevdClient;

export async function wrong(n: ServerNotification): Promise<void> {
  await c.call("session/strat", { session_id: "s" }); // want error: no such method
  await c.call("session/stop", {}); // want error: session_id is required
  await c.call("session/stop"); // want error: params are required
  await c.call("session/stop", { session_id: 1 }); // want error: session_id is a string
  await c.call("session/send", { prompt: "p", mode: "sideways" }); // want error: mode is an enum
  await c.call("workspace/list", { include_gti: true }); // want error: misspelled param
  const r = await c.call("session/start", { workspace_id: "w" });
  r.sessionId; // want error: the result has session_id
  const n2: number = (await c.call("workspace/list")).workspaces; // want error: an array, not a number
  if (n.method === "event/heartbeat") n.params.text; // want error: heartbeats have no text
  switch (n.method) {
    case "event/message_delta":
      n.params.request_id; // want error: deltas have no request_id
      break;
    case "event/not_an_event": // want error: no such event
      break;
  }
  void n2;
}
