package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ClientTransport is the client side of Streamable HTTP: an
// mcp.ClientTransport for the MCP endpoint at URL, in either era.
//
// Stateful (after initialize): the conn keeps the Mcp-Session-Id, reads
// JSON or SSE responses, hands the server's notifications and requests to
// the handler and POSTs its responses back, opens the GET stream once the
// session is initialized, resumes broken SSE streams with GET and
// Last-Event-ID after the server's retry interval, and DELETEs the session
// on Close. It never sends batches, but takes the server's: a JSON array of
// messages in a response body or an SSE event (2025-03-26) is dispatched
// element by element. Stateless: every POST carries MCP-Protocol-Version,
// Mcp-Method, Mcp-Name and the Mcp-Param-* headers of the tool's
// x-mcp-header annotations (learned from the tools/list results that pass
// through the conn, which leave out the tools whose annotations are
// invalid); cancelling a call's context aborts its POST, which
// cancels it.
type ClientTransport struct {
	// URL is the MCP endpoint ("http://127.0.0.1:8080/mcp").
	URL string
	// HTTPClient sends the requests (default http.DefaultClient). Its
	// Timeout must be 0 for long calls and the GET stream.
	HTTPClient *http.Client
	// Header is added to every request (Authorization, say).
	Header http.Header
	// MaxRetries bounds the attempts to resume a broken SSE stream (and to
	// reopen the GET stream) without progress (default 3; negative: none).
	MaxRetries int
	// Logger receives the transport's warnings, such as a tool excluded
	// from tools/list for an invalid x-mcp-header annotation (default:
	// discard).
	Logger *slog.Logger
	// SSE says when to speak the HTTP+SSE transport of 2024-11-05
	// instead (default SSEFallback: when a server refuses initialize).
	SSE SSEMode
}

// HTTPError is an HTTP response that carries no JSON-RPC answer.
type HTTPError struct {
	Status int
	Body   string // the start of the body
}

// Error implements error.
func (e *HTTPError) Error() string {
	s := "streamhttp: HTTP " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// ErrSessionExpired is returned when the server no longer knows the
// session (404): the client must initialize a new one.
var ErrSessionExpired = errors.New("streamhttp: the session expired or was ended (404): initialize a new session")

// maxMessage bounds a message the client reads.
const maxMessage = 64 << 20

// TransportName names the transport to middleware (mcp.TransportHTTP).
func (t *ClientTransport) TransportName() string { return mcp.TransportHTTP }

// Dial implements mcp.ClientTransport. It makes no request: the first is
// the session's initialize or server/discover.
func (t *ClientTransport) Dial(_ context.Context, h jsonrpc.Handler) (mcp.ClientConn, error) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("streamhttp: bad endpoint URL %q", t.URL)
	}
	c := &clientConn{
		url:     t.URL,
		client:  t.HTTPClient,
		header:  t.Header.Clone(),
		h:       h,
		retries: t.MaxRetries,
		log:     t.Logger,
		era:     sessionClient{},
		serving: map[string]context.CancelFunc{},
		tools:   map[string][]mcpheader.Param{},
		httpSSE: sseState{mode: t.SSE},
	}
	if c.client == nil {
		c.client = http.DefaultClient
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.retries == 0 {
		c.retries = 3
	} else if c.retries < 0 {
		c.retries = 0
	}
	if c.h == nil {
		c.h = jsonrpc.HandlerFunc(func(_ context.Context, r *jsonrpc.Request) (wire.Marshaler, error) {
			return nil, jsonrpc.MethodNotFound(r.Method)
		})
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// clientConn is one connection of a ClientTransport.
type clientConn struct {
	url     string
	client  *http.Client
	header  http.Header
	h       jsonrpc.Handler
	retries int
	log     *slog.Logger
	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	calls jsonrpc.Calls // the conn's requests waiting for responses

	mu        sync.Mutex
	proto     *protocol.Protocol // the revision spoken; nil before negotiation
	version   string
	era       clientEra // the session's, learned once it is negotiated
	sessionID string
	closed    bool
	listening bool
	serving   map[string]context.CancelFunc // the server's requests being handled
	tools     map[string][]mcpheader.Param  // x-mcp-header annotations by tool
	httpSSE   sseState                      // the HTTP+SSE transport (sseclient.go)
}

var _ mcp.Negotiator = (*clientConn)(nil)

// Negotiated implements mcp.Negotiator. nil (a stateful open beginning,
// perhaps after a failed stateless probe) forgets the version and the
// session: initialize carries neither.
func (c *clientConn) Negotiated(p *protocol.Protocol) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.proto = p
	if p == nil {
		c.era, c.version, c.sessionID = sessionClient{}, "", ""
		return
	}
	c.version, c.era = p.Revision, clientEras[p.Era]
}

// sessionEra is the era the conn speaks.
func (c *clientConn) sessionEra() clientEra {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.era
}

// Opened implements mcp.Negotiator: the session is open; a stateful
// session's conn opens its GET stream.
func (c *clientConn) Opened(ctx context.Context) { c.sessionEra().opened(ctx, c) }

var _ mcp.AbortCanceller = (*clientConn)(nil)

// AbortCancels implements mcp.AbortCanceller: a stateless request is
// cancelled by closing its POST, which cancels the server's handler.
func (c *clientConn) AbortCancels() bool { return c.sessionEra().abortCancels() }

// headers builds the headers of a POST of body (a message with method;
// "" for a response).
func (c *clientConn) headers(method string, body []byte) http.Header {
	hd := c.header.Clone()
	if hd == nil {
		hd = http.Header{}
	}
	hd.Set("Content-Type", "application/json")
	hd.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	version, era := c.version, c.era
	c.mu.Unlock()
	if version != "" {
		hd.Set(hdrProtocolVersion, version)
	}
	era.headers(c, hd, method, body)
	return hd
}

// paramHeaders are the x-mcp-header annotations of a tool, as learned
// from tools/list.
func (c *clientConn) paramHeaders(tool string) []mcpheader.Param {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[tool]
}

// vetTools records the x-mcp-header annotations of a tools/list result
// and, on the stateless era, returns the result without the tools whose
// annotations break the specification's constraints (empty or non-token
// names, duplicates, non-primitive or non-integer types, annotations not
// reachable through "properties" alone): a client on Streamable HTTP must
// exclude them, so one bad definition does not stop the others being
// used. Each exclusion is logged as a warning naming the tool and why.
func (c *clientConn) vetTools(result wire.Raw) wire.Raw {
	tools, ok := wire.MemberOf(result, "tools")
	if !ok || tools.Kind() != wire.Array {
		return result
	}
	vets := c.sessionEra().vetsTools()
	var kept []wire.Raw
	dropped := false
	d := wire.NewDecoder(tools)
	d.SetShared(true)
	if err := d.Array(func() error {
		tool, err := d.Raw()
		if err != nil {
			return err
		}
		name, _ := stringMember(tool, "name")
		schema, _ := wire.MemberOf(tool, "inputSchema")
		phs, err := mcpheader.Params(schema)
		c.mu.Lock()
		if err != nil || len(phs) == 0 {
			delete(c.tools, name)
		} else {
			c.tools[name] = phs
		}
		c.mu.Unlock()
		if err != nil && vets {
			c.log.Warn("streamhttp: excluding a tool with an invalid x-mcp-header annotation from tools/list", "tool", name, "err", err)
			dropped = true
			return nil
		}
		kept = append(kept, tool)
		return nil
	}); err != nil || !dropped {
		return result
	}
	return replaceMember(result, "tools", func(e *wire.Encoder) {
		e.ArrayStart()
		for _, t := range kept {
			e.Raw(t)
		}
		e.ArrayEnd()
	})
}

// replaceMember re-encodes the object obj with the value of its member name
// written by value (as its last member); the other members are kept.
func replaceMember(obj wire.Raw, name string, value func(*wire.Encoder)) wire.Raw {
	var e wire.Encoder
	e.ObjectStart()
	if _, err := wire.CopyMembers(&e, obj, name); err != nil {
		return obj
	}
	e.Field(name)
	value(&e)
	e.ObjectEnd()
	if e.Err() != nil {
		return obj
	}
	return wire.Raw(e.Bytes())
}

// do sends one HTTP request; it is aborted by ctx and by Close.
func (c *clientConn) do(ctx context.Context, method string, body []byte, hd http.Header) (*http.Response, context.CancelFunc, error) {
	rctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	done := func() { stop(); cancel() }
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, c.url, rd)
	if err != nil {
		done()
		return nil, nil, err
	}
	req.Header = hd
	resp, err := c.client.Do(req)
	if err != nil {
		done()
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case c.ctx.Err() != nil:
			return nil, nil, jsonrpc.ErrClosed
		}
		return nil, nil, err
	}
	return resp, done, nil
}

// CallWithID implements mcp.ClientConn.
func (c *clientConn) CallWithID(ctx context.Context, method string, params wire.Marshaler, result wire.Into, onID func(jsonrpc.ID)) error {
	c.mu.Lock()
	closed, p := c.closed, c.proto
	c.mu.Unlock()
	if closed {
		return jsonrpc.ErrClosed
	}
	// A tools/list result is vetted (and its annotations learned) before
	// it is decoded.
	var raw wire.Raw
	out := result
	vet := p != nil && protocol.RoleOf(p, method) == protocol.RoleToolsList
	if vet {
		out = raw.Into()
	}
	pc, err := c.calls.Start(out)
	if err != nil {
		return err
	}
	id := pc.ID()
	if onID != nil {
		onID(id)
	}
	body, err := jsonrpc.AppendRequest(nil, id, method, params)
	if err == nil {
		err = c.send(ctx, method, body, pc)
	}
	if err != nil {
		c.calls.Abandon(pc)
		return err
	}
	var answered bool
	if c.speaksSSE() {
		// The answer comes on the stream, when it comes.
		err, answered = c.calls.Wait(ctx, pc), true
	} else {
		err, answered = c.calls.Poll(pc)
	}
	if !answered {
		return errors.New("streamhttp: the server ended the response without answering " + method)
	}
	if err != nil || !vet {
		return err
	}
	raw = c.vetTools(raw)
	if result.Decode != nil {
		return wire.UnmarshalSharedWith(raw, result.Decode) // the message owns its bytes
	}
	return nil
}

// exchange POSTs a request and reads its answer (JSON, or an SSE stream
// resumed as needed), routing every message it carries.
func (c *clientConn) exchange(ctx context.Context, method string, body []byte, pc *jsonrpc.Pending) error {
	resp, done, err := c.do(ctx, http.MethodPost, body, c.headers(method, body))
	if err != nil {
		return err
	}
	defer done()
	defer resp.Body.Close()
	c.mu.Lock()
	opening := c.proto == nil
	c.mu.Unlock()
	if c.sseRefusal(method, resp.StatusCode) {
		return &sseFallback{c.checkStatus(resp)}
	}
	if opening && resp.StatusCode/100 == 2 {
		// The answer to initialize names the session.
		if sid := resp.Header.Get(hdrSessionID); sid != "" {
			c.mu.Lock()
			c.sessionID = sid
			c.mu.Unlock()
		}
	}
	if err := c.checkStatus(resp); err != nil {
		return err
	}
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		return errors.New("streamhttp: the server accepted " + method + " without answering it")
	}
	if isSSE(resp) {
		return c.readResponseStream(ctx, resp.Body, pc)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
	if err != nil {
		return err
	}
	// One response, or (2025-03-26) a batch that holds it.
	msgs, err := jsonrpc.ParseMessages(b)
	responses := 0
	for _, m := range msgs {
		if m.Kind == jsonrpc.KindResponse {
			responses++
		}
	}
	if err != nil || responses == 0 {
		return fmt.Errorf("streamhttp: the answer to %s is not a JSON-RPC response", method)
	}
	for _, m := range msgs {
		if m.Kind != jsonrpc.KindInvalid {
			c.dispatch(m)
		}
	}
	return nil
}

// checkStatus turns a failed response into an error: the JSON-RPC error
// its body carries, ErrSessionExpired, or an *HTTPError.
func (c *clientConn) checkStatus(resp *http.Response) error {
	if resp.StatusCode/100 == 2 {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var je *jsonrpc.Error
	if msgs, err := jsonrpc.ParseMessages(b); err == nil {
		for _, m := range msgs {
			if m.Kind == jsonrpc.KindResponse && m.Error != nil {
				je = m.Error
				break
			}
		}
	}
	if c.sessionEra().sessionOver(c, resp.StatusCode) {
		if je != nil {
			return fmt.Errorf("%w (%w)", ErrSessionExpired, je)
		}
		return ErrSessionExpired
	}
	if je != nil {
		return je
	}
	text := strings.TrimSpace(string(b))
	if len(text) > 200 {
		text = text[:200]
	}
	return &HTTPError{Status: resp.StatusCode, Body: text}
}

func isSSE(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// readResponseStream reads the SSE answer of a request until the response
// arrives, resuming the stream (stateful) when it breaks first.
func (c *clientConn) readResponseStream(ctx context.Context, body io.Reader, pc *jsonrpc.Pending) error {
	answered := pc.Answered
	lastID, retry := "", time.Second
	failures := 0
	closeCur := func() {}
	defer func() { closeCur() }()
	for {
		progress, err := c.consume(body, &lastID, &retry, answered)
		closeCur()
		closeCur = func() {}
		if answered() {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.ctx.Err() != nil {
			return jsonrpc.ErrClosed
		}
		if progress {
			failures = 0
		}
		if !c.sessionEra().resumes() || lastID == "" || failures >= c.retries {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("streamhttp: the response stream ended without the response: %w", err)
		}
		failures++
		if err := sleep(ctx, c.ctx, retry); err != nil {
			return err
		}
		resp, done, err := c.resume(ctx, lastID)
		if err != nil {
			var he *HTTPError
			var je *jsonrpc.Error
			if errors.As(err, &he) || errors.As(err, &je) || errors.Is(err, ErrSessionExpired) {
				return err
			}
			body = strings.NewReader("")
			continue
		}
		body = resp.Body
		closeCur = func() { resp.Body.Close(); done() }
	}
}

// resume reopens a stream with GET and Last-Event-ID.
func (c *clientConn) resume(ctx context.Context, lastID string) (*http.Response, context.CancelFunc, error) {
	hd := c.headers("", nil)
	hd.Del("Content-Type")
	hd.Set("Accept", "text/event-stream")
	hd.Set(hdrLastEventID, lastID)
	resp, done, err := c.do(ctx, http.MethodGet, nil, hd)
	if err != nil {
		return nil, nil, err
	}
	if err := c.checkStatus(resp); err != nil {
		resp.Body.Close()
		done()
		return nil, nil, err
	}
	if !isSSE(resp) {
		resp.Body.Close()
		done()
		return nil, nil, errors.New("streamhttp: the resumed stream is not SSE")
	}
	return resp, done, nil
}

// consume reads events, routing their messages, until the stream ends or
// stop says so. progress reports that at least one event came.
func (c *clientConn) consume(body io.Reader, lastID *string, retry *time.Duration, stop func() bool) (progress bool, err error) {
	rd := newSSEReader(body, maxMessage)
	for {
		ev, err := rd.next()
		if err != nil {
			return progress, err
		}
		progress = true
		if ev.hasID {
			*lastID = ev.id
		}
		if ev.hasRetry {
			*retry = ev.retry
		}
		if len(bytes.TrimSpace(ev.data)) > 0 {
			// One message, or (2025-03-26) a batch of them.
			msgs, _ := jsonrpc.ParseMessages(ev.data)
			for _, m := range msgs {
				if m.Kind != jsonrpc.KindInvalid {
					c.dispatch(m)
				}
			}
		}
		if stop() {
			return progress, nil
		}
	}
}

func sleep(a, b context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-a.Done():
		return a.Err()
	case <-b.Done():
		return jsonrpc.ErrClosed
	}
}

// dispatch routes a message from the server: a response to its call, a
// notification to the handler (in order), a request to the handler in its
// own goroutine, whose answer is POSTed back.
func (c *clientConn) dispatch(m *jsonrpc.Message) {
	switch m.Kind {
	case jsonrpc.KindResponse:
		c.calls.Deliver(m, nil, false)
	case jsonrpc.KindNotification:
		c.mu.Lock()
		p := c.proto
		c.mu.Unlock()
		if p != nil && protocol.RoleOf(p, m.Method) == protocol.RoleCancelled {
			if id, ok := cancelledRequest(m.Params); ok {
				c.mu.Lock()
				cancel := c.serving[idKey(id)]
				c.mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
		}
		_, _ = c.h.Handle(c.ctx, m.Request())
	case jsonrpc.KindRequest:
		c.mu.Lock()
		if !c.era.takesRequests() || c.closed {
			// The stateless protocol has no server requests (MRTR instead).
			c.mu.Unlock()
			return
		}
		ctx, cancel := context.WithCancel(c.ctx)
		key := idKey(m.ID)
		c.serving[key] = cancel
		c.wg.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.wg.Done()
			defer cancel()
			res, err := c.h.Handle(ctx, m.Request())
			c.mu.Lock()
			delete(c.serving, key)
			c.mu.Unlock()
			if ctx.Err() != nil {
				return // cancelled by the server, or closed
			}
			var body []byte
			if err == nil {
				body, err = encodeResult(m.ID, res)
			}
			if err != nil {
				je, _ := asRPCError(err)
				body = errorBody(m.ID, true, c.noID(), je)
			}
			_ = c.post(c.ctx, "", body)
		}()
	}
}

// noID is how the conn writes an error without an id: as its revision
// says.
func (c *clientConn) noID() jsonrpc.NoID {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proto == nil {
		return jsonrpc.NullID
	}
	return c.proto.NoID
}

func cancelledRequest(params wire.Raw) (jsonrpc.ID, bool) {
	v, ok := wire.MemberOf(params, "requestId")
	if !ok {
		return jsonrpc.ID{}, false
	}
	var id jsonrpc.ID
	if wire.UnmarshalWith(v, id.DecodeJSON) != nil {
		return jsonrpc.ID{}, false
	}
	return id, true
}

// post sends a notification or a response; the server accepts it with
// 202 (or any 2xx).
func (c *clientConn) post(ctx context.Context, method string, body []byte) error {
	if c.speaksSSE() {
		return c.postSSE(ctx, method, body)
	}
	resp, done, err := c.do(ctx, http.MethodPost, body, c.headers(method, body))
	if err != nil {
		return err
	}
	defer done()
	defer resp.Body.Close()
	if err := c.checkStatus(resp); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return nil
}

// Notify implements mcp.ClientConn.
func (c *clientConn) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return jsonrpc.ErrClosed
	}
	body, err := jsonrpc.AppendNotification(nil, method, params)
	if err != nil {
		return err
	}
	return c.post(ctx, method, body)
}

// listen keeps the session's GET stream open: it takes the server's
// requests and notifications outside requests. A server without one (405)
// is fine.
func (c *clientConn) listen(ready chan struct{}) {
	defer c.wg.Done()
	signal := func() {
		if ready != nil {
			close(ready)
			ready = nil
		}
	}
	defer signal()
	lastID, retry := "", time.Second
	failures := 0
	for c.ctx.Err() == nil {
		hd := c.headers("", nil)
		hd.Del("Content-Type")
		hd.Set("Accept", "text/event-stream")
		if lastID != "" {
			hd.Set(hdrLastEventID, lastID)
		}
		resp, done, err := c.do(c.ctx, http.MethodGet, nil, hd)
		signal()
		if err == nil {
			switch {
			case resp.StatusCode == http.StatusOK && isSSE(resp):
				progress, _ := c.consume(resp.Body, &lastID, &retry, func() bool { return c.ctx.Err() != nil })
				if progress {
					failures = 0
				}
			case resp.StatusCode == http.StatusBadRequest && lastID != "":
				lastID = "" // cannot resume: start afresh
			case resp.StatusCode/100 == 4:
				// 405: no GET stream; 404: session over; 409: one is open.
				resp.Body.Close()
				done()
				return
			}
			resp.Body.Close()
			done()
		}
		failures++
		if failures > c.retries+1 {
			return
		}
		if sleep(c.ctx, c.ctx, retry) != nil {
			return
		}
	}
}

// Close implements mcp.ClientConn: it stops the conn's requests and
// streams and DELETEs the session.
func (c *clientConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	era := c.era
	c.mu.Unlock()
	c.cancel()
	c.calls.Close(jsonrpc.ErrClosed)
	era.close(c)
	c.wg.Wait()
	return nil
}

// stringMember returns a string member of an object.
func stringMember(obj wire.Raw, name string) (string, bool) {
	if len(obj) == 0 {
		return "", false
	}
	d := wire.NewDecoder(obj)
	k, s, err := d.PeekMember(name)
	if err != nil || k != wire.String {
		return "", false
	}
	return string(s), true
}
