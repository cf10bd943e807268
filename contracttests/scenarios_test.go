package contracttests

import (
	"strings"
	"testing"
	"time"
)

// The scenario suite: the same named scenarios, run over the WebSocket as a
// client would, against every runtime of scenarioRuntimes (the real CLIs
// against their fake model APIs; a missing CLI fails, never skips). Each
// runtime gets one cdevd, one fake API and one CLI home; its scenarios run
// in order, the first three on one conversation, and the last checks that
// the registry record advertises what the others proved.

// suiteModel is the model every runtime's fake plays. The prompts are the
// scenarios' data: "run: CMD" calls the shell tool, "ask: color" asks a
// question, "slow: …" streams slowly; a tool's result is quoted back, and
// anything else is echoed.
func suiteModel(prompt string, toolResult *string) move {
	if toolResult != nil {
		return move{text: "tool said: " + *toolResult}
	}
	if cmd, ok := strings.CutPrefix(prompt, "run: "); ok {
		return move{run: cmd}
	}
	if prompt == "ask: color" {
		return move{ask: &askQuestion{question: "Which color?", header: "Color", options: []string{"red", "blue"}}}
	}
	if strings.HasPrefix(prompt, "slow: ") {
		// Long enough that the interrupt always lands mid-stream (10 s).
		return move{text: strings.Repeat("tick ", 200), delay: 50 * time.Millisecond}
	}
	return move{text: "echo: " + prompt}
}

// scenario is one named case, run for every runtime.
type scenario struct {
	name string
	run  func(t *testing.T, r *scenarioRig)
}

// Names the registry scenario refers to.
const (
	scTextTurn    = "text turn"
	scSecondTurn  = "second turn in the same process"
	scResume      = "resume after killing the process group"
	scPermissions = "permission allowed, denied, always"
	scQuestion    = "question"
	scInterrupt   = "interrupt mid-stream"
	scSteer       = "steer mid-turn"
	scStopPending = "stop while a permission is pending"
	scReadWrites  = "read your writes"
	scOutside     = "watch a session run outside cdevd"
	scIDs         = "client-chosen id for a new session"
	scAppPage     = "the iOS app's transcript page"
	scConfigure   = "configure model and effort"
	scTurnDiff    = "a turn's diff and its revert"
	scAttachments = "an image and a file attached"
	scRegistry    = "registry record"
)

var scenarios = []scenario{
	{scTextTurn, scenarioTextTurn},
	{scSecondTurn, scenarioSecondTurn},
	{scResume, scenarioResume},
	{scPermissions, scenarioPermissions},
	{scQuestion, scenarioQuestion},
	{scInterrupt, scenarioInterrupt},
	{scSteer, scenarioSteer},
	{scStopPending, scenarioStopPending},
	{scReadWrites, scenarioReadYourWrites},
	{scOutside, scenarioOutside},
	{scIDs, scenarioIDs},
	{scAppPage, scenarioAppPage},
	{scConfigure, scenarioConfigure},
	{scTurnDiff, scenarioTurnDiff},
	{scAttachments, scenarioAttachments},
	{scRegistry, scenarioRegistry},
}

func TestScenarios(t *testing.T) {
	if _, _, ok := external(); ok {
		t.Skipf("needs cdevd in process with fake model APIs; %s targets an external server", envURL)
	}
	for _, rt := range scenarioRuntimes {
		t.Run(rt.id, func(t *testing.T) {
			began := time.Now()
			r := newScenarioRig(t, rt)
			for _, s := range scenarios {
				t.Run(s.name, func(t *testing.T) {
					defer func() { r.proved[s.name] = !t.Failed() && !t.Skipped() }()
					s.run(t, r)
				})
			}
			t.Logf("measured: %s scenarios took %v", rt.id, time.Since(began).Round(time.Millisecond))
		})
	}
}
