// @cdevd/client for browsers (and any runtime with a global WebSocket).
export * from "./client.js";
export * from "./methods.gen.js";
export type * from "./types.gen.js";
