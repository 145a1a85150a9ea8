package streamhttp

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// bodyWatch bounds the time POST bodies take to arrive
// (Options.BodyTimeout) without a runtime timer per request.
//
// A read deadline armed before each body and lifted after it costs two
// timer operations per request, and a timer added to a processor's empty
// heap wakes a parked thread (the runtime's wakeNetPoller): behind a real
// server that was a measurable part of a small request's cost (see
// "Deadlines" in docs/design.md). Instead each body read enters a set,
// stamped with the watch's tick count; one timer ticks every
// BodyTimeout/8 while the set is not empty (none runs when no body is
// being read), and cuts the reads that entered more than eight ticks
// before by giving their connection a read deadline in the past. A body is
// cut between BodyTimeout and 9/8 of it (later when the timer runs late).
//
// The set is in shards, each with its own lock (as liveSet): a read enters
// and leaves its shard's list without an allocation (its bodyRead lives in
// the request's record).
type bodyWatch struct {
	tick  time.Duration
	ticks int64 // the limit in ticks

	epoch   atomic.Int64 // ticks so far
	ticking atomic.Bool  // the timer is armed (or its function running)
	mu      sync.Mutex   // guards timer
	timer   *time.Timer
	// The fields above are read by every request and written once a tick:
	// a cache line of their own, apart from the shards every request
	// writes.
	_ [16]byte

	shards [watchShards]watchShard
}

// watchShards is the number of shards of a bodyWatch.
const (
	watchShardBits = 3
	watchShards    = 1 << watchShardBits
)

// watchShard is one shard of a bodyWatch: a list of reads.
type watchShard struct {
	mu   sync.Mutex
	head *bodyRead
	_    [48]byte // one cache line each: no false sharing
}

// bodyRead is one body being read: an entry of a bodyWatch, guarded by its
// shard's lock.
type bodyRead struct {
	prev, next *bodyRead
	w          http.ResponseWriter
	epoch      int64 // the watch's tick count when the read began
	cut        bool  // the watch gave the read a deadline in the past
}

// bodyWatchTicks is the number of ticks in a limit.
const bodyWatchTicks = 8

// minBodyWatchTick is the shortest tick (a tiny BodyTimeout ticks no
// faster).
const minBodyWatchTick = time.Millisecond

func newBodyWatch(limit time.Duration) *bodyWatch {
	tick := max(limit/bodyWatchTicks, minBodyWatchTick)
	return &bodyWatch{tick: tick, ticks: int64((limit + tick - 1) / tick)}
}

// shard is the shard of br (by its address: shardOf).
func (bw *bodyWatch) shard(br *bodyRead) *watchShard {
	return &bw.shards[shardOf(br, watchShardBits)]
}

// start enters the read of the body of the request w answers; end it
// when the read returns.
func (bw *bodyWatch) start(br *bodyRead, w http.ResponseWriter) {
	br.w, br.epoch, br.cut, br.prev = w, bw.epoch.Load(), false, nil
	sh := bw.shard(br)
	sh.mu.Lock()
	br.next = sh.head
	if sh.head != nil {
		sh.head.prev = br
	}
	sh.head = br
	sh.mu.Unlock()
	if !bw.ticking.Load() {
		bw.startTicking()
	}
}

// end takes the read out of the watch; it reports whether the watch cut
// it (its connection's read deadline is in the past: the body counts as
// late even when the read returned it).
func (bw *bodyWatch) end(br *bodyRead) bool {
	sh := bw.shard(br)
	sh.mu.Lock()
	if br.prev != nil {
		br.prev.next = br.next
	} else {
		sh.head = br.next
	}
	if br.next != nil {
		br.next.prev = br.prev
	}
	cut := br.cut
	br.prev, br.next, br.w = nil, nil, nil
	sh.mu.Unlock()
	return cut
}

// startTicking arms the timer unless it is armed.
func (bw *bodyWatch) startTicking() {
	if !bw.ticking.CompareAndSwap(false, true) {
		return
	}
	bw.mu.Lock()
	if bw.timer == nil {
		bw.timer = time.AfterFunc(bw.tick, bw.check)
	} else {
		bw.timer.Reset(bw.tick)
	}
	bw.mu.Unlock()
}

// aLongTimeAgo is a deadline in the past: it ends a blocked read at once.
var aLongTimeAgo = time.Unix(1, 0)

// check is a tick: it cuts the reads past the limit, and ticks again
// while any read is in the set.
func (bw *bodyWatch) check() {
	if bw.sweep(bw.epoch.Add(1)) {
		bw.mu.Lock()
		bw.timer.Reset(bw.tick)
		bw.mu.Unlock()
		return
	}
	bw.ticking.Store(false)
	// A read that entered after its shard was swept saw the timer armed:
	// arm it for that one.
	if bw.waiting() {
		bw.startTicking()
	}
}

// sweep cuts the reads that entered more than the limit's ticks before
// tick now, and reports whether any read is in the set. A cut read's
// response is still its handler's (the shard's lock keeps the handler in
// readBody, before end), so its controller may be used.
func (bw *bodyWatch) sweep(now int64) bool {
	any := false
	for i := range bw.shards {
		sh := &bw.shards[i]
		sh.mu.Lock()
		for br := sh.head; br != nil; br = br.next {
			any = true
			if !br.cut && now-br.epoch > bw.ticks {
				br.cut = true
				_ = http.NewResponseController(br.w).SetReadDeadline(aLongTimeAgo)
			}
		}
		sh.mu.Unlock()
	}
	return any
}

// waiting reports whether any read is in the set.
func (bw *bodyWatch) waiting() bool {
	for i := range bw.shards {
		sh := &bw.shards[i]
		sh.mu.Lock()
		any := sh.head != nil
		sh.mu.Unlock()
		if any {
			return true
		}
	}
	return false
}

// armFirstWrite gives the first write of a response StallTimeout (and
// lifts any write deadline of the server's, its WriteTimeout, which would
// cut a long response short); the writes that come later set their own
// deadline (writeDeadline). It returns the deadline. The read deadline
// needs no lifting (a server's ReadTimeout would cancel the request's
// context of a long handler): net/http lifts it itself when the body has
// been read to its end, as it starts watching the connection for the
// client going away (TestServerReadTimeout).
func (h *Handler) armFirstWrite(rc *http.ResponseController) time.Time {
	at := time.Now().Add(h.o.StallTimeout)
	_ = rc.SetWriteDeadline(at)
	return at
}

// writeDeadline is the write deadline of a response, which each write
// renews to StallTimeout (arm) unless it was set within StallTimeout/64
// before: a small response written right after its body was read
// (armFirstWrite) costs one timer operation, not two, and a write gets
// at least 63/64 of StallTimeout.
type writeDeadline struct{ at time.Time }

// arm gives the next write rc's response takes stall (see writeDeadline).
func (d *writeDeadline) arm(rc *http.ResponseController, stall time.Duration) {
	if !d.at.IsZero() && time.Until(d.at) > stall-stall/64 {
		return
	}
	d.at = time.Now().Add(stall)
	_ = rc.SetWriteDeadline(d.at)
}
