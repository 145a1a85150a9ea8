package stdio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// gateWriter is an io.Writer whose writes wait for the test: each write is
// announced on started and proceeds when release is received from; it
// records every write and fails with err once set.
type gateWriter struct {
	started chan []byte
	release chan error
	mu      sync.Mutex
	writes  []string
}

func newGateWriter() *gateWriter {
	return &gateWriter{started: make(chan []byte), release: make(chan error)}
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.started <- p
	if err := <-g.release; err != nil {
		return 0, err
	}
	g.mu.Lock()
	g.writes = append(g.writes, string(p))
	g.mu.Unlock()
	return len(p), nil
}

func (g *gateWriter) all() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.writes...)
}

// TestPostCoalesces: messages posted while a write is under way do not wait
// for it and go out together in the next write, in the order posted.
func TestPostCoalesces(t *testing.T) {
	g := newGateWriter()
	s := stdio.NewStream(strings.NewReader(""), g, stdio.Options{})
	first := make(chan error, 1)
	go func() { first <- s.PostMessage([]byte(`1`)) }()
	if got := string(<-g.started); got != "1\n" {
		t.Fatalf("first write %q", got)
	}
	// The first write is under way: these return without waiting for it.
	for _, m := range []string{`2`, `3`, `4`} {
		if err := s.PostMessage([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	g.release <- nil
	if got := string(<-g.started); got != "2\n3\n4\n" {
		t.Fatalf("second write %q, want the three posted during the first", got)
	}
	g.release <- nil
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// Flush with nothing pending writes nothing.
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := g.all(); len(got) != 2 {
		t.Errorf("writes %q", got)
	}
}

// TestWriteWaitsForItsWrite: WriteMessage returns only once its message is
// written, also when another goroutine's write carries it, and returns
// that write's error; after an error every writing method returns it.
func TestWriteWaitsForItsWrite(t *testing.T) {
	g := newGateWriter()
	s := stdio.NewStream(strings.NewReader(""), g, stdio.Options{})
	go s.PostMessage([]byte(`1`))
	<-g.started
	done := make(chan error, 1)
	go func() { done <- s.WriteMessage(context.Background(), []byte(`2`)) }()
	g.release <- nil // the first write ends; the flusher writes "2" next
	if got := string(<-g.started); got != "2\n" {
		t.Fatalf("second write %q", got)
	}
	select {
	case err := <-done:
		t.Fatalf("WriteMessage returned %v before its write ended", err)
	default:
	}
	broken := errors.New("broken pipe")
	g.release <- broken
	if err := <-done; !errors.Is(err, broken) {
		t.Fatalf("WriteMessage: %v, want the write's error", err)
	}
	for name, f := range map[string]func() error{
		"PostMessage":  func() error { return s.PostMessage([]byte(`3`)) },
		"WriteMessage": func() error { return s.WriteMessage(context.Background(), []byte(`3`)) },
		"Flush":        s.Flush,
	} {
		if err := f(); !errors.Is(err, broken) {
			t.Errorf("%s after the error: %v", name, err)
		}
	}
}

// TestPostHoldsBackAtLimit: a peer that does not read holds posting
// goroutines up once a megabyte waits behind the write under way, rather
// than letting the buffer grow without bound.
func TestPostHoldsBackAtLimit(t *testing.T) {
	g := newGateWriter()
	s := stdio.NewStream(strings.NewReader(""), g, stdio.Options{})
	go s.PostMessage([]byte(`1`))
	<-g.started
	big := bytes.Repeat([]byte("x"), 1<<20)
	if err := s.PostMessage(big); err != nil { // fills the buffer
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() { held <- s.PostMessage([]byte(`2`)) }()
	select {
	case err := <-held:
		t.Fatalf("post past the limit returned %v while the write was under way", err)
	default:
	}
	g.release <- nil // the first write ends: the big one starts, room is made
	if got := len(<-g.started); got != 1<<20+1 {
		t.Fatalf("second write of %d bytes", got)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	g.release <- nil
	if got := string(<-g.started); got != "2\n" {
		t.Fatalf("third write %q", got)
	}
	g.release <- nil
}

// TestConcurrentPosts: messages from many goroutines all go out whole,
// each goroutine's in its order.
func TestConcurrentPosts(t *testing.T) {
	pr, pw := io.Pipe()
	s := stdio.NewStream(strings.NewReader(""), pw, stdio.Options{})
	const writers, each = 8, 200
	read := make(chan []string, 1)
	go func() {
		b, _ := io.ReadAll(pr)
		read <- strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				msg := []byte(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))
				var err error
				if i%3 == 0 {
					err = s.WriteMessage(context.Background(), msg)
				} else {
					err = s.PostMessage(msg)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	lines := <-read
	if len(lines) != writers*each {
		t.Fatalf("%d lines, want %d", len(lines), writers*each)
	}
	next := make([]int, writers)
	for _, l := range lines {
		var w, i int
		if _, err := fmt.Sscanf(l, `{"w":%d,"i":%d}`, &w, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: message %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
}
