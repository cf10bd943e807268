// Package adaptertest is the conformance suite for runtimes.Adapter: the
// contract written in the runtimes package's doc comments, checked the same
// way for every adapter, like net/http/httptest is for handlers.
//
// An adapter's package calls Run from a test with a Harness: how to make a
// fresh adapter (for a real CLI: against its fake model API, in a hermetic
// HOME), and which prompts make its CLI answer with text, stream slowly, ask
// for a permission or ask a question:
//
//	func TestConformance(t *testing.T) {
//		adaptertest.Run(t, adaptertest.Harness{
//			New:  func(t *testing.T) adaptertest.Env { … },
//			Text: "hello", Slow: "slow", Permission: "RUN touch x",
//		})
//	}
//
// Each check is a subtest named after the rule it checks (Info, Detect,
// PermissionModes, NewSessionID, ResumeUnknown, Turns, Busy, CloseDuringTurn,
// Permission, Question), so a failure names the broken rule.
package adaptertest
