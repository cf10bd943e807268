package codex

import (
	"slices"
	"testing"
)

func TestOfferOf(t *testing.T) {
	listed := []listedModel{
		{ID: "a", Model: "a", DisplayName: "A", IsDefault: true, DefaultReasoningEffort: "low",
			SupportedReasoningEfforts: []listedEffort{{"low"}, {"high"}}},
		{ID: "b", Model: "b-full", DisplayName: "B", DefaultReasoningEffort: "medium"},
	}

	// No config: the list's default model and its default effort.
	o := offerOf(listed, "", "")
	if o.DefaultModel != "a" || o.DefaultEffort != "low" || !slices.Equal(o.Models[0].Efforts, []string{"low", "high"}) {
		t.Errorf("offer %+v", o)
	}
	if m, ok := o.Find("b-full"); !ok || m.ID != "b" {
		t.Errorf("b's model name does not find it: %+v", o.Models)
	}
	// config.toml's model and effort win; a configured model the list
	// lacks is offered (a thread runs it).
	o = offerOf(listed, "b", "high")
	if o.DefaultModel != "b" || o.DefaultEffort != "high" {
		t.Errorf("configured: %+v", o)
	}
	o = offerOf(listed, "custom", "")
	if m, ok := o.Find("custom"); !ok || len(m.Efforts) != 0 || o.DefaultModel != "custom" || o.DefaultEffort != "" {
		t.Errorf("an unlisted configured model: %+v", o)
	}
}
