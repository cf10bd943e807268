// Images attached to the next prompt: the composer's Attach button uploads
// each image as the iOS app does (POST /api/images, the bearer token) and
// the next session/send carries them by their upload's id, so the model
// sees the image itself.
import { guard } from "./banners.js";
import { $, h } from "./dom.js";
import { tokenKey } from "./pairing.js";
import { page } from "./state.js";

interface Pending {
  id: string;
  name: string;
  workspaceId: string;
}

let pending: Pending[] = [];

interface Uploaded {
  id: string;
  local_path: string;
  mime_type: string;
  size: number;
}

async function upload(workspaceId: string, file: File): Promise<Uploaded> {
  const body = new FormData();
  body.append("file", file, file.name);
  const r = await fetch("/api/images?workspace_id=" + encodeURIComponent(workspaceId), {
    method: "POST",
    headers: { Authorization: "Bearer " + (sessionStorage.getItem(tokenKey) ?? "") },
    body,
    cache: "no-store",
  });
  const answer = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(answer.error ?? `${r.status} ${r.statusText}`);
  return answer as Uploaded;
}

function draw(): void {
  const box = $("attachments");
  const here = pending.filter((p) => p.workspaceId === page.open?.workspaceId);
  box.replaceChildren(
    ...here.map((p) => {
      const remove = h("button", { type: "button", class: "remove", "aria-label": "Remove " + p.name }, "×");
      remove.onclick = () => {
        pending = pending.filter((q) => q !== p);
        draw();
      };
      return h("span", { class: "attachment", "data-id": p.id }, p.name, remove);
    }),
  );
  box.hidden = here.length === 0;
}

// setupAttach wires the Attach button and its file input.
export function setupAttach(): void {
  const input = $<HTMLInputElement>("attach-file");
  $("attach").onclick = () => input.click();
  input.onchange = () =>
    void guard("Attach", async () => {
      const open = page.open;
      const files = [...(input.files ?? [])];
      input.value = "";
      if (!open) return;
      const runtime = page.runtimes.find((r) => r.id === open.agentType);
      if (runtime && !(runtime.attachments ?? []).includes("image")) {
        throw new Error(`${runtime.displayName} does not take images`);
      }
      for (const f of files) {
        const up = await upload(open.workspaceId, f);
        pending.push({ id: up.id, name: f.name, workspaceId: open.workspaceId });
        draw();
      }
    });
}

// takeAttachments are the open session's pending images as session/send's
// attachments; they are cleared once the turn was accepted (sent).
export function takeAttachments(): { attachments?: { kind: "image"; id: string; name: string }[]; sent: () => void } {
  const here = pending.filter((p) => p.workspaceId === page.open?.workspaceId);
  if (here.length === 0) return { sent: () => {} };
  return {
    attachments: here.map((p) => ({ kind: "image" as const, id: p.id, name: p.name })),
    sent: () => {
      pending = pending.filter((p) => !here.includes(p));
      draw();
    },
  };
}

// redrawAttachments shows the pending images of the session now open.
export const redrawAttachments = draw;
