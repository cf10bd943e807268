// Permission prompts and questions: a card per request until answered.
import { guard } from "./banners.js";
import { $, h } from "./dom.js";
import { call } from "./rpc.js";
import { page } from "./state.js";
import { append } from "./transcript.js";

export function prompt(p: any, kind: "permission" | "question"): void {
  const box = $("prompts");
  if (box.querySelector(`[data-request="${CSS.escape(p.request_id)}"]`)) return;
  const card = h("div", { class: "prompt " + kind, "data-request": p.request_id });
  const answer = (response: string) =>
    guard("Answer", async () => {
      await call("session/respond", {
        session_id: page.open!.sessionId,
        agent_type: page.open!.agentType,
        type: kind,
        response,
        request_id: p.request_id,
      });
    });
  if (kind === "permission") {
    card.append(
      h("div", { class: "title" }, `${p.tool_name} wants to run: ${p.description || p.type}`),
      h("pre", { class: "target" }, p.target ?? ""),
    );
    if (p.preview && p.preview !== p.target) card.append(h("pre", { class: "preview" }, p.preview));
    const row = h("div", { class: "row" });
    for (const opt of p.options ?? []) {
      const b = h("button", { type: "button", class: "answer", "data-key": opt.key }, opt.label || opt.key);
      b.onclick = () => answer(opt.key);
      row.append(b);
    }
    card.append(row);
  } else {
    for (const q of p.questions ?? []) {
      card.append(h("div", { class: "title" }, q.question));
      const row = h("div", { class: "row" });
      for (const opt of q.options ?? []) {
        const b = h("button", { type: "button", class: "answer", "data-key": opt.key, title: opt.description ?? "" }, opt.label || opt.key);
        b.onclick = () => answer(opt.key);
        row.append(b);
      }
      card.append(row);
    }
    const form = h("form", { class: "row" });
    const input = h("input", { placeholder: "or type an answer" }) as HTMLInputElement;
    form.append(input, h("button", { type: "submit" }, "Answer"));
    form.onsubmit = (e) => {
      e.preventDefault();
      if (input.value) answer(input.value);
    };
    card.append(form);
  }
  box.append(card);
}

export function resolved(p: any): void {
  $("prompts").querySelector(`[data-request="${CSS.escape(p.request_id)}"]`)?.remove();
  append(h("div", { class: "note resolved" }, `Prompt answered: ${p.decision}`));
}
