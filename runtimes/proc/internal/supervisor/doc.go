// Package supervisor is the process between cdevd and each CLI it runs on
// Linux; package proc starts it. It is what makes "nothing cdevd started
// outlives it" hold. A SIGKILLed daemon runs no code, and Pdeathsig
// reaches only its direct child, so something that survives the daemon
// must end the rest: a small process per session, sitting between the
// daemon and the CLI.
//
//   - It is a child subreaper (PR_SET_CHILD_SUBREAPER): every descendant of
//     the CLI that is orphaned, even one that double-forked and setsid()ed
//     out of the process group, is reparented to it rather than to init, so
//     the tree can always be found from it and waited for.
//   - It reads a control pipe whose only write end the daemon holds. EOF
//     comes when the daemon dies, however it dies, or closes it on purpose
//     (a forced stop): the supervisor then SIGKILLs every descendant.
//   - When the CLI exits on its own, it kills whatever the CLI left, the
//     same way, and exits as the CLI did (same code, or the same signal), so
//     the daemon sees the CLI's status.
//   - It is the process group leader the daemon made; the CLI stays in that
//     group, so a signal to the group reaches the CLI as before. The
//     supervisor catches SIGTERM, SIGINT and SIGHUP (caught, not ignored:
//     an ignored disposition would survive exec into the CLI) and lets the
//     CLI decide; it leaves only when the CLI is gone.
//
// Why not a cgroup: creating one needs a delegated cgroup v2 subtree (not
// there in most containers, nor for a plain user process), and a cgroup
// still needs a live process to kill it after the daemon's death. Why not a
// subreaper in the daemon alone: orphans would come back to the daemon, but
// when the daemon itself is SIGKILLed they go to init and nothing kills
// them. One supervisor per session rather than one per daemon: it must be
// an ancestor of the CLI to be its subreaper, and spawning through a single
// long-lived helper would need a protocol to pass the stdio pipes along.
//
// The supervisor is the daemon's binary itself, re-executed with Arg0 as
// its argv[0]; the init of this package, which every binary that spawns
// CLIs imports through proc, turns it into one before main or TestMain
// runs. On other systems there is no supervisor, and this package is empty.
package supervisor
