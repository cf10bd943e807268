// The Devices screen: the paired devices (device/list, rename, revoke
// over JSON-RPC), the pairings waiting for the host's approval, and
// "Pair a phone" (the pairing API under /api, which takes the page's own
// access token as a bearer credential). The QR code comes drawn from the
// server as a PNG data: URL, so the page needs no QR encoder and its CSP
// allows nothing beyond data: images.
import type { Device } from "../../clients/ts/src/index.js";

import { guard } from "./banners.js";
import { $, h, when } from "./dom.js";
import { tokenKey } from "./pairing.js";
import { call } from "./rpc.js";

// A pairing in progress as the host sees it (GET /api/devices' requests).
interface PairRequest {
  request_id: string;
  name: string;
  scope: string;
  status: string;
  client?: string;
  address?: string;
  expires_at: string;
}

// /api/pair/new's answer (auth.PairAnswer).
interface PairAnswer {
  request_id: string;
  code: string;
  expires_at: string;
  code_expires_at: string;
  name: string;
  scope: string;
  approval_required: boolean;
  ws: string;
  http: string;
  qr_image: string;
}

// While the screen is open it is reloaded now and then: a phone's
// pairing, waiting for approval, appears without a click.
const reloadEveryMs = 3000;
let reloadTimer: ReturnType<typeof setInterval> | undefined;
let countdown: ReturnType<typeof setInterval> | undefined;
// What was last drawn: a reload that finds the same leaves the rows (and
// the button under the pointer) alone.
let drawn = "";

async function api<T>(method: "GET" | "POST", path: string, body?: object): Promise<T> {
  const r = await fetch(path, {
    method,
    headers: { Authorization: "Bearer " + (sessionStorage.getItem(tokenKey) ?? ""), "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
    cache: "no-store",
  });
  const answer = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(answer.error ?? `${r.status} ${r.statusText}`);
  return answer as T;
}

export function openDevices(): void {
  $("app").hidden = true;
  $("devices").hidden = false;
  guard("Load devices", loadDevices);
  clearInterval(reloadTimer);
  reloadTimer = setInterval(() => void guard("Load devices", loadDevices), reloadEveryMs);
}

export function closeDevices(): void {
  clearInterval(reloadTimer);
  clearInterval(countdown);
  drawn = "";
  $("pair-shown").hidden = true;
  $("devices").hidden = true;
  $("app").hidden = false;
}

export async function loadDevices(): Promise<void> {
  const [list, pending] = await Promise.all([
    call("device/list"),
    api<{ requests: PairRequest[] | null }>("GET", "/api/devices"),
  ]);
  const devices = list.devices ?? [];
  const waiting = (pending.requests ?? []).filter((r) => r.status === "pending_approval");
  const now = JSON.stringify([devices, waiting]);
  if (now === drawn) return;
  drawn = now;
  drawDevices(devices);
  drawRequests(waiting);
}

function drawDevices(devices: Device[]): void {
  $("device-list").replaceChildren(
    ...devices.map((d) => {
      const seen = d.last_seen_at ? `last seen ${when(d.last_seen_at)}${d.last_seen_address ? " from " + d.last_seen_address : ""}` : "never seen";
      const rename = h("button", { type: "button", class: "device-rename" }, "Rename");
      const revoke = h("button", { type: "button", class: "device-revoke danger" }, "Revoke");
      rename.onclick = () => {
        const name = window.prompt(`New name for ${d.name}`, d.name)?.trim();
        if (name && name !== d.name)
          guard("Rename device", async () => {
            await call("device/rename", { device_id: d.id, name });
            await loadDevices();
          });
      };
      revoke.onclick = () => {
        if (window.confirm(`Revoke ${d.name}? Its connections close now and it must pair again.`))
          guard("Revoke device", async () => {
            await call("device/revoke", { device_id: d.id });
            await loadDevices();
          });
      };
      return h(
        "li",
        { class: "device", "data-id": d.id },
        h("span", { class: "device-name" }, d.name),
        h("span", { class: "badge scope-" + d.scope }, d.scope),
        h("span", { class: "device-meta" }, `paired ${when(d.created_at)} · ${seen}${d.client ? " · " + d.client : ""}`),
        h("span", { class: "row" }, rename, revoke),
      );
    }),
  );
  if (devices.length === 0) $("device-list").append(h("li", { class: "empty" }, "No paired devices."));
}

function drawRequests(requests: PairRequest[]): void {
  $("pair-requests-box").hidden = requests.length === 0;
  $("pair-requests").replaceChildren(
    ...requests.map((r) => {
      const decide = (action: "approve" | "reject", label: string) => {
        const b = h("button", { type: "button", class: "pair-" + action }, label);
        b.onclick = () =>
          guard(`${label} pairing`, async () => {
            await api("POST", "/api/devices/" + action, { id: r.request_id });
            await loadDevices();
          });
        return b;
      };
      return h(
        "li",
        { class: "pair-request", "data-id": r.request_id },
        h("span", { class: "device-name" }, r.name || r.client || "device"),
        h("span", { class: "badge scope-" + r.scope }, r.scope),
        h("span", { class: "device-meta" }, [r.client, r.address].filter(Boolean).join(" from ")),
        h("span", { class: "row" }, decide("approve", "Approve"), decide("reject", "Reject")),
      );
    }),
  );
}

// pair asks for a new pairing and shows its code, QR code and expiry.
export async function pair(): Promise<void> {
  const name = $<HTMLInputElement>("pair-name").value.trim();
  const scope = $<HTMLSelectElement>("pair-scope").value;
  const p = await api<PairAnswer>("POST", "/api/pair/new", { name, scope });
  $<HTMLImageElement>("pair-qr").src = p.qr_image;
  $("pair-code").textContent = p.code;
  $("pair-address").textContent = p.http;
  $("pair-approval").hidden = !p.approval_required;
  $("pair-shown").hidden = false;
  const tick = () => {
    const left = Math.max(0, Math.round((Date.parse(p.code_expires_at) - Date.now()) / 1000));
    $("pair-expiry").textContent = left > 0 ? `code valid for ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` : "code expired";
    if (left === 0) clearInterval(countdown);
  };
  clearInterval(countdown);
  tick();
  countdown = setInterval(tick, 1000);
}
