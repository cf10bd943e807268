// Answers as GitHub-flavoured markdown. marked turns text into HTML, and
// DOMPurify removes anything that could run or reach out (scripts, event
// attributes, javascript: URLs, forms, frames) before the browser parses
// it into the page; the CSP is the second wall. Code is highlighted from
// its text by highlight.js with a few common languages only (the bundle
// budget), and only when the block names one: guessing is slow on long
// transcripts and often wrong.
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";

import { collapsible, copyButton, h } from "./dom.js";

const languages: Record<string, Parameters<typeof hljs.registerLanguage>[1]> = {
  bash, css, diff, go, javascript, json, python, rust, sql, typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["golang"], { languageName: "go" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["patch"], { languageName: "diff" });

const marked = new Marked({ gfm: true, breaks: false, async: false });

// Links open elsewhere and tell that page nothing about this one.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.getAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const purifyConfig = {
  // Inline styles would be refused by the CSP anyway (and log an error).
  FORBID_ATTR: ["style"],
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
};

// sanitize is markdown's HTML made safe, as a fragment of the page's
// document. Exported for the sanitiser's tests.
export function sanitize(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, { ...purifyConfig, RETURN_DOM_FRAGMENT: true });
}

// highlight colours a code element from its text, if it names a
// language highlight.js has here.
export function highlight(code: HTMLElement, lang: string): void {
  const name = lang.toLowerCase();
  if (!name || !hljs.getLanguage(name)) return;
  // highlight() escapes the text it is given: what it returns is the text
  // in <span class="hljs-…"> elements and nothing else, so it is parsed
  // inert (a template runs nothing) without the sanitiser's cost.
  const out = hljs.highlight(code.textContent ?? "", { language: name, ignoreIllegals: true });
  const tpl = document.createElement("template");
  tpl.innerHTML = out.value;
  code.replaceChildren(tpl.content);
  code.classList.add("hljs", "language-" + name);
}

// codeBlock is a block of code with a copy button, highlighted when it
// names a language, collapsed when long.
export function codeBlock(text: string, lang = ""): HTMLElement {
  const code = h("code", {}, text);
  highlight(code, lang);
  const pre = h("pre", { class: "code" }, code);
  return h("div", { class: "code-block" }, lang ? h("span", { class: "lang" }, lang) : null,
    copyButton(() => text), collapsible(pre, text));
}

// renderMarkdown is text as rendered, sanitised markdown.
export function renderMarkdown(text: string): HTMLElement {
  const html = marked.parse(text) as string;
  const box = h("div", { class: "md" });
  box.append(sanitize(html));
  for (const pre of [...box.querySelectorAll("pre")]) {
    const code = pre.querySelector("code");
    const lang = [...(code?.classList ?? [])].find((c) => c.startsWith("language-"))?.slice(9) ?? "";
    pre.replaceWith(codeBlock(code?.textContent ?? pre.textContent ?? "", lang));
  }
  for (const table of [...box.querySelectorAll("table")]) {
    // Wide tables scroll on their own instead of widening the page.
    const wrap = h("div", { class: "table-wrap" });
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return collapsible(box, text, 80, 8000);
}

// warmUp runs the parser, the sanitiser and each language's grammar once
// while the page is idle: their first use compiles them, which would
// otherwise land on the first answers rendered. One step at a time, only
// while idle: all at once held the page for half a second on a busy
// machine, and a click in that time waited for it.
export function warmUp(): void {
  const steps = [
    () => renderMarkdown("# a\n\n*b* `c`\n\n| d |\n|---|\n| e |\n\n- f"),
    ...Object.keys(languages).map((l) => () => highlight(h("code", {}, "x = 1"), l)),
  ];
  if (!("requestIdleCallback" in window)) {
    const next = () => {
      steps.shift()?.();
      if (steps.length) setTimeout(next, 50);
    };
    setTimeout(next, 200);
    return;
  }
  const next = (idle: IdleDeadline) => {
    while (steps.length && idle.timeRemaining() > 0) steps.shift()!();
    if (steps.length) requestIdleCallback(next);
  };
  requestIdleCallback(next);
}
