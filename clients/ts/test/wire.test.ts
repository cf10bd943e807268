// Every frame of the contract suite's corpus (contracttests/testdata/wire:
// real frames cdevd sent or accepted) goes through the package's own
// decoding path (decodeFrame, then answerOf with the method of the request
// it answers) and must land in the branch its file says, with its method;
// its payload must then match the schema bundle the package's types are
// generated from (ajv, with objects closed as gen.mjs closes them), so a
// fixture that drifts from the generated types fails here.
// Run from clients/ts (ts_test.go does); CDEVD_WIRE overrides the corpus.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import AjvModule from "ajv";
import {
  RpcError,
  answerOf,
  decodeFrame,
  encodeRequest,
  errorDataTable,
  eventTable,
  methodTable,
  openDefinitions,
  type Method,
  type ServerNotification,
} from "../src/index.js";

const root = path.resolve("..", "..");
const wire = process.env.CDEVD_WIRE ?? path.join(root, "contracttests", "testdata", "wire");
const bundle = JSON.parse(fs.readFileSync(path.join(root, "openrpc", "cdevd.schema.json"), "utf8"));

// gen.mjs compiles with additionalProperties false but for openDefinitions:
// a field the types do not have is an error there, so it is one here too.
function close(s: any): void {
  if (Array.isArray(s)) return s.forEach(close);
  if (s === null || typeof s !== "object") return;
  if (s.properties && !("additionalProperties" in s)) s.additionalProperties = false;
  for (const v of Object.values(s)) close(v);
}
for (const name of openDefinitions) bundle.definitions[name].additionalProperties = true;
close(bundle);

const Ajv = ((AjvModule as any).default ?? AjvModule) as typeof AjvModule.default;
// The document's one timestamp format: RFC 3339, milliseconds, UTC.
const ajv = new Ajv({ allErrors: true, strict: true, formats: { "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ } });
ajv.addSchema(bundle);
function check(def: string, value: unknown, file: string): void {
  const v = ajv.getSchema(`urn:cdevd:schema#/definitions/${def}`);
  assert.ok(v, `${def} is not in cdevd.schema.json`);
  const ok = v(value);
  assert.ok(ok, `${file} does not match ${def}: ${ajv.errorsText(v.errors)}`);
}

const read = (kind: string, name: string) => fs.readFileSync(path.join(wire, kind, name), "utf8");
const kinds = fs.readdirSync(wire).sort();
const methods = Object.keys(methodTable) as Method[];

// A result or error file is named after its request's file: the method comes
// from there, as the client takes it from the request it sent.
const methodOf = new Map<string, Method>();
for (const f of fs.readdirSync(path.join(wire, "request"))) {
  const m = JSON.parse(read("request", f)).method;
  if (Object.hasOwn(methodTable, m)) methodOf.set(path.basename(f, ".json"), m as Method);
}

test("the corpus has only the kinds the client reads", () => {
  assert.deepEqual(kinds, ["error", "notification", "request", "result"]);
});

test("every request: a known method, params match, and the client encodes it the same", () => {
  const seen = new Set<string>();
  for (const f of fs.readdirSync(path.join(wire, "request"))) {
    const frame = JSON.parse(read("request", f));
    assert.ok(Object.hasOwn(methodTable, frame.method), `request/${f}: unknown method ${frame.method}`);
    const m = frame.method as Method;
    seen.add(m);
    assert.notEqual(frame.params, null, `request/${f}: params null (JSON-RPC 2.0: omitted or structured)`);
    // Omitted params are the empty object, as cdevd reads them (and as this
    // client sends them).
    const params = frame.params ?? {};
    check(methodTable[m].params, params, `request/${f}`);
    assert.deepEqual(JSON.parse(encodeRequest(frame.id, m, params)), { ...frame, params }, `request/${f}`);
  }
  assert.deepEqual([...seen].sort(), [...methods].sort(), "methods without a request fixture");
});

test("every result: decoded as the result of its method, matching the method's result schema", () => {
  const seen = new Set<string>();
  for (const f of fs.readdirSync(path.join(wire, "result"))) {
    const m = methodOf.get(path.basename(f, ".json"));
    assert.ok(m, `result/${f}: no request fixture names its method`);
    const msgs = decodeFrame(read("result", f));
    assert.ok(!(msgs instanceof Error), `result/${f}: ${msgs}`);
    assert.equal(msgs.length, 1, `result/${f}`);
    const [msg] = msgs;
    assert.equal(msg.kind, "answer", `result/${f}`);
    if (msg.kind !== "answer") continue;
    const a = answerOf(m, msg);
    assert.equal(a.kind, "result", `result/${f}`);
    assert.equal(a.method, m);
    if (a.kind !== "result") continue;
    check(methodTable[m].result, a.result, `result/${f}`);
    seen.add(m);
  }
  assert.deepEqual([...seen].sort(), [...methods].sort(), "methods without a result fixture");
});

test("every error: an RpcError of its method, a code the method lists, data matching the code's schema", () => {
  for (const f of fs.readdirSync(path.join(wire, "error"))) {
    const [stem, code] = path.basename(f, ".json").split(".");
    const m = methodOf.get(stem);
    assert.ok(m, `error/${f}: no request fixture names its method`);
    const msgs = decodeFrame(read("error", f));
    assert.ok(!(msgs instanceof Error), `error/${f}: ${msgs}`);
    assert.equal(msgs.length, 1, `error/${f}`);
    const [msg] = msgs;
    assert.equal(msg.kind, "answer", `error/${f}`);
    if (msg.kind !== "answer") continue;
    const a = answerOf(m, msg);
    assert.equal(a.kind, "error", `error/${f}`);
    if (a.kind !== "error") continue;
    assert.ok(a.error instanceof RpcError);
    assert.equal(a.error.method, m);
    assert.equal(String(a.error.code), code, `error/${f}: code`);
    assert.ok((methodTable[m].errors as readonly number[]).includes(a.error.code), `error/${f}: ${m} does not list ${a.error.code}`);
    assert.ok(Object.hasOwn(errorDataTable, a.error.code), `error/${f}: unknown code ${a.error.code}`);
    const schema = errorDataTable[a.error.code as keyof typeof errorDataTable];
    if (schema === null) assert.equal(a.error.data, undefined, `error/${f}: ${a.error.code} has no data`);
    else if (a.error.data !== undefined) check(schema, a.error.data, `error/${f} data`);
    assert.ok(errorMember(JSON.parse(read("error", f)).error), `error/${f}: ${ajv.errorsText(errorMember.errors)}`);
  }
});

// The error member itself (JSON-RPC's, not in the bundle): code and message,
// data only as its code's schema says (checked above).
const errorMember = ajv.compile({
  type: "object",
  properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
  required: ["code", "message"],
  additionalProperties: false,
});

test("every event: decoded as a known event of its method, matching ServerNotification", () => {
  const seen = new Set<string>();
  for (const f of fs.readdirSync(path.join(wire, "notification"))) {
    const msgs = decodeFrame(read("notification", f));
    assert.ok(!(msgs instanceof Error), `notification/${f}: ${msgs}`);
    assert.equal(msgs.length, 1, `notification/${f}`);
    const [msg] = msgs;
    assert.equal(msg.kind, "event", `notification/${f}`);
    if (msg.kind !== "event") continue;
    assert.ok(msg.known, `notification/${f}: ${msg.event.method} is not in the generated events`);
    assert.equal(f, msg.event.method.replace("/", "_") + ".json", `notification/${f}: method ${msg.event.method}`);
    check("ServerNotification", msg.event, `notification/${f}`);
    check(eventTable[msg.event.method], msg.event.params, `notification/${f} params`);
    seen.add(narrow(msg.event));
  }
  assert.deepEqual([...seen].sort(), Object.keys(eventTable).sort(), "events without a fixture");
});

// Compile-time half: switch (n.method) narrows params for every event, and
// the never default fails to compile if an event is added without a case.
function narrow(n: ServerNotification): string {
  switch (n.method) {
    case "event/claude_message":
      return n.params.message.role !== undefined ? n.method : n.method;
    case "event/message_delta":
      return typeof n.params.text === "string" ? n.method : "";
    case "event/pty_permission":
      return typeof n.params.request_id === "string" ? n.method : "";
    case "event/pty_permission_resolved":
      return typeof n.params.decision === "string" ? n.method : "";
    case "event/rate_limits":
      return Array.isArray(n.params.windows) ? n.method : "";
    case "event/context_usage":
      return typeof n.params.used_tokens === "number" ? n.method : "";
    case "event/question":
    case "event/pty_state":
    case "event/turn_completed":
    case "event/error":
    case "event/session_start":
    case "event/session_end":
    case "event/session_stopped":
    case "event/session_updated":
    case "event/heartbeat":
      return n.method;
    case "event/session_joined":
      return typeof n.params.joining_client_id === "string" ? n.method : "";
    case "event/session_left":
      return typeof n.params.leaving_client_id === "string" ? n.method : "";
    case "event/workspace_removed":
      return typeof n.params.path === "string" ? n.method : "";
    case "event/git_status_changed":
      return typeof n.params.staged_count === "number" ? n.method : "";
    case "event/git_operation_completed":
      return typeof n.params.operation === "string" ? n.method : "";
    case "event/file_changed":
      return typeof n.params.path === "string" ? n.method : "";
    case "event/turn_diff":
      return typeof n.params.turn === "number" ? n.method : "";
    case "event/queue_changed":
      return Array.isArray(n.params.items) ? n.method : "";
    default: {
      const unknown: never = n;
      return String(unknown);
    }
  }
}
