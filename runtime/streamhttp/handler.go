// Package streamhttp is the Streamable HTTP transport of MCP, server and
// client side, for both protocol eras on one endpoint.
//
// The server side is a Handler: an http.Handler that serves one mcp.Server
// at one endpoint (mount it at /mcp). Each POST is assigned an era on its
// own: stateless (2026-07-28 on) when the body's params._meta carries
// io.modelcontextprotocol/protocolVersion or the MCP-Protocol-Version
// header names a version the server serves statelessly (or does not know);
// stateful (2025-03-26 … 2025-11-25) otherwise, where initialize opens a
// session (Mcp-Session-Id) that later requests, the GET stream and DELETE
// name.
//
// Responses are JSON unless the request's handler sends related messages
// (progress, logs, and in stateful sessions requests to the client) before
// its result: the first such message turns the response into an SSE
// stream. Stateful SSE streams are primed with an event id and a retry
// interval, their events are kept in an EventStore, and a client whose
// stream broke resumes it with GET and Last-Event-ID.
//
// Sessions of 2025-03-26, the one revision with JSON-RPC batches, may POST
// a batch (a JSON array) of requests and notifications, or of responses;
// see Options.MaxBatchMessages. Other sessions and stateless requests get
// 400 for a batch.
//
// The client side is ClientTransport, an mcp.ClientTransport.
//
// # Stack depth
//
// A request is served on net/http's goroutine of its connection (stateless,
// and a stateful request POSTed alone) or on a parked worker (a stateful
// request of a batch or of the HTTP+SSE transport), under the engine, a
// generated decoder and the handler. Those goroutines keep an 8 KiB stack
// between requests; a request whose frames need more grows it, and a
// garbage collection halves it again while the goroutine waits, so every
// such request pays a stack copy (runtime.newstack, 1 to 3 % of the
// server's CPU when it happened). So the functions on that path keep their
// frames small: error paths and the methods other than POST are not
// inlined into them (Handler.serveOther, mcp.Exchange.Check, the wire
// decoder's errors), and a parked worker holds a reserve of stack that
// keeps its 8 KiB (workers). The whole path of an echo tools/call is about
// 5 KiB (6 for a stateful one); TestServingPathFrames in examples/hello
// keeps those frames within budgets.
package streamhttp

import (
	"container/list"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// Options configure a Handler. The zero value is usable.
type Options struct {
	// AllowedOrigins lists the Origin values accepted (scheme://host[:port];
	// "*" accepts any). Default: loopback origins (http or https,
	// localhost, 127.0.0.1 or [::1], any port). Requests without Origin
	// (non-browser clients) are always accepted. Others get 403.
	AllowedOrigins []string
	// AllowedHosts lists the Host values accepted, against DNS rebinding:
	// "name" (any port), "name:port", or "*" (any). Default: loopback
	// hosts. Others get 403. A server reachable under other names must
	// list them.
	AllowedHosts []string
	// MaxBodyBytes bounds a POST body (default 4 MiB), a batch's as a
	// whole; larger bodies get 413 and a -32600 error.
	MaxBodyBytes int64
	// BodyTimeout bounds the time a POST body takes to arrive once its
	// headers are in (default 10s): a slower body gets 408 and its
	// connection is closed, so clients trickling bodies hold no
	// descriptors. Bodies being read are checked every BodyTimeout/8 (at
	// most once a millisecond), so a late one is cut within 9/8 of
	// BodyTimeout. (ListenAndServe and Serve bound the headers: 5s.)
	BodyTimeout time.Duration
	// MaxRequestsPerClient bounds the HTTP requests of one client (see
	// ClientKey) in progress at once, GET streams and bodies still
	// arriving included (default 256); more get 429 at once, their body
	// unread and their connection closed. It bounds the connections a
	// client can keep busy.
	MaxRequestsPerClient int
	// MaxSSEPending bounds the requests of one HTTP+SSE session (see
	// SSE) in progress at once (default 32). Its POSTs are answered
	// 202 before their handlers run, so each request holds, until its
	// handler returns, a place among the session's MaxSSEPending and one
	// among its client's MaxRequestsPerClient; a POST beyond either gets
	// 429 with Retry-After, and the request is not served.
	MaxSSEPending int
	// MaxSSEPendingBytes bounds the bytes one HTTP+SSE session holds
	// (default 8 MiB): the bodies of its requests in progress and the
	// messages waiting to be written to its stream. A POST that would go
	// beyond gets 429 (a session holding nothing takes any message up to
	// MaxBodyBytes). When the messages waiting alone go beyond, the
	// client is not reading its stream: the stream is cut, and its
	// session ends, cancelling its requests in progress.
	MaxSSEPendingBytes int64
	// MaxBatchMessages bounds the messages of a JSON-RPC batch POSTed to a
	// session whose revision has batches (2025-03-26) (default 100); a
	// larger batch gets 400 and a -32600 error. Each request of a batch is
	// served concurrently, as if POSTed alone.
	MaxBatchMessages int
	// SessionIdleTimeout ends stateful sessions without requests for that
	// long (default 30 minutes); their id then gets 404.
	SessionIdleTimeout time.Duration
	// UnusedSessionTimeout ends sooner the sessions that served no request
	// after their initialize (default 1 minute, at most
	// SessionIdleTimeout).
	UnusedSessionTimeout time.Duration
	// MaxSessions bounds the stateful sessions of all clients (default
	// 10000), shared fairly: at the cap, a client under its fair share
	// (MaxSessions over the clients holding sessions) is admitted by
	// ending a session of the client holding the most; for a client at
	// its share, the least recently used session unused since its
	// initialize or idle for EvictIdleAfter ends, and without one it gets
	// 503.
	MaxSessions int
	// MaxSessionsPerClient bounds the stateful sessions of one client
	// (default 100; see ClientKey). A client at its bound that initializes
	// one more ends its own least recently used idle session; when all of
	// them are in use it gets 429.
	MaxSessionsPerClient int
	// EvictIdleAfter is how long a session that served requests after its
	// initialize must have been idle before a client at its fair share of
	// MaxSessions may end it to make room (default 1 minute).
	EvictIdleAfter time.Duration
	// ClientKey names the client a request comes from, for the session
	// and connection limits. Default: its principal when it has one (see
	// Auth), else its IP address: the remote address, or, when that is a
	// trusted proxy (TrustedProxies), the address it forwards.
	ClientKey func(r *http.Request) string
	// TrustedProxies lists the reverse proxies whose forwarded client
	// address is believed: for a request from one of them, the client is
	// the last address of ForwardedHeader that is not itself a trusted
	// proxy — the one the nearest trusted proxy appended, whatever the
	// client wrote before it. The headers of any other peer are ignored
	// (anyone can send them). Without it, every client behind a proxy is
	// the proxy, and they share its limits. See docs/security.md for the
	// rule a deployment follows (each trusted proxy appends the address
	// it received from, or the edge one overwrites the header).
	TrustedProxies []netip.Prefix
	// ForwardedHeader names the header the TrustedProxies write the
	// client's address into, the only one read: "X-Forwarded-For" (the
	// default; nginx's $proxy_add_x_forwarded_for, Envoy, most load
	// balancers) or "Forwarded" (RFC 7239, its for= parameters). A client
	// that sends the other header itself is not believed.
	ForwardedHeader string
	// EventStore keeps the events of stateful SSE streams for resumption
	// (default NewMemoryEventStore(1000, 100)).
	EventStore EventStore
	// SessionStore shares stateful sessions with other instances (nil:
	// this process only). With one, a session opened on any instance is
	// served by all, its state saved when a request changes it (and
	// refreshed while it is used; it expires SessionIdleTimeout after),
	// and DELETE ends it everywhere. Use a shared EventStore with it, so
	// that streams resume anywhere.
	SessionStore SessionStore
	// Requests records the requests of sessions shared through
	// SessionStore (see RequestLedger): a request sent again runs at most
	// once over every instance, and a stream resumed on another instance
	// ends with its responses or an error saying its request was lost.
	// Use one shared by the same instances (runtime/store/redis); one that
	// is also a SessionLedger saves a round trip per request.
	Requests RequestLedger
	// RequestLease is how long an instance holds a request it serves
	// without renewing its lease in Requests (default 10s; renewed every
	// third of it): how soon another instance may call a request lost
	// once its instance stopped.
	RequestLease time.Duration
	// Relay carries the client's responses to requests another instance
	// sent (see Relay); with a SessionStore, use one shared by the same
	// instances.
	Relay Relay
	// RetryInterval is the SSE retry field of stateful streams: how long a
	// client waits before resuming a broken stream (default 1s).
	RetryInterval time.Duration
	// KeepAlive is the interval of SSE comment pings on open streams
	// (default 15s; negative disables).
	KeepAlive time.Duration
	// StallTimeout bounds one write to a client (default 30s): a client
	// that reads nothing for that long has its response cut, and, for an
	// SSE stream, the stream (an HTTP+SSE session's stream ends its
	// session and cancels its requests in progress). A write that follows
	// the last within StallTimeout/64 keeps its deadline: a write gets at
	// least 63/64 of StallTimeout.
	StallTimeout time.Duration
	// Auth, when set, authenticates every request to the endpoint. It
	// returns the context the request is served with (carrying, say, the
	// token's claims; nil keeps the request's). An *AuthError chooses the
	// status and the WWW-Authenticate challenge; any other error is 401
	// invalid_token.
	//
	// Name the principal the request acts for in that context with
	// mcp.WithPrincipal (the token's subject, say): sessions, tasks and
	// requestState are bound to it, and another principal's requests
	// find none of them (404 for a session, -32602 for a task or a
	// requestState). When Auth names none, the principal is derived from
	// the credentials it accepted (a digest of the Authorization header):
	// what one token opened, another token cannot use, not even a
	// refreshed token of the same user.
	Auth func(r *http.Request) (context.Context, error)
	// ResourceMetadata, when set, is served at
	// /.well-known/oauth-protected-resource[/path] (RFC 9728) and named in
	// the challenges of refused requests.
	ResourceMetadata *ProtectedResourceMetadata
	// DrainTimeout bounds the drain of Shutdown when Serve or
	// ListenAndServe run it (default 5s): how long the requests in
	// progress get to finish before they are answered with an error.
	DrainTimeout time.Duration
	// Logger receives the transport's logs (default: the server's).
	Logger *slog.Logger
}

// Handler serves one mcp.Server over Streamable HTTP at one endpoint, both
// eras. Close it to end every session.
type Handler struct {
	srv   *mcp.Server
	o     Options
	log   *slog.Logger
	store EventStore
	// inst names this instance in its stream names (with a SessionStore:
	// streams of one session opened on several instances stay apart).
	inst     string
	stateful bool // a stateful revision is mounted
	// eras serve each request in the era the engine picked.
	eras [protocol.Stateless + 1]eraHandler

	base    context.Context // cancelled by Close
	cancel  context.CancelFunc
	parsers sync.Pool      // *jsonrpc.Parser, interning the server's methods
	wg      sync.WaitGroup // handlers of stateful requests
	workers *workers       // run them
	// answering, when set (by tests), runs between the end of a stateful
	// request's handler and its answer on the stream.
	answering func()

	hooks atomic.Pointer[serverHooks] // last ListenAndServe seen

	// perClient counts the requests in progress of each client
	// (MaxRequestsPerClient): an entry per client, counted without the
	// lock (busyMu is written only when a client without an entry begins
	// a request, and when past idleClientEntries one's last ends).
	busyMu    sync.RWMutex
	perClient map[requesterKey]*busyCount

	// sessionLedger: Options.Requests is a SessionLedger, which learns in
	// Begin whether another instance ended a session.
	sessionLedger bool

	// storeFailing reports a SessionStore outage in progress (logged once).
	storeFailing atomic.Bool

	// closing is set by Close and stopping when Shutdown begins (new
	// requests are refused); both are written under mu, and read without
	// it by the checks every request makes.
	closing, stopping atomic.Bool
	// live is the stateless requests in progress, apart from mu and in
	// shards: every stateless request enters and leaves it.
	live liveSet
	// bodies bounds the POST bodies being read (Options.BodyTimeout).
	bodies *bodyWatch

	mu       sync.Mutex
	sessions map[string]*session
	lru      list.List              // every session, least recently used first
	clients  map[string]*sessionSet // the sessions of each client
	janitor  *time.Timer
	// pendingDeletes are sessions ended while the store was down.
	pendingDeletes []string
}

// NewHandler returns a Handler serving srv.
func NewHandler(srv *mcp.Server, o Options) *Handler {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxBatchMessages <= 0 {
		o.MaxBatchMessages = 100
	}
	switch http.CanonicalHeaderKey(o.ForwardedHeader) {
	case "", hdrXForwardedFor:
		o.ForwardedHeader = hdrXForwardedFor
	case hdrForwarded:
		o.ForwardedHeader = hdrForwarded
	default:
		srv.Logger().Error("streamhttp: Options.ForwardedHeader names neither X-Forwarded-For nor Forwarded: no forwarded address is believed", "header", o.ForwardedHeader)
		o.TrustedProxies = nil
	}
	if o.MaxSSEPending <= 0 {
		o.MaxSSEPending = defaultMaxSSEPending
	}
	if o.MaxSSEPendingBytes <= 0 {
		o.MaxSSEPendingBytes = defaultMaxSSEPendingBytes
	}
	if o.RequestLease <= 0 {
		o.RequestLease = defaultRequestLease
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = defaultBodyTimeout
	}
	if o.MaxRequestsPerClient <= 0 {
		o.MaxRequestsPerClient = defaultMaxRequestsPerClient
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = defaultSessionIdleTimeout
	}
	if o.UnusedSessionTimeout <= 0 {
		o.UnusedSessionTimeout = defaultUnusedSessionTimeout
	}
	o.UnusedSessionTimeout = min(o.UnusedSessionTimeout, o.SessionIdleTimeout)
	if o.MaxSessions <= 0 {
		o.MaxSessions = defaultMaxSessions
	}
	if o.MaxSessionsPerClient <= 0 {
		o.MaxSessionsPerClient = defaultMaxSessionsPerClient
	}
	if o.EvictIdleAfter <= 0 {
		o.EvictIdleAfter = defaultEvictIdleAfter
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = defaultStallTimeout
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = defaultDrainTimeout
	}
	if o.Logger == nil {
		o.Logger = srv.Logger()
	}
	h := &Handler{srv: srv, o: o, log: o.Logger, store: o.EventStore, sessions: map[string]*session{}, clients: map[string]*sessionSet{}, perClient: map[requesterKey]*busyCount{}}
	_, h.sessionLedger = o.Requests.(SessionLedger)
	h.sessionLedger = h.sessionLedger && o.SessionStore != nil
	if o.SessionStore != nil {
		h.inst = instanceID() + "-"
	}
	defer h.subscribeRelay()
	if h.store == nil {
		h.store = NewMemoryEventStore(1000, 100)
	}
	// A request without a message or version is of the stateful era only
	// on a server that keeps sessions.
	h.eras = eraHandlers(h)
	bare := srv.Accept(nil, mcp.Via{})
	h.stateful = bare.Era() == protocol.Stateful
	methods := srv.Methods()
	h.parsers.New = func() any { return jsonrpc.NewParser(methods, 0) }
	if md := o.ResourceMetadata; md != nil && md.Resource == "" && slices.Contains(o.AllowedHosts, "*") {
		h.log.Warn("streamhttp: ResourceMetadata.Resource is empty and AllowedHosts accepts any host: the resource identifier is derived only from hosts the list names; set Resource")
	}
	h.bodies = newBodyWatch(o.BodyTimeout)
	h.base, h.cancel = context.WithCancel(context.Background())
	h.workers = newWorkers(h.base.Done())
	return h
}

// Server returns the server the handler serves.
func (h *Handler) Server() *mcp.Server { return h.srv }

// Close ends every session (their streams end and their requests are
// cancelled), cancels the stateless requests in progress and waits for the
// handlers of stateful requests. Requests after Close get 503. Shutdown
// drains first.
func (h *Handler) Close() error {
	h.mu.Lock()
	if h.closing.Load() {
		h.mu.Unlock()
		return nil
	}
	h.closing.Store(true)
	sessions := h.sessionsLocked()
	if h.janitor != nil {
		h.janitor.Stop()
		h.janitor = nil
	}
	h.mu.Unlock()
	// A request tracked from now on sees closing and cancels itself.
	live := h.liveRequests()
	h.cancel()
	for _, lr := range live {
		lr.cancel()
	}
	for _, s := range sessions {
		s.close()
	}
	h.wg.Wait()
	return nil
}

// SessionCount reports the live stateful sessions.
func (h *Handler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, addr, key, ok := h.guard(w, r)
	if !ok {
		return
	}
	defer h.leave(key)
	if r.Method == http.MethodPost {
		h.servePost(w, r, addr)
		return
	}
	h.serveOther(w, r, addr)
}

// serveOther serves the methods other than POST. Not inlined: its
// exchange would otherwise sit in ServeHTTP's stack frame under every
// POST's handler (a deeper stack than the goroutine's costs a stack copy
// per request; see "Stack depth" in the package doc).
//
//go:noinline
func (h *Handler) serveOther(w http.ResponseWriter, r *http.Request, addr string) {
	switch r.Method {
	case http.MethodGet:
		x := h.srv.Accept(nil, via(r, addr))
		h.eras[x.Era()].get(w, r, &x)
	case http.MethodDelete:
		x := h.srv.Accept(nil, via(r, addr))
		h.eras[x.Era()].del(w, r, &x)
	default:
		allow := "GET, POST, DELETE"
		if !h.stateful {
			allow = http.MethodPost
		}
		w.Header().Set("Allow", allow)
		h.writeError(w, r, http.StatusMethodNotAllowed, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method not allowed"))
	}
}

// guard runs the checks every request to the endpoint passes (and the
// HTTP+SSE endpoint's too): Origin, Host, the metadata document,
// shutdown, authentication (the request it returns carries the
// principal), and the client's share of requests in progress (leave key
// when done). It answers what fails itself.
func (h *Handler) guard(w http.ResponseWriter, r *http.Request) (_ *http.Request, addr string, key requesterKey, ok bool) {
	if hk, ok := r.Context().Value(hooksKey{}).(*serverHooks); ok && h.hooks.Load() != hk {
		h.hooks.Store(hk)
		hk.add(h)
	}
	// The same checks guard the endpoint and its metadata (which names the
	// endpoint, so it must not be derived from a Host nobody vetted).
	if !h.originOK(r.Header.Get("Origin")) {
		dropBody(w)
		h.writeError(w, r, http.StatusForbidden, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "forbidden: Origin %q is not allowed", r.Header.Get("Origin")))
		return nil, "", key, false
	}
	if !h.hostOK(r.Host) {
		dropBody(w)
		h.writeError(w, r, http.StatusForbidden, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "forbidden: Host %q is not allowed", r.Host))
		return nil, "", key, false
	}
	if h.o.ResourceMetadata != nil && strings.HasPrefix(r.URL.Path, wellKnownPRM) {
		h.serveMetadata(w, r)
		return nil, "", key, false
	}
	if h.isClosed() {
		dropBody(w)
		h.writeError(w, r, http.StatusServiceUnavailable, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInternalError, "the server is shutting down"))
		return nil, "", key, false
	}
	if h.o.Auth != nil {
		ctx, err := h.o.Auth(r)
		if err != nil {
			dropBody(w)
			h.challenge(w, r, err)
			return nil, "", key, false
		}
		if ctx != nil {
			r = r.WithContext(ctx)
		}
		r = withPrincipal(r)
	}
	// The client's address, read once for the limits and the engine.
	addr = h.clientAddr(r)
	key = h.requester(r, addr)
	if !h.enter(key) {
		dropBody(w)
		h.writeError(w, r, http.StatusTooManyRequests, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInternalError,
			"too many requests in progress for this client (%d)", h.o.MaxRequestsPerClient))
		return nil, "", key, false
	}
	return r, addr, key, true
}

// dropBody makes the connection of a request refused before its body was
// read close once the answer is written: net/http would otherwise read
// what is left of the body (to reuse the connection) for as long as its
// read timeout lets a client trickle it, holding a descriptor per refused
// request.
func dropBody(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

func (h *Handler) isClosed() bool { return h.closing.Load() }

// servePost reads, checks and dispatches one message or a batch.
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request, addr string) {
	rec := new(postRecord)
	body, armed, ok := h.readBody(w, r, &rec.body)
	if !ok {
		return
	}
	acc := parseAccept(r.Header.Values("Accept"))
	acc.armed = armed
	if !acc.json && !acc.sse {
		id, ok := jsonrpc.PeekID(body)
		h.writeError(w, r, http.StatusNotAcceptable, id, ok, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Accept must allow application/json or text/event-stream"))
		return
	}
	if jsonrpc.IsBatch(body) {
		h.serveBatch(w, r, body, acc, addr)
		return
	}
	msg, err := h.parse(body)
	if err != nil {
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err))
		return
	}
	if msg.Kind == jsonrpc.KindInvalid {
		h.writeError(w, r, http.StatusBadRequest, msg.ID, msg.HasID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %s", msg.Problem))
		return
	}
	// The engine reads the message once and picks its era; the header
	// rules and the serving use what it found.
	x := h.acceptInto(rec, msg, via(r, addr))
	h.eras[x.Era()].post(w, r, msg, x, acc)
}

// readBody reads a POSTed JSON body within the size and time limits
// (br is its entry in the watch of the time: bodyWatch); it answers what
// fails itself. It returns the write deadline it gave the response
// (armFirstWrite).
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, br *bodyRead) ([]byte, time.Time, bool) {
	h.bodies.start(br, w)
	var body []byte
	var err error
	if n := r.ContentLength; n >= 0 && n <= h.o.MaxBodyBytes && n <= presizedBody {
		// A small body of known length: one buffer of that size (a larger
		// one grows as it arrives, so that a length alone reserves
		// nothing).
		body = make([]byte, n)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxBodyBytes))
	}
	if h.bodies.end(br) && err == nil {
		// Cut as it arrived: its connection's read deadline is past, so
		// the body is late all the same.
		err = os.ErrDeadlineExceeded
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.writeError(w, r, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, false,
				jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the request body exceeds %d bytes", h.o.MaxBodyBytes))
			return nil, time.Time{}, false
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			w.Header().Set("Connection", "close")
			h.writeError(w, r, http.StatusRequestTimeout, jsonrpc.ID{}, false,
				jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the request body did not arrive within %s", h.o.BodyTimeout))
			return nil, time.Time{}, false
		}
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "reading the request body: %v", err))
		return nil, time.Time{}, false
	}
	armed := h.armFirstWrite(http.NewResponseController(w))
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSON(ct) {
		id, ok := jsonrpc.PeekID(body)
		h.writeError(w, r, http.StatusUnsupportedMediaType, id, ok, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Content-Type must be application/json"))
		return nil, time.Time{}, false
	}
	return body, armed, true
}

// presizedBody is the largest body read into a buffer of its declared
// length at once.
const presizedBody = 64 << 10

// isJSON reports a Content-Type of media type application/json (with
// parameters, or in another case).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// accept hands a message to the engine, which reads it and picks its era
// (a response, which has no method, only gets the era of what v says);
// v is what the transport knows of it besides (via).
func (h *Handler) accept(msg *jsonrpc.Message, v mcp.Via) *mcp.Exchange {
	return h.acceptInto(new(postRecord), msg, v)
}

// postRecord is what a POST of one message keeps while it is served: one
// allocation holds the body's entry in the watch, the request and what
// the engine read of it.
type postRecord struct {
	body bodyRead
	req  jsonrpc.Request
	x    mcp.Exchange
}

// acceptInto is accept with the record c.
func (h *Handler) acceptInto(c *postRecord, msg *jsonrpc.Message, v mcp.Via) *mcp.Exchange {
	if msg.Kind != jsonrpc.KindRequest && msg.Kind != jsonrpc.KindNotification {
		c.x = h.srv.Accept(nil, v)
		return &c.x
	}
	c.req = jsonrpc.Request{ID: msg.ID, IsNotification: msg.Kind == jsonrpc.KindNotification, Method: msg.Method, Params: msg.Params}
	c.x = h.srv.Accept(&c.req, v)
	return &c.x
}

// via is what the transport tells the engine of a message of request r
// from the client at addr besides the message.
func via(r *http.Request, addr string) mcp.Via {
	return mcp.Via{Transport: mcp.TransportHTTP, Version: strings.TrimSpace(r.Header.Get(hdrProtocolVersion)),
		Session: r.Header.Get(hdrSessionID) != "", Header: r.Header, Client: addr}
}

// accept is what an Accept header allows, and the write deadline the
// response was given after its body (armFirstWrite; zero when none was:
// see writeDeadline).
type accept struct {
	json, sse bool
	armed     time.Time
}

// parseAccept reads Accept leniently: absent (or empty) allows both.
func parseAccept(vals []string) accept {
	var a accept
	seen := false
	for _, v := range vals {
		for more := true; more; {
			var part string
			part, v, more = strings.Cut(v, ",")
			mt, _, _ := strings.Cut(part, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
			if mt == "" {
				continue
			}
			seen = true
			switch mt {
			case "*/*":
				a.json, a.sse = true, true
			case "application/*", "application/json":
				a.json = true
			case "text/*", "text/event-stream":
				a.sse = true
			}
		}
	}
	if !seen {
		return accept{json: true, sse: true}
	}
	return a
}

// originOK checks Origin against the allow-list (absent is fine).
func (h *Handler) originOK(origin string) bool {
	if origin == "" {
		return true
	}
	if h.o.AllowedOrigins == nil {
		u, err := url.Parse(origin)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopback(u.Hostname())
	}
	for _, a := range h.o.AllowedOrigins {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

// hostOK checks Host against the allow-list.
func (h *Handler) hostOK(host string) bool {
	return h.hostNamed(host) || slices.Contains(h.o.AllowedHosts, "*")
}

// hostNamed reports a Host the allow-list names (a loopback host by
// default), as opposed to one only "*" lets in: a vetted value, from which
// the resource identifier may be derived.
func (h *Handler) hostNamed(host string) bool {
	name := host
	// SplitHostPort succeeds only on a host with a colon after its last
	// ']'; on the others (a name or IPv4 address alone, "[::1]") it would
	// fail, building an error.
	if strings.LastIndexByte(host, ':') > strings.LastIndexByte(host, ']') {
		if hn, _, err := net.SplitHostPort(host); err == nil {
			name = hn
		}
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if h.o.AllowedHosts == nil {
		return isLoopback(name)
	}
	for _, a := range h.o.AllowedHosts {
		if a != "*" && (strings.EqualFold(a, host) || strings.EqualFold(strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"), name)) {
			return true
		}
	}
	return false
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	// netip parses without allocating; a zone (fe80::1%eth0) is not an IP
	// address to net.ParseIP, and is not taken here either.
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// writeJSON writes a JSON body. Its two header values share one
// allocation (Header.Set makes a slice for each); each slice's capacity
// is its length, so adding to either header copies it rather than
// writing over the other.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	vals := &[2]string{"application/json", strconv.Itoa(len(body))}
	h := w.Header()
	h["Content-Type"] = vals[0:1:1]
	h["Content-Length"] = vals[1:2:2]
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// defaultStallTimeout is the default Options.StallTimeout.
const defaultStallTimeout = 30 * time.Second

// sseHeaders starts an SSE response.
func sseHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	hd.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
}
