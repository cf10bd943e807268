// Package config reads cdevd's configuration file, $CDEVD_HOME/config.toml.
//
// Today the file declares Agent Client Protocol agents that cdevd offers as
// runtimes next to its built-in ones:
//
//	[[acp_agent]]
//	id = "goose"                 # the agent_type clients send
//	name = "Goose"               # display name; default: the id
//	command = "goose"            # a name on PATH, an absolute path, or "~/..."
//	args = ["acp"]
//	env = { GOOSE_PROVIDER = "anthropic" }
//
// It also says where notifications go when an agent needs the user (the
// notify package builds the sinks; see docs/notifications.md):
//
//	[notify]
//	permission_wait = "60s"      # someone present has this long to answer
//	[[notify.webhook]]
//	url = "https://…"            # http or https only
//	secret = "…"                 # signs each body; 16 characters or more
//	kinds = ["permission"]       # default: every kind
//	[[notify.ntfy]]
//	topic = "…"                  # on https://ntfy.sh unless server says
//
// A missing file is an empty configuration. Anything else that is wrong is an
// error naming the file, the line and the key, because a typo silently
// ignored (say `comand`) would surface much later as an agent that does not
// start. Load does not look the command up: a declared agent whose command is
// missing is still declared, and the registry shows it disabled with the
// reason LookPath gives.
//
// The file names commands cdevd runs, so Load refuses one that another user
// owns or that group or others can write (the target's mode and owner when
// it is a link), with the chmod that fixes it, as the state directory and
// the token file are refused. It may hold secrets in env values, so it
// should be mode 0600; Load returns a warning when it is readable by others
// and declares env values.
// ACPAgent and Env print and log themselves with env values redacted.
//
// The TOML library is github.com/pelletier/go-toml/v2: its strict mode
// reports every unknown key with its line and column, and its parser exposes
// key positions, which the checks after decoding use to point at a line.
package config
