// Validates an OpenRPC document with @open-rpc/schema-utils-js: the meta-schema
// check before and after dereferencing every $ref. Run from the repository
// root after `npm ci`: node openrpc/validate.mjs openrpc/openrpc.json
import { readFile } from "node:fs/promises";
import { parseOpenRPCDocument } from "@open-rpc/schema-utils-js";

const [file] = process.argv.slice(2);
if (!file) {
  console.error("usage: node openrpc/validate.mjs <openrpc.json>");
  process.exit(2);
}

try {
  const doc = JSON.parse(await readFile(file, "utf8"));
  await parseOpenRPCDocument(doc, { validate: true, dereference: true });
} catch (err) {
  // The library throws plain objects with a message, not Errors. A failed
  // dereference appends the whole schema; its first lines say what is wrong.
  const message = String(err?.message ?? err);
  const limit = 4000;
  console.error(`${file}: ${message.length > limit ? message.slice(0, limit) + "…" : message}`);
  process.exit(1);
}
console.log(`${file}: valid OpenRPC document`);
