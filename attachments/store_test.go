package attachments

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pngBytes is a real PNG of w×h pixels, varied so that it does not
// compress to nothing.
func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i*7 + i/13)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifBytes(t testing.TB) []byte {
	var b bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White})
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpBytes is a WebP file's header as browsers sniff it (RIFF, size,
// WEBPVP8): Go cannot encode WebP, and the type is decided by these bytes.
func webpBytes() []byte {
	return append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00"), make([]byte, 24)...)
}

// clock is a settable time for expiry tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openStore(t *testing.T, cfg Config) *Store {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "attachments")
	}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestPutSniffsTheTypeAndKeepsTheFilePrivate(t *testing.T) {
	s := openStore(t, Config{})
	for _, c := range []struct {
		name, mime, ext string
		data            []byte
	}{
		{"png", "image/png", ".png", pngBytes(t, 16, 16)},
		{"jpeg", "image/jpeg", ".jpg", jpegBytes(t)},
		{"gif", "image/gif", ".gif", gifBytes(t)},
		{"webp", "image/webp", ".webp", webpBytes()},
	} {
		t.Run(c.name, func(t *testing.T) {
			it, err := s.Put(bytes.NewReader(c.data), true)
			if err != nil {
				t.Fatal(err)
			}
			if it.MIMEType != c.mime || filepath.Ext(it.Path) != c.ext || it.Size != int64(len(c.data)) {
				t.Fatalf("item %+v, want %s %s of %d bytes", it, c.mime, c.ext, len(c.data))
			}
			if filepath.Dir(it.Path) != s.Dir() || filepath.Base(it.Path) != it.ID+c.ext {
				t.Fatalf("path %s is not %s/<id>%s", it.Path, s.Dir(), c.ext)
			}
			got, err := os.ReadFile(it.Path)
			if err != nil || !bytes.Equal(got, c.data) {
				t.Fatalf("stored bytes differ (%v)", err)
			}
			fi, _ := os.Stat(it.Path)
			if fi.Mode().Perm() != 0o600 {
				t.Fatalf("file mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
	di, _ := os.Stat(s.Dir())
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v, want 0700", di.Mode().Perm())
	}
}

func TestOpenTightensAnExistingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "attachments")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	openStore(t, Config{Dir: dir})
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v, want 0700", di.Mode().Perm())
	}
}

func TestPutRefusesWhatIsNotAnImage(t *testing.T) {
	s := openStore(t, Config{})
	// A text file named and announced as a PNG is still text.
	_, err := s.Put(strings.NewReader("definitely not a png, whatever the name says"), true)
	if !errors.Is(err, ErrNotImage) || !strings.Contains(err.Error(), "text/plain") {
		t.Fatalf("err %v, want ErrNotImage naming text/plain", err)
	}
	if _, err := s.Put(strings.NewReader(""), true); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty: err %v, want ErrEmpty", err)
	}
	// As a file it is accepted, with the type its bytes say.
	it, err := s.Put(strings.NewReader("a,b\n1,2\n"), false)
	if err != nil || it.MIMEType != "text/plain" || filepath.Ext(it.Path) != ".txt" {
		t.Fatalf("file: %+v, %v", it, err)
	}
	assertNoLeftovers(t, s, 1)
}

func TestPutRefusesMoreThanMaxBytes(t *testing.T) {
	s := openStore(t, Config{MaxBytes: 1 << 10})
	big := append(pngBytes(t, 4, 4), make([]byte, 2<<10)...)
	if _, err := s.Put(bytes.NewReader(big), true); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	exact := append(pngBytes(t, 4, 4), make([]byte, 1<<10)...)[:1<<10]
	if _, err := s.Put(bytes.NewReader(exact), true); err != nil {
		t.Fatalf("exactly MaxBytes: %v", err)
	}
	assertNoLeftovers(t, s, 1)
}

// assertNoLeftovers checks that the folder holds want items and no
// temporary file a refused Put began.
func assertNoLeftovers(t *testing.T, s *Store, want int) {
	t.Helper()
	entries, _ := os.ReadDir(s.Dir())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != want {
		t.Fatalf("folder holds %v, want %d items", names, want)
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			t.Fatalf("temporary file %s left behind", n)
		}
	}
}

func TestGetFindsOnlyLiveItemsByTheirID(t *testing.T) {
	c := &clock{t: time.Now()}
	s := openStore(t, Config{TTL: time.Hour, Now: c.now})
	it, err := s.Put(bytes.NewReader(pngBytes(t, 2, 2)), true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(it.ID)
	if err != nil || got.Path != it.Path || got.MIMEType != "image/png" || got.Size != it.Size ||
		!got.ExpiresAt.Equal(it.ExpiresAt.Truncate(time.Second)) && got.ExpiresAt.Sub(it.ExpiresAt).Abs() > time.Second {
		t.Fatalf("Get %+v, %v; put %+v", got, err, it)
	}
	for _, id := range []string{"", "att_", "../" + it.ID, it.ID + "/..", "att_" + strings.Repeat("0", 32), "*", it.ID[:10] + "*"} {
		if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", id, err)
		}
	}
	c.add(time.Hour + time.Second)
	if _, err := s.Get(it.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired: %v, want ErrNotFound", err)
	}
}

func TestSweepRemovesExpiredItems(t *testing.T) {
	c := &clock{t: time.Now()}
	s := openStore(t, Config{TTL: time.Hour, Now: c.now})
	old, _ := s.Put(bytes.NewReader(pngBytes(t, 2, 2)), true)
	c.add(30 * time.Minute)
	young, _ := s.Put(bytes.NewReader(pngBytes(t, 3, 3)), true)
	c.add(31 * time.Minute)
	s.Sweep()
	if _, err := os.Stat(old.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the expired item is still there (%v)", err)
	}
	if _, err := os.Stat(young.Path); err != nil {
		t.Fatalf("the live item was removed: %v", err)
	}
}

// The sweeper runs on its own, and Close ends it (TestMain's goleak checks
// that it is gone).
func TestSweeperRunsUntilClose(t *testing.T) {
	c := &clock{t: time.Now()}
	rounds := make(chan struct{}, 1)
	s := openStore(t, Config{TTL: time.Hour, Now: c.now, SweepEvery: 5 * time.Millisecond,
		swept: func() {
			select {
			case rounds <- struct{}{}:
			default:
			}
		}})
	it, _ := s.Put(bytes.NewReader(pngBytes(t, 2, 2)), true)
	c.add(2 * time.Hour)
	// A round that began before the clock moved may have kept it: the
	// second round after the move has seen it.
	for range 2 {
		select {
		case <-rounds:
		case <-time.After(10 * time.Second):
			t.Fatal("the sweeper did not run")
		}
	}
	if _, err := os.Stat(it.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sweeper left the expired item (%v)", err)
	}
	s.Close()
	s.Close() // twice is fine
}
