// Package notify tells the user when an agent needs them: a permission
// request, a question, a finished turn, a failed or crashed turn, a stalled
// session. It observes the sessions engine's events (sessions.Observer),
// decides what is worth a notification and whether someone is already
// looking (Presence), and hands each notification to the sinks that want
// its kind: a signed webhook, an ntfy topic.
//
// One notification is sent per pending request, never per message, and it
// is withdrawn, where the channel allows it, once the request is answered
// or cancelled. A slow or dead sink never slows a session: the engine only
// drops the event into a bounded inbox, and each sink has its own bounded,
// coalescing queue and its own goroutine.
package notify
