package attachments

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Defaults of Config.
const (
	// DefaultTTL is how long an item is kept: long enough for a prompt
	// written slowly on a phone, and for the agent to read a file again
	// later in the same conversation.
	DefaultTTL = 24 * time.Hour
	// DefaultMaxBytes bounds one item. The models' own limits are lower
	// for images (Anthropic's is 5 MB); a screenshot of a large display is
	// a few MB.
	DefaultMaxBytes = 20 << 20
	// DefaultSweepEvery is how often expired items are looked for.
	DefaultSweepEvery = 10 * time.Minute
)

// Config configures a Store.
type Config struct {
	Dir        string        // $CDEVD_HOME/attachments
	TTL        time.Duration // DefaultTTL when zero
	MaxBytes   int64         // DefaultMaxBytes when zero
	SweepEvery time.Duration // DefaultSweepEvery when zero
	Now        func() time.Time
	Logger     *zap.Logger

	// swept, when set (by tests), is called after each of the sweeper's
	// rounds.
	swept func()
}

// Item is one stored attachment.
type Item struct {
	ID        string
	Path      string
	MIMEType  string
	Size      int64
	ExpiresAt time.Time
}

// Image reports whether the item's bytes are an image a model takes.
func (it Item) Image() bool { return imageExt[it.MIMEType] != "" }

// Errors of Put and Get; the HTTP handler and the resolver turn them into
// their statuses and codes.
var (
	ErrNotImage = errors.New("not an image cdevd accepts: send PNG, JPEG, GIF or WebP")
	ErrTooLarge = errors.New("too large")
	ErrEmpty    = errors.New("empty")
	ErrNotFound = errors.New("no attachment with this id (it expired, or was never uploaded)")
)

// imageExt are the image types models take, by their sniffed MIME type,
// and the extension their file gets (the agent's tools go by it).
var imageExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// fileExt are the extensions of other sniffed types; anything else is .bin.
var fileExt = map[string]string{"text/plain": ".txt", "application/pdf": ".pdf", "application/zip": ".zip",
	"text/html": ".html", "text/xml": ".xml", "application/json": ".json"}

// idPattern is an id as Put draws it; Get refuses anything else before
// touching the file system.
var idPattern = regexp.MustCompile(`^att_[0-9a-f]{32}$`)

// Store is the attachments folder and its sweeper.
type Store struct {
	cfg  Config
	log  *zap.Logger
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// Open makes the folder (private: 0700, tightened if it exists) and starts
// the sweeper, which Close ends.
func Open(cfg Config) (*Store, error) {
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.SweepEvery == 0 {
		cfg.SweepEvery = DefaultSweepEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	// MkdirAll keeps an existing folder's mode; others must not list
	// what the user attached.
	if err := os.Chmod(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, log: cfg.Logger, stop: make(chan struct{})}
	s.Sweep()
	s.wg.Add(1)
	go s.sweeper()
	return s, nil
}

// Dir is the folder items are kept in.
func (s *Store) Dir() string { return s.cfg.Dir }

// MaxBytes is the most one item may hold.
func (s *Store) MaxBytes() int64 { return s.cfg.MaxBytes }

// Close stops the sweeper and waits for it. Items stay on disk: the next
// run's sweeper removes them when they expire.
func (s *Store) Close() {
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
}

func (s *Store) sweeper() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.Sweep()
			if s.cfg.swept != nil {
				s.cfg.swept()
			}
		}
	}
}

// Sweep removes every expired item, and temporary files an interrupted
// Put left behind.
func (s *Store) Sweep() {
	entries, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		s.log.Warn("attachments: cannot list the folder", zap.Error(err))
		return
	}
	now := s.cfg.Now()
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if now.Before(fi.ModTime().Add(s.cfg.TTL)) {
			continue
		}
		if err := os.Remove(filepath.Join(s.cfg.Dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("attachments: cannot remove an expired item", zap.String("name", e.Name()), zap.Error(err))
		}
	}
}

// Put stores what r holds (at most MaxBytes): an image, or with
// imageOnly false any bytes. The type is sniffed from the bytes.
func (s *Store) Put(r io.Reader, imageOnly bool) (Item, error) {
	// The first 512 bytes decide the type (what http.DetectContentType
	// reads) before anything is written.
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Item{}, err
	}
	head = head[:n]
	if n == 0 {
		return Item{}, ErrEmpty
	}
	mimeType, _, _ := strings.Cut(http.DetectContentType(head), ";")
	ext := imageExt[mimeType]
	switch {
	case ext != "":
	case imageOnly:
		return Item{}, fmt.Errorf("%w (the bytes are %s)", ErrNotImage, mimeType)
	default:
		if ext = fileExt[mimeType]; ext == "" {
			ext = ".bin"
		}
	}
	id, err := newID()
	if err != nil {
		return Item{}, err
	}
	tmp, err := os.CreateTemp(s.cfg.Dir, ".put-*")
	if err != nil {
		return Item{}, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	// CreateTemp makes it 0600 already; said again because the agent's
	// neighbours must never read it, whatever the umask.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return Item{}, err
	}
	size, err := io.Copy(tmp, io.LimitReader(io.MultiReader(bytes.NewReader(head), r), s.cfg.MaxBytes+1))
	if err == nil && size > s.cfg.MaxBytes {
		err = fmt.Errorf("%w: at most %d bytes", ErrTooLarge, s.cfg.MaxBytes)
	}
	if err != nil {
		tmp.Close()
		return Item{}, err
	}
	if err := tmp.Close(); err != nil {
		return Item{}, err
	}
	path := filepath.Join(s.cfg.Dir, id+ext)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return Item{}, err
	}
	// The expiry counts from now, not from when the client began sending.
	now := s.cfg.Now()
	_ = os.Chtimes(path, now, now)
	return Item{ID: id, Path: path, MIMEType: mimeType, Size: size, ExpiresAt: now.Add(s.cfg.TTL)}, nil
}

// Get finds an item that has not expired.
func (s *Store) Get(id string) (Item, error) {
	if !idPattern.MatchString(id) {
		return Item{}, ErrNotFound
	}
	matches, _ := filepath.Glob(filepath.Join(s.cfg.Dir, id+".*"))
	for _, path := range matches {
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		expires := fi.ModTime().Add(s.cfg.TTL)
		if !s.cfg.Now().Before(expires) {
			return Item{}, ErrNotFound
		}
		return Item{ID: id, Path: path, MIMEType: typeOfExt(filepath.Ext(path)), Size: fi.Size(), ExpiresAt: expires}, nil
	}
	return Item{}, ErrNotFound
}

// typeOfExt is the sniffed type an extension was given for.
func typeOfExt(ext string) string {
	for t, e := range imageExt {
		if e == ext {
			return t
		}
	}
	for t, e := range fileExt {
		if e == ext {
			return t
		}
	}
	return "application/octet-stream"
}

func newID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "att_" + hex.EncodeToString(b), nil
}
