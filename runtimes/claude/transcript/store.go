package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Store reads the transcripts under one Claude projects directory
// (~/.claude/projects). It is safe for concurrent use.
type Store struct {
	projectsDir string
	log         *zap.Logger
}

var _ runtimes.Transcripts = (*Store)(nil)

// New returns a Store for projectsDir; a nil logger logs nothing.
func New(projectsDir string, logger *zap.Logger) *Store {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Store{projectsDir: projectsDir, log: logger}
}

// Dir is the folder holding dir's transcripts.
func (s *Store) Dir(dir string) string {
	return filepath.Join(s.projectsDir, EncodeDir(dir))
}

// Path is the transcript file of sessionID in dir.
func (s *Store) Path(dir, sessionID string) (string, error) {
	p, err := s.path(dir, sessionID)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("session %s: %w", sessionID, runtimes.ErrNoSession)
		}
		return "", err
	}
	return p, nil
}

// path validates sessionID and joins it to Dir(dir) without looking at disk.
func (s *Store) path(dir, sessionID string) (string, error) {
	if sessionID == "" || sessionID == "." || sessionID == ".." ||
		strings.ContainsAny(sessionID, `/\`) || strings.Contains(sessionID, "..") {
		return "", fmt.Errorf("invalid session id %q", sessionID)
	}
	return filepath.Join(s.Dir(dir), sessionID+".jsonl"), nil
}

// List returns every stored session of dir, newest first.
func (s *Store) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	return nil, errors.New("transcript: List not implemented yet")
}

// Messages returns a page of a transcript and the number of messages in it.
func (s *Store) Messages(ctx context.Context, dir, sessionID string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	return nil, 0, errors.New("transcript: Messages not implemented yet")
}

// Tail follows a transcript from its current end.
func (s *Store) Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error) {
	return nil, errors.New("transcript: Tail not implemented yet")
}
