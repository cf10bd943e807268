package console_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// shapesScript is testdata/shapes.json as one scripted turn: every message
// of every runtime's shapes, in order, as a complete message.
func shapesScript(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	var shapes map[string]json.RawMessage
	if err := json.Unmarshal(raw, &shapes); err != nil {
		t.Fatal(err)
	}
	var steps []map[string]json.RawMessage
	for _, rt := range []string{"claude", "codex", "gemini"} {
		var msgs []json.RawMessage
		if err := json.Unmarshal(shapes[rt], &msgs); err != nil {
			t.Fatalf("%s: %v", rt, err)
		}
		for _, m := range msgs {
			steps = append(steps, map[string]json.RawMessage{"blocks": m})
		}
	}
	b, err := json.Marshal(map[string]any{"steps": steps})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// renderingProblems is a JavaScript expression: the list of what the
// transcript does not show as a person would expect, [] when all is well.
const renderingProblems = `(() => {
  const p = [];
  const q = (s) => document.querySelector('#transcript ' + s);
  const all = (s) => [...document.querySelectorAll('#transcript ' + s)];
  const text = (s) => (q(s)?.textContent ?? '');
  const expect = (ok, what) => { if (!ok) p.push(what); };
  // Markdown.
  expect(text('.md h1') === 'Fixed the parser', 'heading');
  expect(text('.md em') === 'without' && text('.md strong') === 'flag', 'emphasis');
  expect(all('.md ul li').length === 2, 'list');
  expect(all('.md table td').length === 4 && text('.md table th') === 'file', 'table');
  for (const lang of ['go', 'python', 'typescript'])
    expect(q('.code-block code.language-' + lang + ' .hljs-keyword'), 'highlighted ' + lang);
  expect(all('.code-block .copy').length >= 3, 'copy buttons on code');
  expect(!text('.md').includes('**'), 'markdown shown raw');
  // Nothing hostile made it into the page, and nothing ran.
  expect(window.__pwned === undefined, 'a script ran: ' + window.__pwned);
  expect(!q('script') && !q('iframe') && !q('object') && !q('form') && !q('style') && !q('meta') && !q('a[href^="javascript"]'), 'hostile markup kept');
  expect(![...document.querySelectorAll('#transcript *')].some((e) => [...e.attributes].some((a) => a.name.startsWith('on') || /^\s*javascript:/i.test(a.value))), 'an event attribute or javascript: URL kept');
  expect(getComputedStyle(document.body).display !== 'none', 'a style element applied');
  const tool = (id) => q('.tool[data-tool-id="' + id + '"]');
  const status = (id) => tool(id)?.querySelector('.tool-status')?.textContent;
  // Commands: the command, its output and its exit status as the runtime
  // reported it (Codex: exit_code; Claude and Gemini: stated when not 0;
  // ACP: never, so unknown).
  const unknown = (how) => how + ', exit status unknown';
  for (const [id, cmd, out, st, failed] of [
    ['cl-bash', 'ls -la src', 'parse.go', 'exit 0', false], ['cl-bash-fail', 'ls missing', 'cannot access', 'exit 2', true],
    ['cx-bash', 'cargo test', 'test result: ok', 'exit 0', false], ['cx-bash-fail', 'cargo build --release', 'E0425', 'exit 101', true],
    ['cx-bash-stopped', 'sleep 600', null, unknown('failed'), true],
    ['gm-shell', 'npm test', '4 passed', 'exit 0', false], ['gm-shell-fail', 'npm run lint', '2 problems', 'exit 1', true],
    ['acp-exec', 'touch made.txt && ls', 'made.txt', unknown('done'), false], ['acp-exec-fail', 'make check', 'Error 2', unknown('failed'), true]]) {
    const c = tool(id);
    expect(c?.classList.contains('tool-command'), id + ' is not a command');
    expect(c?.querySelector('pre.command')?.textContent === cmd, id + ' command');
    if (out) expect(c?.querySelector('.tool-result')?.textContent.includes(out), id + ' output');
    expect(status(id) === st, id + ' status ' + status(id) + ', want ' + st);
    expect(c?.querySelector('.tool-status')?.classList.contains('failed') === failed, id + ' shown failed: ' + !failed);
  }
  expect(tool('cl-bash')?.querySelector('.tool-result')?.textContent.includes('<script>'), 'tool output not shown as text');
  // Edits and writes: a diff with the path.
  for (const [id, path, del, add] of [
    ['cl-edit', '/w/parse.go', 'return old', 'return fixed'], ['gm-replace', '/w/app.js', 'let a = 1;', 'const a = 1;'],
    ['cl-write', '/w/notes.md', null, 'second line'], ['gm-write', '/w/README.md', null, '# App']]) {
    const c = tool(id);
    expect(c?.querySelector('.path')?.textContent === path, id + ' path');
    const dels = [...(c?.querySelectorAll('pre.diff .del') ?? [])].map((e) => e.textContent);
    const adds = [...(c?.querySelectorAll('pre.diff .add') ?? [])].map((e) => e.textContent);
    if (del) expect(dels.some((l) => l.includes(del)) && !dels.some((l) => l.includes('func parse')), id + ' removed lines ' + dels);
    else expect(dels.length === 0, id + ' a write removed lines');
    expect(adds.some((l) => l.includes(add)), id + ' added lines ' + adds);
    expect(status(id) === 'done', id + ' status ' + status(id));
  }
  // ACP's edits, named by a title only: the diffs their results carry,
  // each under its path.
  for (const [id, label, paths, del, add] of [
    ['acp-edit', 'Edit', ['/w/server.go'], 'listen(80)', 'listen(8080)'], ['acp-write', 'Write', ['/w/edited.txt'], null, 'hello from gemini'],
    ['acp-edits', 'Edit', ['/w/a.go', '/w/b.go'], 'x.Serve()', 'x.Run()']]) {
    const c = tool(id);
    expect(c?.classList.contains('tool-edit') && c.tagName === 'DIV', id + ' not drawn as an edit');
    expect(c?.querySelector('.tool-label')?.textContent === label, id + ' label ' + c?.querySelector('.tool-label')?.textContent);
    expect([...(c?.querySelectorAll('.path') ?? [])].map((e) => e.textContent).join() === paths.join(), id + ' paths');
    expect(c?.querySelectorAll('pre.diff').length === paths.length, id + ' a diff per file');
    const dels = [...(c?.querySelectorAll('pre.diff .del') ?? [])].map((e) => e.textContent);
    const adds = [...(c?.querySelectorAll('pre.diff .add') ?? [])].map((e) => e.textContent);
    if (del) expect(dels.some((l) => l.includes(del)), id + ' removed lines ' + dels);
    else expect(dels.length === 0, id + ' a write removed lines');
    expect(adds.some((l) => l.includes(add)), id + ' added lines ' + adds);
    expect(status(id) === 'done', id + ' status ' + status(id));
    expect(all('.tool[data-tool-id="' + id + '"]').length === 1, id + ' drawn twice');
  }
  const patch = tool('cx-patch');
  expect(patch?.classList.contains('tool-patch'), 'codex patch');
  expect([...(patch?.querySelectorAll('.patch-file .path') ?? [])].map((e) => e.textContent).join() === 'src/lib.rs,src/new.rs', 'patch paths');
  expect(patch?.querySelector('.del')?.textContent.includes('old();') && patch?.querySelector('.add')?.textContent.includes('new();'), 'patch diff');
  // Reads and searches: one closed line that opens on the output.
  for (const [id, what] of [['cl-read', '/w/lex.go'], ['gm-read', '/w/package.json'], ['acp-read', 'notes.txt'], ['acp-search', 'TODO']]) {
    const c = tool(id);
    expect(c?.tagName === 'DETAILS' && !c.open, id + ' not a closed line');
    expect(c?.querySelector('summary')?.textContent.includes(what), id + ' summary');
  }
  expect(tool('cl-read')?.querySelector('.tool-result')?.textContent.includes('package lex'), 'read output inside');
  // To-do lists as checklists.
  const todo = (id) => all('.tool[data-tool-id="' + id + '"] li.todo').map((l) => l.dataset.status + ':' + l.textContent.slice(1));
  expect(todo('cl-todo').join('|') === 'completed:Write the test|in_progress:Fix the parser|pending:Ship it', 'claude todos ' + todo('cl-todo'));
  expect(todo('gm-todo').join('|') === 'completed:Read the code|pending:Change it', 'gemini todos ' + todo('gm-todo'));
  // Unknown tools: named, closed, their input as JSON.
  for (const [id, key] of [['cl-mcp', '"labels"'], ['cx-mcp', '"query"'], ['gm-memory', '"fact"']]) {
    const c = tool(id);
    expect(c?.classList.contains('tool-unknown') && !c.open, id + ' not a closed unknown tool');
    expect(c?.textContent.includes(key), id + ' input');
  }
  // Results shown in their calls do not show again on their own.
  expect(all('.msg:not(.absorbed) > .tool-result').length === 0, 'results drawn twice');
  expect(all('.msg:not(.absorbed)').every((m) => m.classList.contains('streaming') || m.querySelector('time.msg-time')), 'a message without its time');
  return p;
})()`

func TestConsoleRendersEachRuntimesShapes(t *testing.T) {
	bctx := browser(t)
	ws := t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: t.TempDir()}),
	}})
	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#ws-pane")))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `!document.querySelector('#session').hidden && document.querySelector('#session').dataset.session`)
	id := eval[string](t, a, "document.querySelector('#session').dataset.session")

	// The checks see an empty transcript as wrong (they can fail).
	if p := eval[[]string](t, a, renderingProblems); len(p) < 40 {
		t.Errorf("the checks found only %d problems in an empty transcript: %q", len(p), p)
	}
	setPrompt(t, a, shapesScript(t))
	until(t, a, "the last message", `document.querySelector('.tool[data-tool-id="gm-memory"]')`)
	until(t, a, "idle", `document.querySelector('#state').textContent === 'idle'`)
	if p := eval[[]string](t, a, renderingProblems); len(p) > 0 {
		t.Errorf("live: %q", p)
	}
	eval[bool](t, a, `(document.querySelector('.md h1').scrollIntoView(), true)`)
	shot(t, a, "desktop-2-session-rendered")
	// The README's picture: a command with its output and exit status, an
	// edit as a diff, a write.
	eval[bool](t, a, `(document.querySelector('.tool[data-tool-id="cl-bash-fail"]').scrollIntoView(), true)`)
	shot(t, a, "desktop-3-tool-calls")
	eval[bool](t, a, `(document.querySelector('.tool[data-tool-id="cl-read"]').scrollIntoView(), true)`)
	shot(t, a, "desktop-5-checklist-commands")

	// The same from the stored transcript, opened from history.
	do(t, a, "reload", chromedp.Reload())
	until(t, a, "the workspace after reload", `document.querySelector('.ws .ws-open')`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible))
	until(t, a, "the session in history", `document.querySelector('.hist[data-session="`+id+`"]')`)
	do(t, a, "open it", chromedp.Click(chromedp.CSS(`.hist[data-session="`+id+`"]`)))
	until(t, a, "the stored transcript", `document.querySelector('.tool[data-tool-id="gm-memory"]')`)
	// Older pages come in as the reader scrolls up, until the first message.
	for eval[bool](t, a, `!document.querySelector('.md h1')`) {
		eval[bool](t, a, `(document.querySelector('#transcript').scrollTop = 0, document.querySelector('#transcript').dispatchEvent(new Event('scroll')), true)`)
		until(t, a, "an older page", `document.querySelector('.md h1') || document.querySelector('#transcript').scrollTop > 0`)
	}
	if p := eval[[]string](t, a, renderingProblems); len(p) > 0 {
		t.Errorf("stored: %q", p)
	}
	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	eval[bool](t, a, `(document.querySelector('.tool[data-tool-id="cl-bash-fail"]').scrollIntoView(), true)`)
	shot(t, a, "phone-2-session-rendered")
	eval[bool](t, a, `(document.querySelector('.tool[data-tool-id="cl-read"]').scrollIntoView(), true)`)
	shot(t, a, "phone-4-checklist-commands")
}
