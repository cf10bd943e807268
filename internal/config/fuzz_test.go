package config

import (
	"strings"
	"testing"
)

// FuzzParse: whatever the file holds, parse returns agents or an error that
// names the file, and never panics (the position index walks go-toml's
// parser, whose API panics on misuse).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"[[acp_agent]]\nid = \"goose\"\ncommand = \"goose\"\nargs = [\"acp\"]\nenv = { A = \"1\" }\n",
		"acp_agent = [{ id = \"a\", command = \"a\", env.B = \"2\" }]\n",
		"[acp_agent]\nid = \"a\"\n[acp_agent.env]\n\"\" = \"x\"\n",
		"[[acp_agent]]\n[[acp_agent]]\nid = \"a\"\nid = \"b\"\n",
		"acp_agent = 3\n[x.y]\nz = [1, {a = 2}]\n",
		"[notify]\npermission_wait = \"5s\"\n[[notify.webhook]]\nurl = \"https://h/\"\nsecret = \"0123456789abcdef\"\n[[notify.ntfy]]\ntopic = \"t\"\n",
		"notify = { webhook = [{ url = \"ftp://x\" }] }\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agents, notify, err := parse("/h/config.toml", data, []string{"claude"})
		if err != nil {
			if agents != nil {
				t.Errorf("agents %v returned with error %v", agents, err)
			}
			for line := range strings.SplitSeq(err.Error(), "\n") {
				if !strings.HasPrefix(line, "/h/config.toml") && !strings.HasPrefix(line, "config: /h/config.toml") {
					t.Errorf("error line does not name the file: %q", line)
				}
			}
			return
		}
		for _, w := range notify.Webhooks {
			if httpURL(w.URL) != "" || len(w.Secret) < minSecret {
				t.Errorf("accepted a bad webhook: %+v", w)
			}
		}
		for _, a := range agents {
			if !idPattern.MatchString(a.ID) || a.ID == "claude" || a.Command == "" || a.Name == "" {
				t.Errorf("accepted a bad agent: %v", a)
			}
		}
	})
}
