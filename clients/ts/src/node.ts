// @cdevd/client for Node: the token goes in the Authorization header (a
// subprotocol would also work, but a header stays out of proxies' logs of
// negotiated protocols). Needs the `ws` package.
import WebSocket from "ws";
import { CdevdClient, type ClientOptions, type SocketFactory, type SocketLike } from "./client.js";

export * from "./index.js";

export const nodeSocket: SocketFactory = (url, token) =>
  new WebSocket(url, ["cdevd"], { headers: { Authorization: "Bearer " + token } }) as unknown as SocketLike;

/** A client whose socket is nodeSocket unless opts.socket says otherwise. */
export function nodeClient(opts: ClientOptions): CdevdClient {
  return new CdevdClient({ socket: nodeSocket, ...opts });
}
