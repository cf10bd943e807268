package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoadNotify(t *testing.T) {
	home := writeHome(t, `
[notify]
permission_wait = "90s"
console_url = "https://box.example.ts.net:16180/"

[[notify.webhook]]
name = "home"
url = "https://hooks.example.com/cdevd"
secret = "0123456789abcdef0123"
kinds = ["permission", "question"]
timeout = "5s"
retries = 2

[[notify.webhook]]
url = "http://127.0.0.1:9000/"
secret = "another-long-secret"
retries = 0

[[notify.ntfy]]
topic = "my-agents_42"
token = "tk_abc"
`, 0o600)
	cfg, err := Load(home, builtIns...)
	if err != nil {
		t.Fatal(err)
	}
	n := cfg.Notify
	if n.PermissionWait != 90*time.Second || n.ConsoleURL != "https://box.example.ts.net:16180/" {
		t.Errorf("notify = %+v", n)
	}
	if len(n.Webhooks) != 2 || len(n.Ntfy) != 1 {
		t.Fatalf("sinks %+v", n)
	}
	w := n.Webhooks[0]
	if w.Name != "home" || w.URL != "https://hooks.example.com/cdevd" || w.Secret != "0123456789abcdef0123" ||
		!slices.Equal(w.Kinds, []string{"permission", "question"}) || w.Timeout != 5*time.Second || w.Retries != 2 {
		t.Errorf("webhook #1 = %+v", w)
	}
	if w := n.Webhooks[1]; w.Name != "webhook-2" || !slices.Equal(w.Kinds, NotifyKinds) || w.Retries != -1 || w.Timeout != 0 {
		t.Errorf("webhook #2 = %+v (want the defaults, and retries = 0 as none)", w)
	}
	if f := n.Ntfy[0]; f.Name != "ntfy-1" || f.Server != "https://ntfy.sh" || f.Topic != "my-agents_42" || f.Token != "tk_abc" {
		t.Errorf("ntfy = %+v", f)
	}
	for _, shown := range []string{fmt.Sprint(n), fmt.Sprintf("%+v", n), fmt.Sprintf("%#v", n)} {
		if strings.Contains(shown, "0123456789abcdef") || strings.Contains(shown, "tk_abc") {
			t.Errorf("a secret is printed: %s", shown)
		}
	}
}

func TestLoadNotifyErrors(t *testing.T) {
	const secret = "0123456789abcdef"
	cases := []struct {
		name, file string
		want       []string
		hidden     string
	}{
		{
			name: "unknown kind",
			file: "[[notify.webhook]]\nurl = \"https://h/\"\nsecret = \"" + secret + "\"\nkinds = [\"permission\", \"finished\"]\n",
			want: []string{`4:1: notify.webhook #1: kinds: unknown kind "finished": want some of permission, question, turn_completed, error, stall`},
		},
		{
			name: "non-http URL",
			file: "[notify]\npermission_wait = \"30s\"\n\n[[notify.webhook]]\nsecret = \"" + secret + "\"\nurl = \"ftp://h/x\"\n",
			want: []string{`6:1: notify.webhook #1: url: "ftp:": want an http or https URL`},
		},
		{
			name:   "credentials in the URL",
			file:   "[[notify.ntfy]]\ntopic = \"t\"\nserver = \"https://me:hunter2@ntfy.example/\"\n",
			want:   []string{`3:1: notify.ntfy #1: server: holds credentials (user:password@); put them in secret or token instead`},
			hidden: "hunter2",
		},
		{
			name:   "short secret, not echoed",
			file:   "[[notify.webhook]]\nurl = \"https://h/\"\nsecret = \"tiny-secret\"\n",
			want:   []string{`3:1: notify.webhook #1: secret: missing or shorter than 16 characters`},
			hidden: "tiny-secret",
		},
		{
			name: "unknown key in a sink",
			file: "[[notify.webhook]]\nurl = \"https://h/\"\nsecrett = \"x\"\n",
			want: []string{`3:1: unknown key notify.webhook.secrett (a webhook has name, url, secret, kinds, timeout and retries)`},
		},
		{
			name: "unknown sink type",
			file: "[[notify.slack]]\nurl = \"https://h/\"\n",
			want: []string{`1:3: unknown key notify.slack ([notify] has permission_wait, console_url, [[notify.webhook]] and [[notify.ntfy]])`},
		},
		{
			name: "second sink, bad topic, duplicate name, bad wait",
			file: "[notify]\npermission_wait = \"0s\"\n[[notify.ntfy]]\nname = \"phone\"\ntopic = \"ok\"\n[[notify.ntfy]]\nname = \"phone\"\ntopic = \"no/slash\"\n",
			want: []string{
				`2:1: notify.permission_wait: 0s is out of range: from 1s to 1h`,
				`7:1: notify.ntfy #2: name: "phone" is already the name of notify.ntfy #1`,
				`8:1: notify.ntfy #2: topic: "no/slash" is not an ntfy topic`,
			},
		},
		{
			name: "the Web Push sink's name",
			file: "[[notify.ntfy]]\ntopic = \"t\"\nname = \"webpush\"\n",
			want: []string{`3:1: notify.ntfy #1: name: "webpush" is the console's Web Push sink; choose another name`},
		},
		{
			name: "wrong type",
			file: "[[notify.webhook]]\nurl = \"https://h/\"\nsecret = \"" + secret + "\"\nkinds = \"permission\"\n",
			want: []string{`4:9: notify.webhook.kinds: want an array of strings, found`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := writeHome(t, c.file, 0o600)
			cfg, err := Load(home, builtIns...)
			if err == nil {
				t.Fatalf("Load = %+v, want an error", cfg)
			}
			lines := strings.Split(err.Error(), "\n")
			path := filepath.Join(home, "config.toml")
			if len(lines) != len(c.want) {
				t.Fatalf("error has %d lines, want %d:\n%v", len(lines), len(c.want), err)
			}
			for i, line := range lines {
				if want := path + ":" + c.want[i]; !strings.HasPrefix(line, want) {
					t.Errorf("error line %d:\n got %s\nwant %s", i+1, line, want)
				}
			}
			if c.hidden != "" && strings.Contains(err.Error(), c.hidden) {
				t.Errorf("error echoes a secret: %v", err)
			}
		})
	}
}

func TestNotifySecretsWarnWhenOthersCanRead(t *testing.T) {
	home := writeHome(t, "[[notify.ntfy]]\ntopic = \"t\"\ntoken = \"tk_x\"\n", 0o644)
	cfg, err := Load(home, builtIns...)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "holds notification secrets; run chmod 600") {
		t.Errorf("warnings %q", cfg.Warnings)
	}
}
