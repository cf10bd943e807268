package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// loginFix is how to make the CLI able to answer.
const loginFix = "set GEMINI_API_KEY (with security.auth.selectedType \"gemini-api-key\" in ~/.gemini/settings.json), " +
	"or run `gemini` once in a terminal and choose an auth type"

// checkLogin finds whether Gemini can answer from what the CLI itself reads
// (it has no status command): the auth type settings.json selects
// (security.auth.selectedType), and what that type needs: GEMINI_API_KEY
// in the environment or in ~/.gemini/.env or ~/.env, the Google login's
// oauth_creds.json, Vertex's key or project. No request is made. home is
// the CLI's ~/.gemini.
func checkLogin(env []string, home string) kit.LoginCheck {
	var settings struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
	}
	settingsFile := filepath.Join(home, "settings.json")
	if b, err := os.ReadFile(settingsFile); err == nil && json.Unmarshal(b, &settings) != nil {
		return kit.Unknown() // Gemini reads comments in it; not this parser
	}
	user := kit.Home(env)
	has := func(key string) bool {
		return kit.LookupEnv(env, key) != "" ||
			kit.DotEnv(filepath.Join(home, ".env"), key) != "" || kit.DotEnv(filepath.Join(user, ".env"), key) != ""
	}
	oauth := filepath.Join(home, "oauth_creds.json")
	changed, _ := kit.Newest(settingsFile, oauth, filepath.Join(home, ".env"), filepath.Join(user, ".env"))
	in := kit.LoginCheck{State: runtimes.LoggedIn, Changed: changed}
	out := func(why string) kit.LoginCheck {
		return kit.LoginCheck{State: runtimes.LoggedOut, Changed: changed, Reason: "gemini cannot answer: " + why}
	}
	switch t := settings.Security.Auth.SelectedType; t {
	case "gemini-api-key":
		if has("GEMINI_API_KEY") {
			return in
		}
		return out("~/.gemini/settings.json selects gemini-api-key but GEMINI_API_KEY is not set; set GEMINI_API_KEY " +
			"(in cdevd's environment or ~/.gemini/.env), or run `gemini` once in a terminal and choose another auth type")
	case "oauth-personal":
		if _, ok := kit.Newest(oauth); ok {
			return in
		}
		return out("~/.gemini/settings.json selects the Google login but " + oauth + " is missing; run `gemini` once in a terminal and sign in with Google")
	case "vertex-ai":
		if has("GOOGLE_API_KEY") || (has("GOOGLE_CLOUD_PROJECT") && has("GOOGLE_CLOUD_LOCATION")) {
			return in
		}
		return kit.Unknown() // application default credentials may do
	case "":
		// Without a selected type ACP picks one from the environment
		// (CLI-PROTOCOLS.md 2.1): which, is not known here.
		if _, ok := kit.Newest(oauth); ok || has("GEMINI_API_KEY") || has("GOOGLE_API_KEY") || has("GOOGLE_GENAI_USE_VERTEXAI") || has("GOOGLE_GENAI_USE_GCA") {
			return kit.Unknown()
		}
		return out("no auth type in ~/.gemini/settings.json and no GEMINI_API_KEY: " + loginFix)
	default:
		return kit.Unknown() // cloud-shell, compute-default-credentials, gateway, …
	}
}
