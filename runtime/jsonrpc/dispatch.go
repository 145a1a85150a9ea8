package jsonrpc

import (
	"context"
	"errors"
	"runtime/debug"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/lazyctx"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The incoming side: each message read is dispatched (requests to a
// worker, notifications on the read loop), and each request runs its
// handler with a context that is its in-flight record.

// handleMessage dispatches one message read from the stream.
func (c *Conn) handleMessage(msg []byte) {
	m := &c.msg
	if err := c.parser.Parse(msg, m); err != nil {
		c.parseError(nil, err)
		return
	}
	if m.Problem == problemBatch {
		if !c.batch.Load() {
			c.replyError(nil, ID{}, false, CodeInvalidRequest, problemBatch)
			return
		}
		c.handleBatch(msg)
		return
	}
	c.dispatch(m, nil)
}

func (c *Conn) parseError(b *batch, err error) {
	c.replyNowObj(b, ID{}, false, &Error{Code: CodeParseError, Message: "parse error", Data: jsonString(err.Error())})
}

// handleBatch dispatches the elements of a batch already validated as JSON.
func (c *Conn) handleBatch(msg []byte) {
	msgs, err := c.parser.ParseBatch(msg, 0)
	if err != nil {
		c.parseError(nil, err) // cannot happen: validated
		return
	}
	if len(msgs) == 0 {
		c.replyError(nil, ID{}, false, CodeInvalidRequest, "empty batch")
		return
	}
	b := newBatch(c)
	for _, m := range msgs {
		c.dispatch(m, b)
	}
	b.seal()
}

// dispatch handles one parsed message (a whole message, or one element of
// batch b).
func (c *Conn) dispatch(m *Message, b *batch) {
	switch m.Kind {
	case KindInvalid:
		c.replyNow(b, m.ID, m.HasID, CodeInvalidRequest, m.Problem)
	case KindRequest:
		c.dispatchRequest(m, b)
	case KindNotification:
		c.dispatchNotification(m)
	case KindResponse:
		c.handleResponse(m)
	}
}

// dispatchNotification runs the handler for a notification on the read
// loop: notifications are handled in arrival order, each before the next
// message is read, and never wait behind requests.
func (c *Conn) dispatchNotification(m *Message) {
	req := &Request{IsNotification: true, Method: m.Method}
	if m.Params != nil {
		req.Params = append(wire.Raw(nil), m.Params...)
	}
	_, err, panicked := c.invoke(c.notifyCtx, req)
	if err != nil && !panicked {
		c.log.Debug("jsonrpc: notification handler failed", "method", req.Method, "error", err)
	}
}

// invoke calls the handler, turning a panic into panicked.
func (c *Conn) invoke(ctx context.Context, req *Request) (res wire.Marshaler, err error, panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jsonrpc: handler panicked", "method", req.Method, "id", idForLog(req),
				"panic", p, "stack", string(debug.Stack()))
			res, err, panicked = nil, nil, true
		}
	}()
	res, err = c.handler.Handle(ctx, req)
	return res, err, false
}

func idForLog(req *Request) string {
	if req.IsNotification {
		return "none"
	}
	return req.ID.String()
}

// Request states; guarded by Conn.mu.
const (
	stQueued    uint8 = iota // waiting for a slot
	stRunning                // its handler runs
	stDone                   // answered (or being answered)
	stCancelled              // cancelled by the peer or by shutdown: never answered
)

// inflight is one incoming request; it is also the handler's context,
// embedded so that a request costs one allocation rather than the three of
// context.WithCancel plus a value context. That context is cancelled only
// explicitly (Cancel, timeout, shutdown, handler return); its parent is
// Serve's context without cancellation (detached), which supplies values.
type inflight struct {
	lazyctx.Ctx
	timer *time.Timer // RequestTimeout; nil without
	req   Request
	conn  *Conn
	batch *batch
	state uint8
	// small holds the params of most requests, saving an allocation.
	small [smallParams]byte
}

// smallParams is the size of params stored inside an inflight.
const smallParams = 96

// midParams is the size of params stored with an inflight in an
// inflightMid.
const midParams = 320

// inflightMid is an inflight with room for params of up to midParams
// bytes, allocated as one.
type inflightMid struct {
	inflight
	params [midParams]byte
}

func (e *inflight) stopTimer() {
	if e.timer != nil {
		e.timer.Stop()
	}
}

type ctxKey uint8

const (
	connKey ctxKey = iota
	requestKey
)

// Value implements context.Context, answering the keys of RequestIDFrom and
// ConnFrom without a context.WithValue per request.
func (e *inflight) Value(key any) any {
	if k, ok := key.(ctxKey); ok {
		switch k {
		case requestKey:
			return e
		case connKey:
			return e.conn
		}
	}
	return e.Ctx.Value(key)
}

// RequestIDFrom returns the id of the request whose handler context ctx is
// (or derives from); false in a notification handler or elsewhere.
func RequestIDFrom(ctx context.Context) (ID, bool) {
	if e, ok := ctx.Value(requestKey).(*inflight); ok {
		return e.req.ID, true
	}
	return ID{}, false
}

// ConnFrom returns the Conn serving the handler context ctx, or nil.
func ConnFrom(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey).(*Conn)
	return c
}

// dispatchRequest registers a request and starts its handler, or queues it
// when MaxConcurrent handlers already run.
func (c *Conn) dispatchRequest(m *Message, b *batch) {
	var e *inflight
	p := m.Params
	if n := len(p); n > smallParams && n <= midParams {
		// Params of this size (a 2026-07-28 request with its _meta) share
		// the inflight's allocation too.
		w := new(inflightMid)
		e = &w.inflight
		e.req.Params = append(w.params[:0:n], p...)
	} else {
		e = new(inflight)
		switch {
		case p == nil:
		case n <= smallParams:
			e.req.Params = append(e.small[:0:n], p...)
		default:
			e.req.Params = append(wire.Raw(nil), p...)
		}
	}
	e.conn, e.batch = c, b
	e.req.ID, e.req.Method = m.ID, m.Method
	var deadline time.Time
	if c.timeout > 0 {
		deadline = time.Now().Add(c.timeout)
	}
	e.Init(c.base, deadline, false)
	if c.timeout > 0 {
		e.timer = time.AfterFunc(c.timeout, func() { c.expire(e) })
	}

	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		e.stopTimer()
		e.Cancel(context.Canceled, nil)
		return
	}
	if c.draining {
		c.mu.Unlock()
		e.stopTimer()
		e.Cancel(context.Canceled, nil)
		c.replyNowObj(b, e.req.ID, true, errShuttingDown)
		return
	}
	if _, dup := c.inflight[e.req.ID]; dup {
		c.mu.Unlock()
		e.stopTimer()
		e.Cancel(context.Canceled, nil)
		c.replyNow(b, e.req.ID, true, CodeInvalidRequest, "duplicate request id "+e.req.ID.String())
		return
	}
	c.inflight[e.req.ID] = e
	if b != nil {
		b.expect()
	}
	if c.inline != nil && c.inline.Inline(e.req.Method) {
		// Served on the read loop: nothing after it is read before it is
		// answered (MCP's initialize must settle the session first).
		c.active++
		e.state = stRunning
		c.mu.Unlock()
		c.serve(e)
		c.mu.Lock()
		c.active--
		c.cond.Signal()
		c.mu.Unlock()
		return
	}
	// Start at once if a slot is free (then the queue is empty); else queue,
	// or wait for room in the queue.
	for !c.stopping && e.state == stQueued {
		if c.readCtx.Err() != nil { // Close, or the end of a drain: shutdown follows
			break
		}
		if c.active < c.maxConc {
			c.active++
			e.state = stRunning
			if c.active == 1 && b == nil && c.pstream != nil && c.readerMayServe() {
				c.serveOnReader(e)
				return
			}
			c.mu.Unlock()
			c.startWorker(e)
			return
		}
		if n := len(c.queue) - c.qhead; n < c.maxQueued || c.qbytes+e.cost() <= c.maxQBytes {
			c.queue = append(c.queue, e)
			c.qbytes += e.cost()
			break
		}
		c.cond.Wait()
	}
	c.mu.Unlock()
}

// handOffAfter is how long a handler runs on the reading goroutine before
// reading goes on on another one.
const handOffAfter = 500 * time.Microsecond

// inlineBackoff is how many requests go to workers, which serve in
// parallel while reading goes on, after the first request read once the
// reading goroutine served one had more input behind it: it was waiting,
// so the peer keeps more than one request in flight.
const inlineBackoff = 64

// readerMayServe reports whether a request may run on the reading goroutine
// (serveOnReader): no more input is at hand, and the peer did not show
// lately that it sends while one is served; c.mu held.
func (c *Conn) readerMayServe() bool {
	pending := c.pstream.Pending()
	if c.afterInline {
		c.afterInline = false
		if pending {
			c.inlineSkip = inlineBackoff
		}
	}
	if c.inlineSkip > 0 {
		c.inlineSkip--
		return false
	}
	return !pending
}

// serveOnReader runs e, the only request running and the last message at
// hand, on the reading goroutine of a PushStream, with c.mu held (it
// unlocks). Handing e to a worker wakes another goroutine, and often
// another thread: with one request in flight that costs more than a small
// handler. (With more input at hand, or a peer that keeps several requests
// in flight, workers serve in parallel: readerMayServe.) Reading pauses
// meanwhile, so it goes on on another goroutine (handOff) once the handler
// has run for handOffAfter, makes a Call (whose response is to be read) or
// the Conn stops reading; the handler's goroutine then turns worker when
// it returns. Elements of a batch are not served this way.
func (c *Conn) serveOnReader(e *inflight) {
	c.onReader = e
	if c.handTimer == nil {
		c.handTimer = time.AfterFunc(handOffAfter, c.handOff)
	} else {
		c.handTimer.Reset(handOffAfter)
	}
	c.mu.Unlock()
	c.serve(e)
	c.mu.Lock()
	reading := c.onReader == e
	if reading {
		c.onReader = nil
		c.afterInline = true
	}
	c.mu.Unlock()
	if reading {
		c.handTimer.Stop()
		if n := c.next(); n != nil {
			c.startWorker(n)
		}
		return
	}
	// Handed off (handOff counted this goroutine in c.wg).
	c.worker(c.next())
}

// handOff makes another goroutine read on while the reading one runs a
// handler (serveOnReader); a no-op otherwise.
func (c *Conn) handOff() {
	c.mu.Lock()
	if c.onReader != nil {
		c.onReader = nil
		c.wg.Add(1)
		c.pstream.HandOff()
	}
	c.mu.Unlock()
}

// cost is what a waiting request counts against MaxQueuedBytes.
func (e *inflight) cost() int { return len(e.req.Params) + queuedOverhead }

// startWorker hands e to a parked worker goroutine, or starts one. Reusing
// workers saves the allocation a go statement with arguments costs.
func (c *Conn) startWorker(e *inflight) {
	select {
	case c.idle <- e:
	default:
		c.wg.Add(1)
		go c.worker(e)
	}
}

// maxIdleWorkers is how many finished workers a Conn keeps parked. A
// parked worker keeps the stack it grew, so that a burst of calls does not
// grow fresh ones (with 4, runtime.newstack took a tenth of the CPU of
// 16 calls in flight over stdio, a fifth with tracing installed); 32
// parked goroutines hold a few hundred KB at most.
const maxIdleWorkers = 32

// worker serves e, then queued requests until the queue is empty, then
// parks for the next request unless enough workers are parked already.
func (c *Conn) worker(e *inflight) {
	defer c.wg.Done()
	for {
		for e != nil {
			c.serve(e)
			e = c.next()
		}
		if c.idleN.Add(1) > maxIdleWorkers {
			c.idleN.Add(-1)
			return
		}
		select {
		case e = <-c.idle:
			c.idleN.Add(-1)
		case <-c.quit:
			c.idleN.Add(-1)
			return
		}
	}
}

// next pops the next queued request still waiting, or gives up the slot.
func (c *Conn) next() *inflight {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.qhead < len(c.queue) {
		e := c.queue[c.qhead]
		c.queue[c.qhead] = nil
		c.qhead++
		if c.qhead == len(c.queue) {
			c.queue, c.qhead = c.queue[:0], 0
		}
		c.cond.Signal()
		if e.state == stQueued {
			c.qbytes -= e.cost()
			e.state = stRunning
			return e
		}
	}
	c.active--
	c.cond.Signal()
	return nil
}

// claim marks e answered; false if it was cancelled or already answered.
func (c *Conn) claim(e *inflight) bool {
	c.mu.Lock()
	ok := e.state == stRunning || e.state == stQueued
	if ok {
		if e.state == stQueued {
			c.qbytes -= e.cost()
		}
		e.state = stDone
		delete(c.inflight, e.req.ID)
		c.closeDrainedLocked(false)
	}
	c.mu.Unlock()
	return ok
}

// serve runs the handler for e and writes its response.
func (c *Conn) serve(e *inflight) {
	res, err, panicked := c.invoke(e, &e.req)
	e.stopTimer()
	if !c.claim(e) {
		e.Cancel(context.Canceled, nil)
		return
	}
	e.Cancel(context.Canceled, nil)
	if panicked {
		c.replyError(e.batch, e.req.ID, true, CodeInternalError, "internal error")
		return
	}
	if err != nil && c.timeout > 0 && e.Err() == context.DeadlineExceeded {
		// The handler gave up on our deadline before the timer's reply.
		c.replyError(e.batch, e.req.ID, true, CodeInternalError, "request timed out")
		return
	}
	if err != nil {
		re, ok := err.(*Error)
		if !ok && !errors.As(err, &re) {
			c.log.Error("jsonrpc: handler failed", "method", e.req.Method, "id", e.req.ID.String(), "error", err)
			re = errInternal
		}
		c.replyErrorObj(e.batch, e.req.ID, true, re)
		return
	}
	enc := wire.GetEncoder()
	if !c.encodeResult(enc, e, res) {
		wire.PutEncoder(enc)
		c.replyError(e.batch, e.req.ID, true, CodeInternalError, "internal error")
		return
	}
	c.reply(e.batch, enc.Bytes())
	wire.PutEncoder(enc)
}

var errInternal = &Error{Code: CodeInternalError, Message: "internal error"}

// encodeResult writes the success response for e; false if encoding the
// result panicked or failed (logged).
func (c *Conn) encodeResult(enc *wire.Encoder, e *inflight, res wire.Marshaler) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jsonrpc: encoding result panicked", "method", e.req.Method, "id", e.req.ID.String(),
				"panic", p, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	encodeResponse(enc, e.req.ID, res)
	if err := enc.Err(); err != nil {
		c.log.Error("jsonrpc: encoding result failed", "method", e.req.Method, "id", e.req.ID.String(), "error", err)
		return false
	}
	return true
}

// expire answers a request whose RequestTimeout passed.
func (c *Conn) expire(e *inflight) {
	if !c.claim(e) {
		return
	}
	e.Cancel(context.DeadlineExceeded, nil)
	c.log.Debug("jsonrpc: request timed out", "method", e.req.Method, "id", e.req.ID.String())
	c.replyError(e.batch, e.req.ID, true, CodeInternalError, "request timed out")
}

// Cancel cancels the context of the in-flight (running or queued) incoming
// request id and guarantees that no response is sent for it. It returns
// false if id is unknown, already answered or already cancelled.
func (c *Conn) Cancel(id ID) bool {
	c.mu.Lock()
	e := c.inflight[id]
	if e == nil || (e.state != stRunning && e.state != stQueued) {
		c.mu.Unlock()
		return false
	}
	if e.state == stQueued {
		c.qbytes -= e.cost()
		c.cond.Signal()
	}
	e.state = stCancelled
	delete(c.inflight, id)
	c.closeDrainedLocked(false)
	c.mu.Unlock()
	e.stopTimer()
	e.Cancel(context.Canceled, nil)
	if e.batch != nil {
		e.batch.add(nil)
	}
	return true
}
