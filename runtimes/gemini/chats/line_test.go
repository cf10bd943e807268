package chats

import "testing"

// TestReplaySkipsBrokenList: a $set whose message list is found amiss
// only part way (its lines are not validated before they are read) is
// skipped whole, header and records, as the reference replay skips it: the
// records before it stay, none of the list's is taken.
func TestReplaySkipsBrokenList(t *testing.T) {
	content := []byte(`{"sessionId":"s","projectHash":"p","startTime":"2026-11-23T00:00:00.000Z"}
{"id":"u-1","type":"user","content":[{"text":"kept"}]}
{"$set":{"lastUpdated":"2026-11-24T00:00:00.000Z","messages":[{"id":"x","type":"user","content":"lost"},{"id":"y","type":"user",]}]}}
{"$set":{"messages":[{"id":"z","type":"user","content":"lost"},{"id":"w","type":"user","content":[{"text":"a"},tru]}]}}
{"id":"u-2","type":"user","content":[{"text":"after"}]}
`)
	for cut := 0; cut <= len(content); cut += 17 {
		checkReplay(t, content, cut)
	}
	_, v := indexView(t, writeTemp(t, content), nil)
	if len(v.all()) != 2 || v.prompt != "kept" || v.header.LastUpdated != "" {
		t.Fatalf("%d messages, prompt %q, header %+v: want u-1 and u-2, no update", len(v.all()), v.prompt, v.header)
	}
}
