package attachments

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Limits of one turn's attachments.
const (
	// MaxPerTurn bounds a turn's attachments: more is a client's mistake
	// (and the models' own limits are near this: Anthropic takes 20
	// images a request from claude.ai, Codex 10 a turn).
	MaxPerTurn = 10
	// MaxTurnBytes bounds their bytes together: each is read into memory
	// to reach the CLI.
	MaxTurnBytes = 50 << 20
	// maxNameRunes bounds a name shown to the agent.
	maxNameRunes = 200
)

// Resolve checks a turn's attachments and makes them what an adapter
// takes: an upload by its id, inline data stored first (a file needs a
// path the agent can read). Errors are -32602 naming the field at fault.
func (s *Store) Resolve(list []rpc.Attachment) ([]runtimes.Attachment, error) {
	if len(list) > MaxPerTurn {
		return nil, rpc.InvalidParams("attachments", fmt.Sprintf("%d attachments; at most %d a turn", len(list), MaxPerTurn))
	}
	var out []runtimes.Attachment
	var total int64
	for i, a := range list {
		field := fmt.Sprintf("attachments[%d]", i)
		if a.Kind != rpc.AttachImage && a.Kind != rpc.AttachFile {
			return nil, rpc.InvalidParams(field+".kind", `must be "image" or "file"`)
		}
		var it Item
		var err error
		switch {
		case (a.ID == "") == (a.Data == ""):
			return nil, rpc.InvalidParams(field, "give either id (an upload) or data (base64), not both nor neither")
		case a.ID != "":
			if it, err = s.Get(a.ID); err != nil {
				return nil, rpc.InvalidParams(field+".id", err.Error())
			}
		default:
			if int64(base64.StdEncoding.DecodedLen(len(a.Data))) > s.cfg.MaxBytes+2 {
				return nil, rpc.InvalidParams(field+".data", fmt.Sprintf("too large: at most %d bytes (%d MiB)", s.cfg.MaxBytes, s.cfg.MaxBytes>>20))
			}
			dec := base64.NewDecoder(base64.StdEncoding, strings.NewReader(a.Data))
			it, err = s.Put(dec, a.Kind == rpc.AttachImage)
			if err != nil {
				return nil, rpc.InvalidParams(field+".data", putReason(err))
			}
		}
		if a.Kind == rpc.AttachImage && !it.Image() {
			return nil, rpc.InvalidParams(field+".kind", "the upload is not an image: attach it as a file")
		}
		if total += it.Size; total > MaxTurnBytes {
			return nil, rpc.InvalidParams("attachments", fmt.Sprintf("more than %d MiB together", MaxTurnBytes>>20))
		}
		att := runtimes.Attachment{Kind: a.Kind, MIMEType: it.MIMEType, Name: cleanName(a.Name), Path: it.Path}
		if a.Kind == rpc.AttachImage {
			if att.Data, err = os.ReadFile(it.Path); err != nil {
				return nil, rpc.InvalidParams(field+".id", ErrNotFound.Error())
			}
		}
		out = append(out, att)
	}
	return out, nil
}

// putReason says why Put refused inline data, in the client's terms.
func putReason(err error) string {
	var corrupt base64.CorruptInputError
	switch {
	case errors.As(err, &corrupt):
		return "not base64 (standard alphabet, padded): " + err.Error()
	case errors.Is(err, ErrEmpty):
		return "empty"
	}
	return err.Error()
}

// cleanName keeps a name fit to be shown to the agent inside a prompt:
// one line, printable, short. It is never used as a path.
func cleanName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '[' || r == ']' {
			return -1
		}
		return r
	}, name)
	if r := []rune(name); len(r) > maxNameRunes {
		name = string(r[:maxNameRunes])
	}
	return strings.TrimSpace(name)
}
