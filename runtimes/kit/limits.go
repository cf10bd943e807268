package kit

import (
	"encoding/json"
	"fmt"

	"github.com/cdevd/cdevd/rpc"
)

// MaxMessageText bounds the text one message carries: its text and
// thinking (and a tool result's text) together, as deltas and as the
// closing claude_message. An agent that answered one prompt with 200 MB
// had it repeated in one frame no client can read, and kept in memory for
// replay. 512 KiB is twice the longest answer a model writes in one
// message (64k output tokens, about 256 KB), and keeps the closing frame,
// JSON escaping included, under the 1 MiB a URLSession WebSocket (the iOS
// app's) reads by default.
//
// Beyond it the message is truncated, with a visible note, rather than the
// turn failed: what came is a valid answer whose tail no client could show
// anyway, the agent and its session are sound, and the user keeps the part
// that fits. (A single stdout line over the line limit is different: it
// cannot be parsed at all, so that turn fails with output_too_large.)
// ACP, Claude and Codex all truncate so, through Budget and CapMessage.
const MaxMessageText = 512 << 10

// TruncationNote ends text that was cut, saying how much is missing.
func TruncationNote(dropped int) string {
	return fmt.Sprintf("\n[… truncated %d bytes by cdevd]", dropped)
}

// Budget is what one message may still carry; streamed pieces take from it
// as they come. The zero value is spent: use NewBudget.
type Budget struct {
	left    int
	dropped int
}

// NewBudget is the budget of a new message: MaxMessageText.
func NewBudget() Budget { return Budget{left: MaxMessageText} }

// Take returns the part of s that still fits (whole characters), and
// counts the rest as dropped.
func (b *Budget) Take(s string) string {
	if len(s) <= b.left {
		b.left -= len(s)
		return s
	}
	kept := rpc.TruncateUTF8(s, b.left)
	b.left = 0 // a character cut short is not kept later either
	b.dropped += len(s) - len(kept)
	return kept
}

// Dropped is how many bytes did not fit.
func (b *Budget) Dropped() int { return b.dropped }

// CapMessage applies a new message's budget to m's text, thinking and
// tool-result text, in order; each block cut ends with TruncationNote. m's
// content is copied before it is changed.
func CapMessage(m rpc.Message) rpc.Message {
	b := NewBudget()
	var content []rpc.ContentBlock
	edit := func(i int) *rpc.ContentBlock {
		if content == nil {
			content = append([]rpc.ContentBlock(nil), m.Message.Content...)
		}
		return &content[i]
	}
	for i, c := range m.Message.Content {
		switch {
		case c.Text != "":
			if kept, cut := b.cap(c.Text); cut {
				edit(i).Text = kept
			}
		case c.Thinking != "":
			if kept, cut := b.cap(c.Thinking); cut {
				edit(i).Thinking = kept
			}
		case len(c.Content) > MaxMessageText/4 && c.Content[0] == '"':
			// Only a big one is decoded; an array of blocks is left as is
			// (the line limit bounds it).
			var s string
			if json.Unmarshal(c.Content, &s) != nil {
				continue
			}
			if kept, cut := b.cap(s); cut {
				edit(i).Content, _ = json.Marshal(kept)
			}
		case len(c.Content) > 0:
			b.left = max(b.left-len(c.Content), 0)
		}
	}
	if content != nil {
		m.Message.Content = content
	}
	return m
}

// cap is Take of a whole block, with the note when it was cut.
func (b *Budget) cap(s string) (string, bool) {
	before := b.dropped
	kept := b.Take(s)
	if b.dropped == before {
		return s, false
	}
	return kept + TruncationNote(b.dropped-before), true
}
