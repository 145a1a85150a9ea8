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
// a POSTed request or batch, or the GET stream. Its events are stored (for
// resumption) and written to the connection attached to it, if any: the
// original response, or the GET that resumed it. Everything it writes is
// written under its lock, which also orders deliveries against a resume's
// replay.
type stream struct {
	sess *session
	name string
	// batch marks the stream of a batch POST: it begins SSE with its first
	// event when the client takes SSE, and collects its responses into one
	// JSON array when the client does not.
	batch bool
	// httpSSE marks the one stream of an HTTP+SSE session: responses are
	// events like any other ("message"), and it ends with its session.
	httpSSE bool
	// forward, on an instance that serves a request of an HTTP+SSE
	// session whose stream another instance holds, carries each message
	// there (the Relay) instead of writing it.
	forward func(msg []byte)

	mu      sync.Mutex
	conn    *sseConn // attached connection, nil when none
	started bool     // the SSE stream began (priming event sent)
	final   bool     // no more events: the responses went out, or the stream ended
	pending int      // responses owed (see owe and answer)
	answers [][]byte // a batch's responses before SSE began
}

var (
	errStreamDone = errors.New("streamhttp: the stream has ended")
	errNoSSE      = errors.New("streamhttp: the client does not take SSE on this request")
)

// Notify implements mcp.Outbound for the request the stream answers:
// related messages go on the stream, else on the GET stream, else nowhere.
func (st *stream) Notify(_ context.Context, method string, params wire.Marshaler) error {
	b, err := jsonrpc.AppendNotification(nil, method, params)
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
	st.writeLocked(st.appendLocked(msg), msg)
	return nil
}

// appendLocked stores an event of the stream and returns its id ("" when
// the store failed: the event is sent but cannot be replayed).
func (st *stream) appendLocked(msg []byte) string {
	if st.httpSSE {
		return "" // the HTTP+SSE transport does not resume
	}
	id, err := st.sess.h.store.Append(context.WithoutCancel(st.sess.ctx), st.sess.id, st.name, msg)
	if err != nil {
		st.sess.h.log.Warn("streamhttp: storing an event failed; it cannot be replayed", "session", st.sess.id, "err", err)
		return ""
	}
	return id
}

// startLocked begins the SSE response on the attached connection with the
// priming event: an id (to resume from) and the retry interval.
func (st *stream) startLocked() {
	c := st.conn
	st.started = true
	id, err := st.sess.h.store.Append(context.WithoutCancel(st.sess.ctx), st.sess.id, st.name, nil)
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
	if st.forward != nil {
		st.forward(msg)
		return
	}
	c := st.conn
	if c == nil {
		return
	}
	if st.httpSSE {
		st.queueLocked(c, messageEvent(msg))
		return
	}
	if c.writeEvent(id, msg) != nil {
		c.end()
		st.conn = nil
	}
}

// queueLocked hands an event of an HTTP+SSE stream to the goroutine that
// writes it (flush, on the stream's GET). When more than one event waits
// and together they go beyond Options.MaxSSEPendingBytes, the client is
// not reading: the stream is cut, which ends its session and cancels the
// session's requests in progress.
func (st *stream) queueLocked(c *sseConn, ev []byte) {
	q := c.q
	q.events = append(q.events, ev)
	q.queued += int64(len(ev))
	if len(q.events) > 1 && q.queued > st.sess.h.o.MaxSSEPendingBytes {
		st.sess.h.log.Warn("streamhttp: an HTTP+SSE client is not reading its stream; cutting it and ending its session",
			"session", st.sess.id, "waiting_bytes", q.queued, "waiting_events", len(q.events))
		q.cut = true
		c.end()
		st.conn = nil
		// A write blocked on the client returns now: the writer ends the
		// session at once.
		_ = c.rc.SetWriteDeadline(time.Now())
		return
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// flush writes the events waiting on c, an HTTP+SSE stream's connection,
// until none waits. It reports whether c goes on: false once c has ended
// — after writing what waits, when its session ended (a drain's last
// answers), not when the stream was cut (a write failed, or stalled for
// StallTimeout, or the client read too little: queueLocked).
func (st *stream) flush(c *sseConn) bool {
	q := c.q
	for {
		st.mu.Lock()
		if q.cut {
			st.mu.Unlock()
			return false
		}
		batch, ended := q.events, c.ended
		q.events = nil
		st.mu.Unlock()
		if len(batch) == 0 {
			return !ended
		}
		var n int64
		for _, ev := range batch {
			if err := c.write(ev); err != nil {
				st.mu.Lock()
				if st.conn == c {
					st.conn = nil
				}
				q.cut = true
				c.end()
				st.mu.Unlock()
				return false
			}
			n += int64(len(ev))
		}
		st.mu.Lock()
		q.queued -= n
		st.mu.Unlock()
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
		if c.q != nil {
			// An HTTP+SSE stream: its writer pings, when nothing waits.
			if len(c.q.events) == 0 {
				st.queueLocked(c, []byte(":\n\n"))
			}
			c.ka.Reset(ka)
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

// owe announces one more response the stream must carry before it ends.
func (st *stream) owe() {
	st.mu.Lock()
	st.pending++
	st.mu.Unlock()
}

// limited marks a single request's stream whose response refuses it for
// a rate limit: written as JSON, it is a 429 with Retry-After.
func (st *stream) limited(d time.Duration) {
	st.mu.Lock()
	if c := st.conn; c != nil && !st.batch {
		c.retryAfter = d
	}
	st.mu.Unlock()
}

// answer hands the stream one of the responses it owes (nil: none, the
// request was cancelled). Once SSE began the response is an event. Before,
// a batch stream begins SSE with it if the client takes SSE, else collects
// it for the JSON array; a single request's response is handed to the
// connection to write as JSON. After the last response owed the stream
// ends.
func (st *stream) answer(resp []byte) {
	st.mu.Lock()
	if st.final {
		st.mu.Unlock()
		return
	}
	if st.httpSSE {
		if resp != nil {
			st.writeLocked(st.appendLocked(resp), resp)
		}
		forwarded := st.forward != nil
		if forwarded {
			st.final = true // a forwarding stream serves one request
		}
		st.mu.Unlock()
		if forwarded {
			st.sess.removeStream(st)
		}
		return
	}
	if resp != nil {
		if !st.started && st.batch && st.conn != nil && st.conn.sse {
			st.startLocked()
		}
		switch {
		case st.started:
			st.writeLocked(st.appendLocked(resp), resp)
		case st.conn == nil:
			st.sess.h.log.Debug("streamhttp: response dropped: the client left before it was ready", "session", st.sess.id)
		case st.batch:
			st.answers = append(st.answers, resp)
		default:
			st.conn.json = resp
		}
	}
	st.pending--
	if st.pending > 0 {
		st.mu.Unlock()
		return
	}
	if c := st.conn; c != nil && !st.started && len(st.answers) > 0 {
		c.json = jsonrpc.AppendBatch(nil, st.answers)
	}
	st.answers = nil
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
	rc    http.ResponseController // a value: one allocation less per connection
	sse   bool                    // the client takes SSE (Accept)
	began bool                    // the SSE response began
	gone  chan struct{}
	ended bool
	json  []byte // the response (a batch's: their array), when it ended before SSE began
	// retryAfter, when set, makes a JSON response a 429 with Retry-After:
	// the request was rate limited (ratelimit.Code).
	retryAfter time.Duration
	ka         *time.Timer
	stall      time.Duration // Options.StallTimeout
	wd         writeDeadline

	// q is the queue of an HTTP+SSE stream's connection (nil on others).
	q *sseQueue

	// The response of a POST (postStream, post): what reply writes.
	sess  *session
	r     *http.Request
	acc   accept
	id    jsonrpc.ID
	hasID bool
	none  int // the status when no response is owed
	// inline marks a POST whose ServeHTTP is running its request's
	// handler (serveRequest): it cannot wait for gone, so end replies, on
	// the goroutine that ends the connection (a drain's, the session's
	// end), and flushes the reply; replied records that it does (await
	// then has nothing to write).
	inline, replied bool
}

// sseQueue holds an HTTP+SSE stream's events (queued bytes) for the
// goroutine of its GET, which wake calls to write them (see
// stream.queueLocked and flush). Its fields are guarded by the stream's
// lock, as the connection's.
type sseQueue struct {
	events [][]byte
	queued int64
	wake   chan struct{}
	cut    bool // the stream was cut: its client does not read
}

func (h *Handler) newConn(w http.ResponseWriter, sse bool) *sseConn {
	return &sseConn{w: w, rc: *http.NewResponseController(w), sse: sse, gone: make(chan struct{}), stall: h.o.StallTimeout}
}

// post makes c the response of a POST: its request, the id an error
// without a response names, and the status when no response is owed.
func (c *sseConn) post(r *http.Request, id jsonrpc.ID, hasID bool, none int) {
	c.r, c.id, c.hasID, c.none = r, id, hasID, none
}

func (c *sseConn) end() {
	if c.ended {
		return
	}
	c.ended = true
	if c.ka != nil {
		c.ka.Stop()
	}
	// Set before gone closes, so whoever sees gone closed sees it too.
	c.replied = c.inline
	close(c.gone)
	if c.replied {
		c.reply()
		_ = c.rc.Flush()
	}
}

// reply ends the response of a POST whose connection ended: the JSON
// response (a 429 with Retry-After when it refuses a rate-limited
// request), nothing more when its SSE stream began, 404 when the session
// ended, else status none (every request was cancelled).
func (c *sseConn) reply() {
	c.lastWrite()
	switch s := c.sess; {
	case c.json != nil && c.retryAfter > 0 && c.acc.json:
		setRetryAfter(c.w, c.retryAfter)
		writeJSON(c.w, http.StatusTooManyRequests, c.json)
	case c.json != nil:
		writeResponse(c.w, c.acc, c.json)
	case c.began:
		// The stream ended (its last response was its last event).
	case s.ctx.Err() != nil:
		s.h.writeError(c.w, c.r, http.StatusNotFound, c.id, c.hasID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session ended"))
	default:
		c.w.WriteHeader(c.none)
	}
}

func (c *sseConn) write(b []byte) error {
	c.wd.arm(&c.rc, c.stall)
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

// messageEvent is a "message" event, as the HTTP+SSE transport names
// them (without an id: its clients do not resume).
func messageEvent(data []byte) []byte {
	buf := make([]byte, 0, len(data)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, data...)
	return append(buf, "\n\n"...)
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
// the stream) a fresh write deadline (writeDeadline).
func (c *sseConn) lastWrite() { c.wd.arm(&c.rc, c.stall) }
