package streamhttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// stream is one SSE stream of a stateful session: the response stream of
// a POSTed request, or the GET stream. Its events are stored (for
// resumption) and written to the connection attached to it, if any: the
// original response, or the GET that resumed it. Everything it writes is
// written under its lock, which also orders deliveries against a resume's
// replay.
type stream struct {
	sess *session
	name string

	mu      sync.Mutex
	conn    *sseConn // attached connection, nil when none
	started bool     // the SSE stream began (priming event sent)
	final   bool     // no more events: the response went out, or the stream ended
}

var (
	errStreamDone = errors.New("streamhttp: the stream has ended")
	errNoSSE      = errors.New("streamhttp: the client does not take SSE on this request")
)

// Notify implements mcp.Outbound for the request the stream answers:
// related messages go on the stream, else on the GET stream, else nowhere.
func (st *stream) Notify(_ context.Context, method string, params wire.Marshaler) error {
	b, err := encodeRequest(jsonrpc.ID{}, false, method, params)
	if err != nil {
		return err
	}
	if err := st.sess.send(st, b); err != nil && !errors.Is(err, ErrNoStream) {
		return err
	}
	return nil
}

// attached reports a connection on the stream.
func (st *stream) attached() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.conn != nil
}

// deliver sends one message on the stream, starting SSE on first use.
func (st *stream) deliver(msg []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.final {
		return errStreamDone
	}
	if !st.started {
		if st.conn == nil || !st.conn.sse {
			return errNoSSE
		}
		st.startLocked()
	}
	id, err := st.sess.h.store.Append(st.sess.id, st.name, msg)
	if err != nil {
		st.sess.h.log.Warn("streamhttp: storing an event failed; it cannot be replayed", "session", st.sess.id, "err", err)
		id = ""
	}
	st.writeLocked(id, msg)
	return nil
}

// startLocked begins the SSE response on the attached connection with the
// priming event: an id (to resume from) and the retry interval.
func (st *stream) startLocked() {
	c := st.conn
	st.started = true
	id, err := st.sess.h.store.Append(st.sess.id, st.name, nil)
	if err != nil {
		st.sess.h.log.Warn("streamhttp: storing an event failed", "session", st.sess.id, "err", err)
	}
	if c == nil {
		return
	}
	c.began = true
	sseHeaders(c.w)
	if c.writePriming(id, st.sess.h.o.RetryInterval) != nil {
		c.end()
		st.conn = nil
		return
	}
	st.keepAliveLocked(c)
}

// writeLocked writes an event to the attached connection; a connection
// that fails is dropped (the event stays in the store).
func (st *stream) writeLocked(id string, msg []byte) {
	c := st.conn
	if c == nil {
		return
	}
	if c.writeEvent(id, msg) != nil {
		c.end()
		st.conn = nil
	}
}

// keepAliveLocked starts the pings of c.
func (st *stream) keepAliveLocked(c *sseConn) {
	ka := st.sess.h.o.KeepAlive
	if ka <= 0 {
		return
	}
	c.ka = time.AfterFunc(ka, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.conn != c || c.ended {
			return
		}
		if c.writeComment() != nil {
			c.end()
			st.conn = nil
			return
		}
		c.ka.Reset(ka)
	})
}

// finish ends the stream with the response to its request (nil: the
// request was cancelled and gets none). Before SSE began, the response is
// handed to the connection to write as JSON.
func (st *stream) finish(resp []byte) {
	st.mu.Lock()
	if st.final {
		st.mu.Unlock()
		return
	}
	if st.started {
		if resp != nil {
			id, err := st.sess.h.store.Append(st.sess.id, st.name, resp)
			if err != nil {
				id = ""
			}
			st.writeLocked(id, resp)
		}
	} else if c := st.conn; c != nil {
		c.json = resp
	} else if resp != nil {
		st.sess.h.log.Debug("streamhttp: response dropped: the client left before it was ready", "session", st.sess.id)
	}
	st.final = true
	if st.conn != nil {
		st.conn.end()
		st.conn = nil
	}
	st.mu.Unlock()
	st.sess.removeStream(st)
}

// end ends the stream without a response (session over).
func (st *stream) end() {
	st.mu.Lock()
	st.final = true
	if st.conn != nil {
		st.conn.end()
		st.conn = nil
	}
	st.mu.Unlock()
}

// detach drops connection c (its client went away); the stream goes on.
func (st *stream) detach(c *sseConn) {
	st.mu.Lock()
	if st.conn == c {
		st.conn = nil
	}
	c.end()
	st.mu.Unlock()
}

// sseConn is one HTTP response carrying a stream. Its fields are guarded
// by the lock of the stream it is attached to; gone is closed when the
// response must end (its handler then returns).
type sseConn struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	sse   bool // the client takes SSE (Accept)
	began bool // the SSE response began
	gone  chan struct{}
	ended bool
	json  []byte // the response, when it ended before SSE began
	ka    *time.Timer
}

func newConn(w http.ResponseWriter, sse bool) *sseConn {
	return &sseConn{w: w, rc: http.NewResponseController(w), sse: sse, gone: make(chan struct{})}
}

func (c *sseConn) end() {
	if c.ended {
		return
	}
	c.ended = true
	if c.ka != nil {
		c.ka.Stop()
	}
	close(c.gone)
}

func (c *sseConn) write(b []byte) error {
	_ = c.rc.SetWriteDeadline(time.Now().Add(writeStall))
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.rc.Flush()
}

func (c *sseConn) writeEvent(id string, data []byte) error {
	buf := make([]byte, 0, len(id)+len(data)+16)
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "data: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	return c.write(buf)
}

func (c *sseConn) writePriming(id string, retry time.Duration) error {
	buf := make([]byte, 0, 64)
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "retry: "...)
	buf = strconv.AppendInt(buf, retry.Milliseconds(), 10)
	buf = append(buf, "\ndata: \n\n"...)
	return c.write(buf)
}

func (c *sseConn) writeRetry(retry time.Duration) error {
	return c.write(append(strconv.AppendInt([]byte("retry: "), retry.Milliseconds(), 10), "\n\n"...))
}

func (c *sseConn) writeComment() error { return c.write([]byte(":\n\n")) }

// lastWrite gives the rest of the response (the JSON body, or the end of
// the stream) a fresh write deadline.
func (c *sseConn) lastWrite() { _ = c.rc.SetWriteDeadline(time.Now().Add(writeStall)) }
