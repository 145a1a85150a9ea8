package streamhttp

import (
	"context"
	"net/http"
	"sync"
	"time"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/internal/lazyctx"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// A Handler drains before it closes (Shutdown; Serve and ListenAndServe
// call it when their context ends): nothing it accepted is lost. While it
// drains it refuses new requests, GET streams and sessions with 503, but
// still takes the responses and notifications clients POST to their
// sessions (a request in progress may be waiting for the client's answer
// to sampling or elicitation). Listen streams end with their result, GET
// streams with a retry hint; the requests in progress finish and are
// answered. Those still running when the drain's context ends are
// answered with errDrainExpired and cancelled.

// defaultDrainTimeout is Options.DrainTimeout's default.
const defaultDrainTimeout = 5 * time.Second

var (
	errShuttingDown = jsonrpc.NewError(jsonrpc.CodeInternalError, "the server is shutting down; the request was not run")
	errDrainExpired = jsonrpc.NewError(jsonrpc.CodeInternalError, "the server shut down before the request finished")
)

// liveReq is a stateless request in progress: its response, and what
// answering it at the end of a drain or cancelling it at Close takes (one
// allocation).
type liveReq struct {
	out  reqOut
	id   jsonrpc.ID
	noID jsonrpc.NoID
	// ctx is its handler's context: the POST's, which ends when the
	// client goes away, and which cancel ends too (a drain's end, Close).
	ctx   lazyctx.Ctx
	shard *liveShard // of Handler.live, while tracked

	mu   sync.Mutex
	over bool // its ServeHTTP is returning: expire must not write
}

// expire answers the request with errDrainExpired unless its ServeHTTP is
// done with it, and cancels it.
func (lr *liveReq) expire() {
	lr.mu.Lock()
	if !lr.over {
		lr.out.final(http.StatusInternalServerError, errorBody(lr.id, true, lr.noID, errDrainExpired))
	}
	lr.mu.Unlock()
	lr.cancel()
}

// cancel ends the request's context.
func (lr *liveReq) cancel() { lr.ctx.Cancel(context.Canceled, nil) }

// track registers a stateless request in progress until untrack; after
// Close it is cancelled at once.
func (h *Handler) track(lr *liveReq) {
	h.live.add(lr)
	// Close sets closing before it lists live: a request it did not list
	// sees closing here.
	if h.closing.Load() {
		lr.cancel()
	}
}

// liveRequests lists the stateless requests in progress.
func (h *Handler) liveRequests() []*liveReq { return h.live.list() }

// liveSet is a set of requests in shards, each with its own lock, picked
// by the request's address: requests in progress at once mostly lock
// different shards, and nothing is shared to pick one.
type liveSet struct {
	shards [liveShards]liveShard
}

// liveShards is the number of shards of a liveSet.
const (
	liveShardBits = 4
	liveShards    = 1 << liveShardBits
)

// liveShard is one shard of a liveSet.
type liveShard struct {
	mu   sync.Mutex
	reqs map[*liveReq]struct{}
	_    [48]byte // one cache line each: no false sharing
}

// shardOf picks one of 2^bits shards for the record at p by its address
// (Fibonacci hashing: the top bits of the address times 2^64/φ), so that
// records in use at once mostly pick different shards and nothing is
// shared to pick one.
func shardOf[T any](p *T, bits uint) uint64 {
	return uint64(uintptr(unsafe.Pointer(p))) * 0x9E3779B97F4A7C15 >> (64 - bits)
}

// add puts lr in the shard its address hashes to (shardOf).
func (ls *liveSet) add(lr *liveReq) {
	sh := &ls.shards[shardOf(lr, liveShardBits)]
	sh.mu.Lock()
	if sh.reqs == nil {
		sh.reqs = map[*liveReq]struct{}{}
	}
	sh.reqs[lr] = struct{}{}
	sh.mu.Unlock()
	lr.shard = sh
}

// remove takes lr out of the shard add put it in.
func (ls *liveSet) remove(lr *liveReq) {
	if sh := lr.shard; sh != nil {
		sh.mu.Lock()
		delete(sh.reqs, lr)
		sh.mu.Unlock()
	}
}

// len counts the requests of every shard.
func (ls *liveSet) len() int {
	n := 0
	for i := range ls.shards {
		sh := &ls.shards[i]
		sh.mu.Lock()
		n += len(sh.reqs)
		sh.mu.Unlock()
	}
	return n
}

// list returns the requests of every shard.
func (ls *liveSet) list() []*liveReq {
	var out []*liveReq
	for i := range ls.shards {
		sh := &ls.shards[i]
		sh.mu.Lock()
		for lr := range sh.reqs {
			out = append(out, lr)
		}
		sh.mu.Unlock()
	}
	return out
}

// untrack ends what track began (by the request's ServeHTTP, before it
// returns).
func (h *Handler) untrack(lr *liveReq) {
	lr.mu.Lock()
	lr.over = true
	lr.mu.Unlock()
	h.live.remove(lr)
}

// draining reports a drain (or Close) in progress.
func (h *Handler) draining() bool { return h.stopping.Load() || h.closing.Load() }

// refuseDraining answers a request that arrived during a drain.
func (h *Handler) refuseDraining(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, hasID bool) {
	w.Header().Set("Connection", "close")
	h.writeError(w, r, http.StatusServiceUnavailable, id, hasID, errShuttingDown)
}

// Shutdown drains the handler, then closes it: it refuses new requests
// (503, -32603 "the server is shutting down"), ends the listen streams
// (they get their result) and the GET streams (after an event with the
// retry interval, on revisions that define it), and waits for the
// requests in progress, stateless and stateful, to be answered. When ctx
// ends first, each request still running is answered -32603 "the server
// shut down before the request finished" and cancelled, and Shutdown
// returns ctx.Err(). Then every session ends, as with Close.
//
// Serve and ListenAndServe call it, with Options.DrainTimeout, when their
// context ends; call it yourself when you run the http.Server, before its
// own Shutdown.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.beginDrain()
	err := h.awaitIdle(ctx)
	if err != nil {
		h.expireAll()
	}
	h.Close()
	return err
}

// beginDrain refuses what is new from now on and ends the streams that
// last: listen streams and GET streams.
func (h *Handler) beginDrain() {
	h.mu.Lock()
	if h.stopping.Load() {
		h.mu.Unlock()
		return
	}
	h.stopping.Store(true)
	h.mu.Unlock()
	h.srv.EndStreams()
	h.endStandalone()
}

// sessionsLocked lists the live sessions (h.mu held), for work done on
// each without the lock.
func (h *Handler) sessionsLocked() []*session {
	out := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		out = append(out, s)
	}
	return out
}

// busy counts the requests in progress: stateless ones and the stateful
// handlers still owing an answer, or handing it to their stream.
func (h *Handler) busy() int {
	n := h.live.len()
	h.mu.Lock()
	sessions := h.sessionsLocked()
	h.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		n += len(s.inflight) + int(s.answering.Load())
		s.mu.Unlock()
	}
	return n
}

// drainPoll is how often a drain looks whether the work is done.
const drainPoll = 5 * time.Millisecond

// awaitIdle waits until no request is in progress, or ctx ends.
func (h *Handler) awaitIdle(ctx context.Context) error {
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for h.busy() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// expireAll answers every request still in progress with errDrainExpired
// and cancels it.
func (h *Handler) expireAll() {
	live := h.liveRequests()
	h.mu.Lock()
	sessions := h.sessionsLocked()
	h.mu.Unlock()
	for _, lr := range live {
		lr.expire()
	}
	for _, s := range sessions {
		s.expireRequests()
	}
}

// expireRequests answers the session's requests in progress with
// errDrainExpired (none for those the client cancelled) and cancels them.
func (s *session) expireRequests() {
	s.mu.Lock()
	irs := make([]*inflightReq, 0, len(s.inflight))
	for key, ir := range s.inflight {
		delete(s.inflight, key)
		irs = append(irs, ir)
	}
	s.mu.Unlock()
	for _, ir := range irs {
		if ir.cancelled {
			ir.st.answer(nil)
		} else {
			s.h.log.Debug("streamhttp: request cut short by shutdown", "session", s.id, "id", ir.id.String())
			ir.st.answer(errorBody(ir.id, true, s.noID(), errDrainExpired))
		}
		ir.cancel()
	}
}

// endStream ends a GET stream at shutdown: revisions that say so
// (Protocol.RetryOnClose) tell clients to reconnect with a last event
// carrying the retry interval before the connection closes.
func (s *session) endStream(g *stream) {
	p := s.ms.Protocol()
	retry := p != nil && p.RetryOnClose
	g.mu.Lock()
	if c := g.conn; c != nil {
		if retry && c.began {
			_ = c.writeRetry(s.h.o.RetryInterval)
		}
		c.end()
		g.conn = nil
	}
	g.mu.Unlock()
}
