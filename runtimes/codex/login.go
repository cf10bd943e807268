package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

// loginFix is how to make the CLI able to answer with OpenAI.
const loginFix = "run `codex login` in a terminal (or `printenv OPENAI_API_KEY | codex login --with-api-key`)"

// localProviders are Codex's built-in providers that need no key.
var localProviders = map[string]bool{"oss": true, "ollama": true, "lmstudio": true}

// codexConfig is the part of config.toml that decides how Codex
// authenticates: the model provider, and the variable its key is read from.
type codexConfig struct {
	ModelProvider  string                   `toml:"model_provider"`
	Profile        string                   `toml:"profile"`
	Profiles       map[string]codexProfile  `toml:"profiles"`
	ModelProviders map[string]codexProvider `toml:"model_providers"`
}

type codexProfile struct {
	ModelProvider string `toml:"model_provider"`
}

type codexProvider struct {
	EnvKey             string `toml:"env_key"`
	RequiresOpenAIAuth bool   `toml:"requires_openai_auth"`
}

// checkLogin finds whether Codex can answer, by its own means: a model
// provider of config.toml other than OpenAI's answers with the key its
// env_key names (or none); OpenAI's needs a login, which `codex login
// status` reports (exit 0: logged in, from $CODEX_HOME/auth.json). Neither
// sends a model request.
func (a *Adapter) checkLogin(ctx context.Context, path string) kit.LoginCheck {
	changed, _ := kit.Newest(filepath.Join(a.cfg.Home, "auth.json"))
	var cfg codexConfig
	if b, err := os.ReadFile(filepath.Join(a.cfg.Home, "config.toml")); err == nil {
		if toml.NewDecoder(bytes.NewReader(b)).Decode(&cfg) != nil {
			return kit.Unknown() // Codex will say what is wrong with it
		}
	}
	provider := cfg.ModelProvider
	if p, ok := cfg.Profiles[cfg.Profile]; ok && cfg.Profile != "" && p.ModelProvider != "" {
		provider = p.ModelProvider
	}
	if provider != "" && provider != "openai" {
		p, ok := cfg.ModelProviders[provider]
		switch {
		case !ok && localProviders[provider]:
			return kit.LoginCheck{State: runtimes.LoggedIn}
		case !ok:
			return kit.Unknown()
		case p.RequiresOpenAIAuth:
			// a provider that takes OpenAI's login: as below
		case p.EnvKey == "":
			return kit.LoginCheck{State: runtimes.LoggedIn} // it sends no key
		case kit.LookupEnv(a.cfg.Env, p.EnvKey) != "":
			return kit.LoginCheck{State: runtimes.LoggedIn}
		default:
			return kit.LoginCheck{State: runtimes.LoggedOut, Reason: fmt.Sprintf(
				"codex cannot answer: model provider %q of %s reads its key from %s, which is not set in cdevd's environment; set %s",
				provider, filepath.Join(a.cfg.Home, "config.toml"), p.EnvKey, p.EnvKey)}
		}
	}
	code, out, errOut, err := kit.Status(ctx, path, a.cfg.Env, "login", "status")
	switch {
	case err != nil:
		return kit.Unknown()
	case code == 0:
		return kit.LoginCheck{State: runtimes.LoggedIn, Changed: changed}
	case !bytes.Contains(out, []byte("Not logged in")) && !bytes.Contains(errOut, []byte("Not logged in")):
		return kit.Unknown() // it failed for another reason (its config, say)
	case kit.LookupEnv(a.cfg.Env, "OPENAI_API_KEY") != "" || kit.LookupEnv(a.cfg.Env, "CODEX_API_KEY") != "":
		// Whether this CLI takes a key from the environment without a
		// login depends on how it is run: not known, so not a no.
		return kit.Unknown()
	}
	return kit.LoginCheck{State: runtimes.LoggedOut, Changed: changed,
		Reason: "codex is not logged in (`codex login status`): " + loginFix}
}
