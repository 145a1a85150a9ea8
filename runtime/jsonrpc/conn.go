package jsonrpc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A Conn's life: its options, how it is made, the read loop (Serve) and
// Close. What it does with each message is in dispatch.go (incoming
// requests and notifications), reply.go (the answers) and outbound.go (its
// own calls); drain.go is how it ends.

// Options configures a Conn. The zero value is usable.
type Options struct {
	// MaxConcurrent is the number of requests handled at once (default 64).
	MaxConcurrent int
	// MaxQueued is the number of further requests that may wait for a free
	// slot while the read loop goes on reading (so that notifications, among
	// them cancellations, still get through). Default 256; a negative value
	// means no queue: reading pauses as soon as every slot is busy.
	MaxQueued int
	// MaxQueuedBytes lets more requests wait once MaxQueued do, as long as
	// the waiting requests take at most this many bytes in all (their
	// params plus a fixed overhead each), so that a peer that pipelines
	// many small requests can still ping, cancel what it queued and answer
	// the server's requests: those are never queued. Past both bounds the
	// read loop waits for room, which pushes back on the peer. Default
	// 4 MiB; negative: no such allowance (reading pauses at MaxQueued).
	MaxQueuedBytes int
	// MaxDepth limits the nesting of incoming JSON (default
	// wire.DefaultMaxDepth); deeper messages are answered -32700.
	MaxDepth int
	// Logger receives handler errors and panics (level Error) and protocol
	// noise (level Debug). Default: discard.
	Logger *slog.Logger
	// RequestTimeout, when positive, bounds each request: on expiry its
	// context is cancelled and -32603 "request timed out" is sent at once,
	// whatever the handler later returns.
	RequestTimeout time.Duration
	// DrainTimeout bounds the drain that follows the end of the stream and
	// the end of Serve's context: requests already read (running or
	// queued) go on and are answered, for at most this long; then the ones
	// left are cancelled and each is still answered, -32603 "the server
	// shut down before the request finished". Default 5s. Negative: no
	// drain, requests still running are cancelled and never answered (the
	// behaviour before drains existed).
	DrainTimeout time.Duration
	// OnDrain, when set, is called once when a drain begins (on its own
	// goroutine), for the layer above to end long-lived requests such as
	// subscription streams that would otherwise hold the drain to its
	// timeout.
	OnDrain func()
	// OnUnknownResponse is called (on the read loop) for a response whose id
	// matches no pending Call: unknown, already answered, or abandoned by a
	// cancelled Call. A response with a null or missing id passes the zero
	// ID. Default: log at debug level.
	OnUnknownResponse func(id ID)
	// NoID is how an error response that cannot name its request writes
	// its id (default NullID, as JSON-RPC 2.0 says); see also SetNoID.
	NoID NoID
}

const (
	defaultMaxConcurrent  = 64
	defaultMaxQueued      = 256
	defaultMaxQueuedBytes = 4 << 20
	defaultDrainTimeout   = 5 * time.Second
	// queuedOverhead is what one waiting request counts against
	// MaxQueuedBytes besides its params: its record and context.
	queuedOverhead = 512
)

// Errors the engine answers on its own while it shuts down.
var (
	errShuttingDown = &Error{Code: CodeInternalError, Message: "the server is shutting down; the request was not run"}
	errDrainExpired = &Error{Code: CodeInternalError, Message: "the server shut down before the request finished"}
)

// Conn is one JSON-RPC 2.0 connection: it serves incoming requests with a
// Handler and sends its own requests and notifications to the peer.
type Conn struct {
	stream    Stream
	pwriter   PostingStream // stream, when it posts; else nil
	handler   Handler
	inline    Inliner // handler, when it serves some requests inline
	log       *slog.Logger
	maxConc   int
	maxQueued int
	maxQBytes int
	timeout   time.Duration
	drainFor  time.Duration // < 0: no drain
	onDrain   func()
	onUnknown func(ID)
	batch     atomic.Bool
	noID      atomic.Uint32 // a NoID

	// Used by the read loop only.
	parser *Parser
	msg    Message
	rdec   wire.Decoder // results of Calls

	// base is the parent of handler contexts: Serve's context without its
	// cancellation (the Conn cancels handlers itself). notifyCtx is the
	// context of notification handlers.
	base      context.Context
	notifyCtx context.Context
	readCtx   context.Context // Serve's, cancelled by Close

	wmu sync.Mutex // serializes writes to a stream that does not post

	mu       sync.Mutex
	cond     sync.Cond // signalled when the queue shrinks
	inflight map[ID]*inflight
	active   int         // goroutines running handlers
	queue    []*inflight // requests waiting for a slot, FIFO from qhead
	qhead    int
	qbytes   int // what the waiting requests count against MaxQueuedBytes
	stopping bool
	// draining is set when a drain begins: requests read from then on are
	// refused, and drained is closed once none is in flight.
	draining   bool
	drained    chan struct{}
	drainTimer *time.Timer
	wg         sync.WaitGroup // handler goroutines
	idle       chan *inflight // hands requests to parked workers
	idleN      atomic.Int32   // parked workers
	quit       chan struct{}  // closed by shutdown: parked workers exit

	// Requests served on the reading goroutine of a PushStream
	// (serveOnReader): pstream is the stream; onReader, under mu, the
	// request that goroutine runs (nil: none, or reading was handed on);
	// handTimer hands reading on (handOff) when the handler runs longer
	// than handOffAfter.
	pstream   PushStream
	onReader  *inflight
	handTimer *time.Timer
	// afterInline reports that the reading goroutine served the last
	// request; inlineSkip counts the requests still to go to workers
	// (readerMayServe). Under mu.
	afterInline bool
	inlineSkip  int

	calls  Calls       // the Conn's own requests waiting for responses
	closed atomic.Bool // no more Calls: Close was called or Serve returned

	smu         sync.Mutex
	serving     bool
	isClosed    bool
	cancelServe context.CancelFunc
}

// NewConn returns a Conn that serves h over s once Serve is called. h may be
// nil for a Conn that only makes calls (incoming requests are then answered
// with -32601).
func NewConn(s Stream, h Handler, o Options) *Conn {
	c := &Conn{
		stream:    s,
		handler:   h,
		log:       o.Logger,
		maxConc:   o.MaxConcurrent,
		maxQueued: o.MaxQueued,
		maxQBytes: o.MaxQueuedBytes,
		timeout:   o.RequestTimeout,
		drainFor:  o.DrainTimeout,
		onDrain:   o.OnDrain,
		drained:   make(chan struct{}),
		onUnknown: o.OnUnknownResponse,
		inflight:  make(map[ID]*inflight),
		idle:      make(chan *inflight),
		quit:      make(chan struct{}),
		base:      context.Background(),
		readCtx:   context.Background(),
	}
	c.cond.L = &c.mu
	c.pwriter, _ = s.(PostingStream)
	c.pstream, _ = s.(PushStream)
	c.inline, _ = h.(Inliner)
	if c.handler == nil {
		c.handler = HandlerFunc(func(_ context.Context, r *Request) (wire.Marshaler, error) {
			return nil, MethodNotFound(r.Method)
		})
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.maxConc <= 0 {
		c.maxConc = defaultMaxConcurrent
	}
	switch {
	case c.maxQueued == 0:
		c.maxQueued = defaultMaxQueued
	case c.maxQueued < 0:
		c.maxQueued, c.maxQBytes = 0, -1
	}
	switch {
	case c.maxQBytes == 0:
		c.maxQBytes = defaultMaxQueuedBytes
	case c.maxQBytes < 0:
		c.maxQBytes = 0
	}
	if c.drainFor == 0 {
		c.drainFor = defaultDrainTimeout
	}
	c.rdec.SetMaxDepth(o.MaxDepth)
	var methods []string
	if ml, ok := h.(MethodLister); ok {
		methods = ml.Methods()
	}
	c.parser = NewParser(methods, o.MaxDepth)
	c.noID.Store(uint32(o.NoID))
	c.notifyCtx = context.WithValue(c.base, connKey, c)
	return c
}

// SetBatch enables or disables JSON-RPC batches (a top-level array of
// messages; MCP 2025-03-26 has them). When disabled, the default, an array
// is answered -32600 "batch requests are not supported".
func (c *Conn) SetBatch(enabled bool) { c.batch.Store(enabled) }

// SetNoID sets how error responses that cannot name their request write
// their id (see NoID): MCP sets the rule of the revision a connection
// negotiated.
func (c *Conn) SetNoID(n NoID) { c.noID.Store(uint32(n)) }

// Serve reads and dispatches messages until the stream ends, ctx is done or
// Close is called. It returns nil at io.EOF or after Close, ctx.Err() when
// ctx is done, and the read error otherwise; ErrClosed if the Conn was
// closed before. Serve may be called once.
//
// The end of the stream and the end of ctx both drain the connection (see
// Options.DrainTimeout): the requests already read are run and answered,
// within the drain timeout, before Serve returns. At the end of the stream
// the peer can no longer answer, so pending Calls fail with ErrClosed at
// once; when ctx ends first, reading goes on during the drain (responses
// to pending Calls and cancellations still arrive) while new requests are
// refused. Close ends everything at once, without answers.
//
// On return, every handler context has been cancelled and every handler
// goroutine has finished, and pending Calls have failed with ErrClosed.
func (c *Conn) Serve(ctx context.Context) error {
	c.smu.Lock()
	switch {
	case c.isClosed:
		c.smu.Unlock()
		return ErrClosed
	case c.serving:
		c.smu.Unlock()
		return errors.New("jsonrpc: Serve called twice")
	}
	c.serving = true
	// Reading ends with Close, or when a drain that ctx began is over; ctx
	// itself only begins the drain (or, without drains, ends reading).
	rctx, stopReading := context.WithCancel(context.WithoutCancel(ctx))
	c.cancelServe = stopReading
	c.base = &detached{ctx}
	c.notifyCtx = context.WithValue(c.base, connKey, c)
	c.readCtx = rctx
	c.smu.Unlock()
	defer stopReading()
	// Wake the read loop should it wait for room in the queue, or have
	// another goroutine take reading over should it run a handler: the
	// stream is to report the end of reading now.
	defer context.AfterFunc(rctx, func() {
		c.handOff()
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})()
	defer context.AfterFunc(ctx, func() {
		if c.drainFor < 0 {
			stopReading()
			return
		}
		c.beginDrain()
		go func() {
			c.awaitDrain()
			stopReading()
		}()
	})()

	var err error
	if ps, ok := c.stream.(PushStream); ok {
		err = ps.ReadMessages(rctx, func(msg []byte, rerr error) {
			if rerr != nil {
				c.replyError(nil, ID{}, false, CodeInvalidRequest, "message too large")
				return
			}
			c.handleMessage(msg)
		})
	} else {
		for {
			msg, rerr := c.stream.ReadMessage(rctx)
			if rerr != nil {
				var tl *TooLargeError
				if errors.As(rerr, &tl) {
					c.replyError(nil, ID{}, false, CodeInvalidRequest, "message too large")
					continue
				}
				err = rerr
				break
			}
			c.handleMessage(msg)
		}
	}
	c.smu.Lock()
	closed := c.isClosed
	c.smu.Unlock()
	if !closed && c.drainFor >= 0 && (errors.Is(err, io.EOF) || ctx.Err() != nil) {
		// Nothing more is read: no response to a Call can arrive.
		c.failCalls()
		c.beginDrain()
		c.awaitDrain()
	}
	c.shutdown()
	if c.pwriter != nil && !closed {
		// Responses posted during the drain may still be on their way.
		if ferr := c.pwriter.Flush(); ferr != nil {
			c.log.Debug("jsonrpc: writing responses failed", "error", ferr)
		}
	}

	switch {
	case errors.Is(err, io.EOF), closed:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}

// Close closes the stream and makes Serve return; pending Calls fail with
// ErrClosed. It does not drain: requests still running are cancelled and
// not answered. It does not wait for Serve to return (so a handler may
// call it). Closing twice returns nil.
func (c *Conn) Close() error {
	c.smu.Lock()
	if c.isClosed {
		c.smu.Unlock()
		return nil
	}
	c.isClosed = true
	cancel := c.cancelServe
	c.smu.Unlock()
	if cancel != nil {
		cancel()
	}
	err := c.stream.Close()
	c.failCalls()
	// A drain in progress ends now (shutdown cancels what is left).
	c.mu.Lock()
	c.closeDrainedLocked(true)
	c.mu.Unlock()
	return err
}
