package gemini

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/runtimes"
)

// Offer asks Gemini what it offers. ACP says it only in a session, so one
// is made (session/new, no prompt, no model request) in a folder of
// cdevd's own, always the same one so that Gemini's project list gains one
// entry at most, and the chat file Gemini writes for it is removed after.
func (g *Adapter) Offer(ctx context.Context) (offer runtimes.Offer, err error) {
	defer func() {
		if err != nil { // the registry lists no models then, and refuses none
			g.log.Warn("gemini: could not ask the CLI what it offers", zap.Error(err))
		}
	}()
	dir, err := g.offerDir()
	if err != nil {
		return runtimes.Offer{}, fmt.Errorf("gemini: offer: %w", err)
	}
	offer, id, err := g.AskOffer(ctx, dir)
	if err != nil {
		return runtimes.Offer{}, err
	}
	if err := g.chats.Trash(ctx, dir, id, removeBin{}); err != nil && !errors.Is(err, runtimes.ErrNoSession) {
		g.log.Warn("gemini: could not remove the chat of the session that asked the offer", zap.String("dir", dir),
			zap.String("session", id), zap.Error(err))
	}
	return offer, nil
}

// offerDir is the folder the offer's session runs in: under the cache
// directory, else the system's temporary one; canonical, as the chat
// store keys sessions by it.
func (g *Adapter) offerDir() (string, error) {
	base := g.cacheDir
	if base == "" {
		base = filepath.Join(os.TempDir(), "cdevd-gemini")
	}
	dir := filepath.Join(base, "offer")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(dir)
}

// removeBin deletes what is put in it: the offer's chat holds nothing a
// user wrote.
type removeBin struct{}

func (removeBin) Put(path string) error { return os.Remove(path) }
