package bench

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// warmup is how many untimed round trips come before the timed ones.
const warmup = 20

// interleaved times n round trips of a cdevd call and of the echo of the
// same bytes, alternating, so that a burst of load on the machine lands on
// both; it returns both p50s in seconds.
func (b *Bench) interleaved(ctx context.Context, c *conn, frame []byte, n int) (sample, error) {
	reply, _, err := c.roundTrip(frame)
	if err != nil {
		return sample{}, err
	}
	e, err := echoConn(ctx, b.echo, len(reply))
	if err != nil {
		return sample{}, err
	}
	defer e.close()
	var cd, ed []time.Duration
	for i := range warmup + n {
		_, d1, err := c.roundTrip(frame)
		if err != nil {
			return sample{}, err
		}
		_, d2, err := e.roundTrip(frame)
		if err != nil {
			return sample{}, err
		}
		if i >= warmup {
			cd, ed = append(cd, d1), append(ed, d2)
		}
	}
	return sample{value: percentile(cd, 0.5).Seconds(), base: percentile(ed, 0.5).Seconds()}, nil
}

// list: workspace/list with one workspace, a cheap method.
func (b *Bench) list(ctx context.Context) (sample, error) {
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	if _, err := b.mainWorkspace(c); err != nil {
		return sample{}, err
	}
	return b.interleaved(ctx, c, c.frame(rpc.MethodWorkspaceList, struct{}{}), b.sz.listCalls)
}

// initialize: the first call of a fresh connection (the dial is not timed).
func (b *Bench) initialize(ctx context.Context) (sample, error) {
	probe, err := dial(ctx, b.serve.url, b.serve.token, false)
	if err != nil {
		return sample{}, err
	}
	frame := probe.frame(rpc.MethodInitialize, initializeParams)
	reply, _, err := probe.roundTrip(frame)
	probe.close()
	if err != nil {
		return sample{}, err
	}
	e, err := echoConn(ctx, b.echo, len(reply))
	if err != nil {
		return sample{}, err
	}
	defer e.close()
	var cd, ed []time.Duration
	for i := range warmup + b.sz.initCalls {
		c, err := dial(ctx, b.serve.url, b.serve.token, false)
		if err != nil {
			return sample{}, err
		}
		_, d1, err := c.roundTrip(frame)
		c.close()
		if err != nil {
			return sample{}, err
		}
		_, d2, err := e.roundTrip(frame)
		if err != nil {
			return sample{}, err
		}
		if i >= warmup {
			cd, ed = append(cd, d1), append(ed, d2)
		}
	}
	return sample{value: percentile(cd, 0.5).Seconds(), base: percentile(ed, 0.5).Seconds()}, nil
}

// memory: RSS of a fresh cdevd serve process before and after opening
// idleConns initialized connections, per connection; the same for a fresh
// bare echo server. Each repetition uses new processes, so that what an
// earlier one left in the heap does not hide the cost.
func (b *Bench) memory(ctx context.Context) (s sample, err error) {
	b.fix.memRuns++
	dir := b.path("memory-" + strconv.Itoa(b.fix.memRuns))
	// The CLIs' offers the main daemon kept: asking every CLI again would
	// only make the warm-up connection wait, and is not what is measured.
	if err := copyDir(b.path("cdevd", "offers"), filepath.Join(dir, "cdevd", "offers")); err != nil {
		return s, err
	}
	serve, err := b.startServe(filepath.Join(dir, "home"), filepath.Join(dir, "cdevd"))
	if err != nil {
		return s, err
	}
	defer func() { err = errors.Join(err, serve.stop()) }()
	echo, err := b.startEcho()
	if err != nil {
		return s, err
	}
	defer func() { err = errors.Join(err, echo.stop()) }()

	// perConn opens the connections, each through open, and returns the
	// growth of p's RSS per connection; the first connection (which warms
	// up the registry, the detection, buffers) is not counted.
	perConn := func(p *proc, open func() (*conn, error)) (float64, error) {
		warm, err := open()
		if err != nil {
			return 0, err
		}
		warm.close()
		before, err := p.rss()
		if err != nil {
			return 0, err
		}
		conns := make([]*conn, 0, b.sz.idleConns)
		defer func() {
			for _, c := range conns {
				c.close()
			}
		}()
		for range b.sz.idleConns {
			c, err := open()
			if err != nil {
				return 0, err
			}
			conns = append(conns, c)
		}
		after, err := p.rss()
		return float64(after-before) / float64(b.sz.idleConns), err
	}
	var replySize int
	s.value, err = perConn(serve, func() (*conn, error) {
		c, err := dial(ctx, serve.url, serve.token, false)
		if err != nil {
			return nil, err
		}
		reply, _, err := c.roundTrip(c.frame(rpc.MethodInitialize, initializeParams))
		replySize = len(reply)
		return c, err
	})
	if err != nil {
		return s, err
	}
	s.base, err = perConn(echo, func() (*conn, error) {
		c, err := echoConn(ctx, echo, replySize)
		if err != nil {
			return nil, err
		}
		_, _, err = c.roundTrip(c.frame(rpc.MethodInitialize, initializeParams))
		return c, err
	})
	return s, err
}

// copyDir copies the files of from (if it exists) into a new folder to,
// private as cdevd keeps its state.
func copyDir(from, to string) error {
	entries, err := os.ReadDir(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}
