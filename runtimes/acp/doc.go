// Package acp will be cdevd's generic runtime for agents that speak the
// Agent Client Protocol over stdio (gemini --acp first, then any agent a
// user declares). Its wire types and connection come from
// github.com/coder/acp-go-sdk, generated from ACP's published schema; the
// tests here pin the reasons against the real Gemini CLI before the adapter
// is built on it: the agent's request id 0 is answered, session/update
// notifications reach the client in order and before the reply they
// precede, and a permission request can wait for a person.
package acp
