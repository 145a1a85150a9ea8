package stdio_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const tooLarge = "<too large>"

// readAll reads every message until an error other than *TooLargeError,
// recording skipped messages as tooLarge.
func readAll(t testing.TB, s *stdio.Stream) ([]string, error) {
	var out []string
	for {
		m, err := s.ReadMessage(context.Background())
		var tl *jsonrpc.TooLargeError
		switch {
		case errors.As(err, &tl):
			out = append(out, tooLarge)
		case err != nil:
			return out, err
		default:
			out = append(out, string(m))
		}
	}
}

func TestFraming(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 0, nil},
		{"one", "{}\n", 0, []string{"{}"}},
		{"no final newline", "{}\n[1]", 0, []string{"{}", "[1]"}},
		{"crlf", "{\"a\":1}\r\n{}\r\n", 0, []string{`{"a":1}`, "{}"}},
		{"blank lines", "\n\n{}\n \t \r\n\r\n[]\n\n", 0, []string{"{}", "[]"}},
		{"only blank", "\n \n\r\n", 0, nil},
		{"inner whitespace kept", " { } \n", 0, []string{" { } "}},
		{"lone cr inside", "a\rb\n", 0, []string{"a\rb"}},
		{"at limit", "12345\n", 5, []string{"12345"}},
		{"at limit with crlf", "12345\r\n", 5, []string{"12345"}},
		{"over limit", "123456\nok\n", 5, []string{tooLarge, "ok"}},
		{"over limit, last line", "ok\n123456", 5, []string{"ok", tooLarge}},
		{"over limit, crlf", "123456\r\nok\n", 5, []string{tooLarge, "ok"}},
		{"over limit, huge", strings.Repeat("x", 300_000) + "\nok\n" + strings.Repeat("y", 200_000), 100, []string{tooLarge, "ok", tooLarge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stdio.NewStream(strings.NewReader(tt.in), io.Discard, stdio.Options{MaxMessageSize: tt.max})
			got, err := readAll(t, s)
			if err != io.EOF {
				t.Fatalf("error %v, want io.EOF", err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if _, err := s.ReadMessage(context.Background()); err != io.EOF {
				t.Errorf("after EOF: %v", err)
			}
		})
	}
}

// slowReader returns its input a few bytes at a time.
type slowReader struct {
	data []byte
	n    int
}

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

func TestLargeMessages(t *testing.T) {
	big := `{"jsonrpc":"2.0","method":"x","params":{"s":"` + strings.Repeat("a", 5<<20) + `"}}`
	in := big + "\n" + big + "\r\n{}\n"
	s := stdio.NewStream(&slowReader{data: []byte(in), n: 70_000}, io.Discard, stdio.Options{})
	for i, want := range []string{big, big, "{}"} {
		m, err := s.ReadMessage(context.Background())
		if err != nil || string(m) != want {
			t.Fatalf("message %d: %d bytes, err %v", i, len(m), err)
		}
	}
	if _, err := s.ReadMessage(context.Background()); err != io.EOF {
		t.Fatal(err)
	}
}

// TestLongLinesAndLimit: lines longer than the reader's buffer, put
// together from its chunks, beside one over the limit (skipped, reported)
// and short ones, read by ReadMessage and by ReadMessages.
func TestLongLinesAndLimit(t *testing.T) {
	a, b := strings.Repeat("a", 100<<10), strings.Repeat("b", 140<<10)
	over := strings.Repeat("c", 200<<10)
	in := a + "\n" + over + "\n{}\n" + b + "\r\n" + a + "\n"
	want := []string{a, tooLarge, "{}", b, a}
	open := func() *stdio.Stream {
		return stdio.NewStream(&slowReader{data: []byte(in), n: 50_000}, io.Discard, stdio.Options{MaxMessageSize: 150 << 10})
	}
	pulled, err := readAll(t, open())
	if err != io.EOF {
		t.Fatal(err)
	}
	var pushed []string
	err = open().ReadMessages(context.Background(), func(m []byte, err error) {
		if err != nil {
			pushed = append(pushed, tooLarge)
			return
		}
		pushed = append(pushed, string(m))
	})
	if err != io.EOF {
		t.Fatal(err)
	}
	for name, got := range map[string][]string{"ReadMessage": pulled, "ReadMessages": pushed} {
		if len(got) != len(want) {
			t.Fatalf("%s: %d messages, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: message %d: %d bytes, want %d", name, i, len(got[i]), len(want[i]))
			}
		}
	}
}

// TestBufferReuse: the slice from ReadMessage stays valid until the next call.
func TestBufferReuse(t *testing.T) {
	var in strings.Builder
	for i := range 1000 {
		in.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i%300))
		in.WriteByte('\n')
	}
	s := stdio.NewStream(strings.NewReader(in.String()), io.Discard, stdio.Options{})
	for i := range 1000 {
		m, err := s.ReadMessage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Microsecond) // let the reader run ahead
		if want := strings.Repeat(string(rune('a'+i%26)), 1+i%300); string(m) != want {
			t.Fatalf("message %d: %q", i, m)
		}
	}
}

func TestReadContext(t *testing.T) {
	pr, pw := io.Pipe()
	s := stdio.NewStream(pr, io.Discard, stdio.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.ReadMessage(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	// The message read after the cancellation is kept for the next call.
	go pw.Write([]byte("{\"a\":1}\n"))
	m, err := s.ReadMessage(context.Background())
	if err != nil || string(m) != `{"a":1}` {
		t.Fatalf("got %q, %v", m, err)
	}
	// Close unblocks a pending read and ends the reading goroutine.
	done := make(chan error)
	go func() {
		_, err := s.ReadMessage(context.Background())
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("read after Close succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock ReadMessage")
	}
	if _, err := pw.Write([]byte("x\n")); err == nil {
		t.Error("the reader was not closed")
	}
}

type closeBuffer struct {
	bytes.Buffer
	closed bool
}

func (b *closeBuffer) Close() error { b.closed = true; return nil }

func TestWrite(t *testing.T) {
	var out closeBuffer
	s := stdio.NewStream(strings.NewReader(""), &out, stdio.Options{})
	if err := s.WriteMessage(context.Background(), []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"a\":1}\n" {
		t.Errorf("wrote %q", out.String())
	}
	if err := s.WriteMessage(context.Background(), []byte("{\n}")); !errors.Is(err, stdio.ErrNewline) {
		t.Errorf("newline: %v", err)
	}
	if err := s.PostMessage([]byte(`[1]`)); err != nil {
		t.Fatal(err)
	}
	if err := s.PostMessage([]byte(`[2]`)); err != nil {
		t.Fatal(err)
	}
	if err := s.PostMessage([]byte("[\n]")); !errors.Is(err, stdio.ErrNewline) {
		t.Errorf("newline: %v", err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"a\":1}\n[1]\n[2]\n" {
		t.Errorf("wrote %q", out.String())
	}
	if err := s.Close(); err != nil || !out.closed {
		t.Errorf("Close: %v, closed %v", err, out.closed)
	}
}

// TestConnOverStdio runs a Conn on a Stream and checks the framing of its
// output. The input stays open until the answers are in: at EOF the Conn
// cancels what still runs and answers nothing more.
func TestConnOverStdio(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n" +
		"\r\n" + `{"jsonrpc":"2.0","id":"2","method":"x","params":{"a":"b\nc"}}` + "\r\n" + "not json\n"
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	s := stdio.NewStream(pr, outW, stdio.Options{})
	c := jsonrpc.NewConn(s, jsonrpc.HandlerFunc(func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
		return r.ID, nil
	}), jsonrpc.Options{MaxConcurrent: 1})
	done := make(chan error)
	go func() { done <- c.Serve(context.Background()) }()
	go pw.Write([]byte(in))
	var lines []string
	br := bufio.NewReader(outR)
	for range 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines, "")
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":1}` + "\n", `{"jsonrpc":"2.0","id":"2","result":"2"}` + "\n", `"code":-32700`} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	s.Close()
}

func TestServe(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldIn, oldOut := os.Stdin, os.Stdout
	os.Stdin, os.Stdout = inR, outW
	defer func() { os.Stdin, os.Stdout = oldIn, oldOut }()
	done := make(chan error)
	go func() {
		done <- stdio.ServeHandler(context.Background(), jsonrpc.HandlerFunc(func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			return nil, nil
		}), jsonrpc.Options{})
	}()
	inW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n"))
	buf := make([]byte, 100)
	n, _ := outR.Read(buf)
	if got := string(buf[:n]); got != `{"jsonrpc":"2.0","id":1,"result":null}`+"\n" {
		t.Errorf("got %q", got)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return at EOF")
	}
	inR.Close()
	outR.Close()
	outW.Close()
}

// FuzzStdioFraming: arbitrary input never panics, and the messages are the
// non-blank lines (those over the limit reported as too large).
func FuzzStdioFraming(f *testing.F) {
	for _, s := range []string{"", "\n", "{}\n", "a\r\nb", " \t\r\n\n x \n", "0123456789abcdefXYZ\nq", "\r\r\n\r", "\xff\x00\n"} {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		limit := int(max%32) + 1
		s := stdio.NewStream(&slowReader{data: in, n: 7}, io.Discard, stdio.Options{MaxMessageSize: limit})
		got, err := readAll(t, s)
		if err != io.EOF {
			t.Fatalf("error %v", err)
		}
		var want []string
		for _, line := range strings.Split(string(in), "\n") {
			line = strings.TrimSuffix(line, "\r")
			// A line over the limit is not looked at: even a blank one
			// is reported.
			if len(line) > limit {
				line = tooLarge
			} else if strings.Trim(line, " \t\r") == "" {
				continue
			}
			want = append(want, line)
		}
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	})
}

// TestHandOff checks ReadMessages's hand-off: a call of the handler that
// hands reading off goes on while the next messages are handled on another
// goroutine, keeps its message intact, and is not waited for; both with the
// stream's own reading goroutine and after ReadMessage read first.
func TestHandOff(t *testing.T) {
	for _, pulledFirst := range []bool{false, true} {
		name := "push"
		if pulledFirst {
			name = "after ReadMessage"
		}
		t.Run(name, func(t *testing.T) {
			pr, pw := io.Pipe()
			s := stdio.NewStream(pr, io.Discard, stdio.Options{})
			go func() {
				for _, m := range []string{"first", "hold", "next", "last"} {
					pw.Write([]byte(`"` + m + `"` + "\n"))
				}
				pw.Close()
			}()
			if pulledFirst {
				m, err := s.ReadMessage(context.Background())
				if err != nil || string(m) != `"first"` {
					t.Fatalf("ReadMessage: %q, %v", m, err)
				}
			}
			var got []string
			next := make(chan struct{})
			held := make(chan string, 1)
			err := s.ReadMessages(context.Background(), func(msg []byte, err error) {
				if err != nil {
					t.Errorf("handle: %v", err)
					return
				}
				switch string(msg) {
				case `"hold"`:
					s.HandOff()
					s.HandOff() // no call in progress on the reading goroutine: nothing
					<-next      // handled on the goroutine reading on
					held <- string(msg)
					return
				case `"next"`:
					close(next)
				}
				got = append(got, string(msg))
			})
			if !errors.Is(err, io.EOF) {
				t.Errorf("ReadMessages: %v", err)
			}
			want := `"first" "next" "last"`
			if pulledFirst {
				want = `"next" "last"`
			}
			if g := strings.Join(got, " "); g != want {
				t.Errorf("handled %s, want %s", g, want)
			}
			if m := <-held; m != `"hold"` {
				t.Errorf("held message became %s", m)
			}
		})
	}
}
