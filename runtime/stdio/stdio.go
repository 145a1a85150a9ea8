// Package stdio is the MCP stdio transport: newline-delimited JSON-RPC
// messages over a reader and a writer, normally the process's standard
// input and output.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// DefaultMaxMessageSize is the default limit on one incoming message.
const DefaultMaxMessageSize = 16 << 20

// Options configures a Stream and, where the stdio transport serves or
// dials a connection on it, the connection.
type Options struct {
	// MaxMessageSize limits one incoming message (one line, without its line
	// terminator); default 16 MiB. A longer line is skipped without being
	// buffered whole and reported as a *jsonrpc.TooLargeError.
	MaxMessageSize int
	// Conn configures the JSON-RPC connection of Serve, ServeHandler and
	// the transports (concurrency, limits, timeouts); Serve's Logger
	// defaults to the server's. NewStream ignores it.
	Conn jsonrpc.Options
	// Principal is who Serve's requests come from (mcp.PrincipalFrom):
	// a stdio server serves the one user who started it, whom it may name
	// (an OS user, an account from its configuration). Default: none.
	Principal string
}

const (
	readBufSize  = 64 << 10
	writeBufSize = 64 << 10
	// keepBuf is the largest message buffer kept for reuse; a bigger one,
	// left by a rare huge message, is dropped after use.
	keepBuf = 1 << 20
)

// ErrNewline is returned by WriteMessage for a message holding a newline,
// which the framing cannot carry (wire's encoder never emits one).
var ErrNewline = errors.New("stdio: message contains a newline")

// Stream implements jsonrpc.Stream (and jsonrpc.PostingStream) over
// newline-delimited JSON, the MCP stdio transport: one message per line, no
// embedded newlines. On input "\r\n" is accepted as a line end and blank
// lines (empty, or spaces, tabs and carriage returns only) are skipped; a
// last line without a newline still counts.
//
// Reading happens in a goroutine started by the first ReadMessage and
// feeding it through a channel: a blocked read of os.Stdin cannot be
// interrupted portably, so this is how ReadMessage honours its context.
// jsonrpc.Conn reads with ReadMessages instead: that goroutine then hands
// each message to the connection itself, and when the connection runs a
// request on it, another goroutine may take reading over (HandOff).
// That goroutine reads one message ahead (two buffers take turns, so the
// slice ReadMessage returned stays valid until the next call) and ends when
// the reader fails or reaches EOF, or when Close closes a reader that is an
// io.Closer; otherwise it stays blocked in Read until input comes.
type Stream struct {
	r   *bufio.Reader
	rc  io.Closer // the reader, if it is a Closer
	max int

	start   sync.Once
	results chan result
	// ReadMessages's state, under pmu: push is its handler (nil once it
	// returned), pdone where the reading goroutine reports the error that
	// ends reading, loop the reading loop; turn counts HandOffs (a reading
	// goroutine reads while the turn it started in lasts), inPush reports
	// that the reading goroutine is in a call of push, pcond signals its
	// end.
	pmu    sync.Mutex
	pcond  sync.Cond
	push   func([]byte, error)
	pdone  chan error
	loop   func(turn uint64)
	turn   uint64
	inPush bool
	// pulled reports that ReadMessage started the reading goroutine
	// (consumer side).
	pulled bool
	closed chan struct{}
	rerr   error // sticky error once the reader stopped (consumer side)
	bufs   [2][]byte

	w  *lineWriter
	wc io.Closer // the writer, if it is a Closer

	closeOnce sync.Once
	closeErr  error
}

type result struct {
	msg []byte
	err error
}

// NewStream returns a Stream reading r and writing w.
func NewStream(r io.Reader, w io.Writer, o Options) *Stream {
	s := &Stream{
		r:       bufio.NewReaderSize(r, readBufSize),
		max:     o.MaxMessageSize,
		results: make(chan result),
		closed:  make(chan struct{}),
		w:       newLineWriter(w),
	}
	if s.max <= 0 {
		s.max = DefaultMaxMessageSize
	}
	s.pcond.L = &s.pmu
	s.rc, _ = r.(io.Closer)
	s.wc, _ = w.(io.Closer)
	return s
}

// ReadMessage returns the next message: a line without its terminator, in a
// buffer reused after the next call. It returns io.EOF at the end of input,
// a *jsonrpc.TooLargeError for a skipped line, and ctx.Err() as soon as ctx
// is done (the message being read is then kept for the next call). It must
// not be called concurrently.
func (s *Stream) ReadMessage(ctx context.Context) ([]byte, error) {
	if s.rerr != nil {
		return nil, s.rerr
	}
	s.start.Do(func() { s.pulled = true; go s.readLoop() })
	select {
	case r := <-s.results:
		if r.err != nil {
			var tl *jsonrpc.TooLargeError
			if !errors.As(r.err, &tl) {
				s.rerr = r.err
			}
		}
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closed:
		s.rerr = jsonrpc.ErrClosed
		return nil, s.rerr
	}
}

// ReadMessages reads on the stream's goroutine and calls handle there with
// each message (jsonrpc.PushStream): Conn.Serve's way, saving a goroutine
// switch per message over ReadMessage. It returns io.EOF at the end of
// input, the reader's error, jsonrpc.ErrClosed after Close, or ctx.Err()
// once ctx is done; handle is not called after that (a message read later
// is left unhandled, as ReadMessage leaves it unread), and ReadMessages
// waits for a call in progress unless it was handed off (HandOff). After
// ReadMessage was called, ReadMessages goes on reading that way (each
// message then copied, since a call handed off may still hold it).
func (s *Stream) ReadMessages(ctx context.Context, handle func(msg []byte, err error)) error {
	if s.rerr != nil {
		return s.rerr
	}
	done := make(chan error, 1)
	s.pmu.Lock()
	s.push, s.pdone = handle, done
	if s.pulled {
		s.loop = func(turn uint64) { s.pullLoop(ctx, turn) }
	} else {
		s.loop = s.pushLoop
	}
	turn := s.turn
	s.pmu.Unlock()
	if s.pulled {
		go s.loop(turn)
	} else {
		s.start.Do(func() { go s.loop(turn) })
	}
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	case <-s.closed:
		err = jsonrpc.ErrClosed
	}
	// Wait for a call of handle in progress; none follows.
	s.pmu.Lock()
	s.push = nil
	for s.inPush {
		s.pcond.Wait()
	}
	s.pmu.Unlock()
	if err != ctx.Err() {
		s.rerr = err
	}
	return err
}

// HandOff makes reading go on on a new goroutine while the reading one is
// in a call of ReadMessages's handler (jsonrpc.PushStream): that goroutine
// no longer reads once the call returns, and ReadMessages no longer waits
// for the call. Without a call in progress it does nothing.
func (s *Stream) HandOff() {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if !s.inPush {
		return
	}
	s.inPush = false
	s.turn++
	if s.push == nil {
		s.pcond.Broadcast() // ReadMessages is returning: nobody reads on
		return
	}
	go s.loop(s.turn)
}

// Pending reports, on the reading goroutine during a call of
// ReadMessages's handler, whether input after the message is already
// buffered (jsonrpc.PushStream); false after ReadMessage read first (the
// reading goroutine is then another one's).
func (s *Stream) Pending() bool {
	return !s.pulled && s.r.Buffered() > 0
}

// deliver calls the handler with msg (or a skipped message's err) on this
// goroutine, the one reading in turn; false when this goroutine is to stop
// reading: ReadMessages returned, or reading was handed off during the
// call.
func (s *Stream) deliver(turn uint64, msg []byte, err error) bool {
	s.pmu.Lock()
	h := s.push
	if h == nil || s.turn != turn {
		s.pmu.Unlock()
		return false
	}
	s.inPush = true
	s.pmu.Unlock()
	h(msg, err)
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.turn != turn {
		return false
	}
	s.inPush = false
	if s.push == nil {
		s.pcond.Broadcast()
	}
	return true
}

// pushLoop reads messages and hands each to the handler, on this
// goroutine, for as long as its turn lasts; it sends the error that ends
// reading on pdone.
func (s *Stream) pushLoop(turn uint64) {
	var buf []byte
	for {
		if cap(buf) > keepBuf {
			buf = nil
		}
		// Let the goroutine the last message woke (the worker serving it,
		// on this processor) run before this one reads or handles the
		// next: before a read that may block the thread in a system call,
		// as in readLoop, and also when more input is buffered — a peer
		// with 16 requests in flight got 1.23x the calls/s at 0.89x the
		// CPU per call when each was served at once instead of after the
		// burst was parsed (bench/blackbox.sh's stdio 16×5 B; one request
		// in flight never has input buffered, so it yielded already).
		runtime.Gosched()
		msg, err := s.readLine(buf[:0])
		if msg != nil {
			buf = msg
		}
		if err != nil && !isTooLarge(err) {
			s.pdone <- err
			return
		}
		if !s.deliver(turn, msg, err) {
			return
		}
	}
}

// pullLoop is pushLoop for a stream that ReadMessage read first: it goes
// on through ReadMessage, copying each message out of the read-ahead
// buffers.
func (s *Stream) pullLoop(ctx context.Context, turn uint64) {
	var buf []byte
	for {
		msg, err := s.ReadMessage(ctx)
		if err != nil && !isTooLarge(err) {
			s.pdone <- err
			return
		}
		buf = append(buf[:0], msg...)
		if !s.deliver(turn, buf, err) {
			return
		}
		if cap(buf) > keepBuf {
			buf = nil
		}
	}
}

// isTooLarge reports a *jsonrpc.TooLargeError.
func isTooLarge(err error) bool {
	var tl *jsonrpc.TooLargeError
	return errors.As(err, &tl)
}

// readLoop reads messages ahead into two alternating buffers: buffer i is
// refilled only after the message in the other one has been received, that
// is after the consumer called ReadMessage again.
func (s *Stream) readLoop() {
	for i := 0; ; i ^= 1 {
		if cap(s.bufs[i]) > keepBuf {
			s.bufs[i] = nil
		}
		if s.r.Buffered() == 0 {
			// The next read may block the thread in a system call. Let the
			// goroutines this message woke (the one serving it, on this
			// thread's processor) run first, instead of waiting for another
			// processor to take them over.
			runtime.Gosched()
		}
		msg, err := s.readLine(s.bufs[i][:0])
		if msg != nil {
			s.bufs[i] = msg
		}
		select {
		case s.results <- result{msg, err}:
		case <-s.closed:
			return
		}
		if err != nil {
			var tl *jsonrpc.TooLargeError
			if !errors.As(err, &tl) {
				return
			}
		}
	}
}

// readLine reads the next non-blank line into buf. A line longer than the
// limit is read through and discarded chunk by chunk.
func (s *Stream) readLine(buf []byte) ([]byte, error) {
	for {
		buf = buf[:0]
		tooLarge := false
		var err error
		// A line longer than the reader's buffer comes in chunks: those
		// that do not fit in buf are copied aside and the line is put
		// together once its length is known, in one allocation (appending
		// them to buf grew it by 1.25x at a time: 4.5 MB allocated for a
		// 1 MiB line, 2 MB now).
		var long [][]byte
		n := 0
		for {
			var chunk []byte
			chunk, err = s.r.ReadSlice('\n')
			if !tooLarge {
				// content + "\r\n" may take max+2 bytes.
				switch {
				case n+len(chunk) > s.max+2:
					tooLarge, long = true, nil
				case long == nil && (len(buf)+len(chunk) <= cap(buf) || err != bufio.ErrBufferFull):
					// It fits, or it is the line's last chunk.
					buf = append(buf, chunk...)
				default:
					long = append(long, append([]byte(nil), chunk...))
				}
				n += len(chunk)
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if long != nil {
			if cap(buf) < n {
				nb := make([]byte, len(buf), n)
				copy(nb, buf)
				buf = nb
			}
			for _, c := range long {
				buf = append(buf, c...)
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		line := buf
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if tooLarge || len(line) > s.max {
			// After a skipped last line, bufio reports io.EOF again next time.
			return buf[:0], &jsonrpc.TooLargeError{Limit: s.max}
		}
		if !blank(line) {
			return line, nil
		}
		if err == io.EOF {
			return buf[:0], io.EOF
		}
	}
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// The writing methods may be called from any number of goroutines at once;
// messages go out whole, in the order the calls took their turns, and a
// message added while a write is under way goes out with the next write
// (one system call for all added meanwhile). After a write error every
// writing method returns it.

// WriteMessage writes msg and a newline and returns once they are written.
// ctx is not consulted: a write to a pipe cannot be interrupted portably
// either. A message holding a newline is refused with ErrNewline.
func (s *Stream) WriteMessage(_ context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return ErrNewline
	}
	return s.w.write(msg)
}

// PostMessage writes msg and a newline without waiting for a write under
// way (jsonrpc.PostingStream): when another goroutine is writing, that one
// writes msg too, after what it is writing, and PostMessage returns at
// once. It returns an earlier write's error, or the error of the write it
// made itself.
func (s *Stream) PostMessage(msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return ErrNewline
	}
	return s.w.post(msg)
}

// Flush returns once every message posted before it is written.
func (s *Stream) Flush() error { return s.w.flush() }

// Close flushes and closes the writer if it is an io.Closer, and closes the
// reader if it is an io.Closer (ending the reading goroutine where the
// reader supports that); a blocked ReadMessage returns jsonrpc.ErrClosed.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		err := s.w.flush()
		if s.wc != nil {
			err = errors.Join(err, s.wc.Close())
		}
		if s.rc != nil {
			err = errors.Join(err, s.rc.Close())
		}
		s.closeErr = err
	})
	return s.closeErr
}

// ServeHandler serves a plain JSON-RPC handler h (no MCP) on os.Stdin and
// os.Stdout until the input ends (nil), ctx is done or the Conn is closed;
// the first two drain the connection first (see
// jsonrpc.Options.DrainTimeout). Logs go to o.Logger, by default a text
// logger on os.Stderr (standard output carries only protocol messages).
// Standard input and output are not closed; if ServeHandler returns before
// standard input ends, its reading goroutine stays blocked in Read until
// input comes or the process exits.
func ServeHandler(ctx context.Context, h jsonrpc.Handler, o jsonrpc.Options) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	s := NewStream(struct{ io.Reader }{os.Stdin}, struct{ io.Writer }{os.Stdout}, Options{})
	c := jsonrpc.NewConn(s, h, o)
	err := c.Serve(ctx)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}
