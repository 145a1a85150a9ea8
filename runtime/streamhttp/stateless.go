package streamhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// serveStateless serves one message of the stateless era (2026-07-28 on).
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg *message, acc accept) {
	switch msg.kind {
	case kindResponse:
		writeJSONError(w, http.StatusBadRequest, msg.id, msg.hasID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: clients do not send responses in the stateless protocol"))
		return
	case kindNotification:
		// No header rules are defined for notifications; there is nothing
		// to answer.
		_, _ = h.srv.HandleStateless(r.Context(), msg.request(), discardOut{})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if je := h.checkHeaders(r, msg); je != nil {
		writeJSONError(w, mcp.HTTPStatus(je), msg.id, true, je)
		return
	}
	if h.draining() {
		refuseDraining(w, msg.id, true)
		return
	}
	// Closing the response (the client going away) cancels the request;
	// so does Close, and the end of a drain, which answers it first.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(h.base, cancel)()
	out := &reqOut{h: h, w: w, rc: http.NewResponseController(w), acc: acc}
	defer h.track(func() {
		out.final(http.StatusInternalServerError, encodeError(msg.id, true, errDrainExpired))
		cancel()
	})()
	res, err := h.srv.HandleStateless(ctx, msg.request(), out)
	if ctx.Err() != nil {
		// The client is gone or the handler closed: nothing to say.
		out.abort()
		return
	}
	status := http.StatusOK
	var body []byte
	if err == nil {
		body, err = encodeResult(msg.id, res)
		if err != nil {
			h.log.Error("streamhttp: encoding a result failed", "method", msg.method, "err", err)
		}
	}
	if err != nil {
		je, ok := asRPCError(err)
		if !ok {
			h.log.Error("streamhttp: handler failed", "method", msg.method, "id", msg.id.String(), "err", err)
		}
		body = encodeError(msg.id, true, je)
		status = mcp.HTTPStatus(je)
	}
	out.final(status, body)
}

// reqOut is the response of one stateless request: JSON, or an SSE stream
// from its first related message on.
type reqOut struct {
	h   *Handler
	w   http.ResponseWriter
	rc  *http.ResponseController
	acc accept

	mu   sync.Mutex
	sse  bool
	done bool
	ka   *time.Timer
}

var errStreamClosed = errors.New("streamhttp: the stream is closed")

// Notify implements mcp.Outbound: the message is an SSE event, written and
// flushed at once. A client that does not accept SSE does not get it.
func (o *reqOut) Notify(_ context.Context, method string, params wire.Marshaler) error {
	b, err := encodeRequest(jsonrpc.ID{}, false, method, params)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return errStreamClosed
	}
	if !o.sse {
		if !o.acc.sse {
			return nil
		}
		o.startLocked()
	}
	return o.writeLocked(b)
}

func (o *reqOut) startLocked() {
	sseHeaders(o.w)
	o.sse = true
	if ka := o.h.o.KeepAlive; ka > 0 {
		o.ka = time.AfterFunc(ka, o.ping)
	}
}

func (o *reqOut) writeLocked(msg []byte) error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(writeStall))
	buf := make([]byte, 0, len(msg)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	if _, err := o.w.Write(buf); err != nil {
		return err
	}
	return o.rc.Flush()
}

// ping writes a keep-alive comment.
func (o *reqOut) ping() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return
	}
	_ = o.rc.SetWriteDeadline(time.Now().Add(writeStall))
	if _, err := o.w.Write([]byte(":\n\n")); err == nil && o.rc.Flush() == nil {
		o.ka.Reset(o.h.o.KeepAlive)
	}
}

// final writes the response: the last SSE event, or the JSON body. Only
// the first call writes.
func (o *reqOut) final(status int, body []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return
	}
	o.stopLocked()
	if !o.sse && !o.acc.json {
		sseHeaders(o.w)
		o.sse = true
	}
	if o.sse {
		_ = o.writeLocked(body)
		return
	}
	_ = o.rc.SetWriteDeadline(time.Now().Add(writeStall))
	writeJSON(o.w, status, body)
}

func (o *reqOut) stopLocked() {
	o.done = true
	if o.ka != nil {
		o.ka.Stop()
	}
}

func (o *reqOut) abort() {
	o.mu.Lock()
	o.stopLocked()
	o.mu.Unlock()
}

// discardOut drops related messages.
type discardOut struct{}

func (discardOut) Notify(context.Context, string, wire.Marshaler) error { return nil }

// headerMismatch is the -32020 error of a header rule.
func headerMismatch(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: "header mismatch: " + fmt.Sprintf(format, args...)}
}

// headerValue returns a header's value (repeated headers are joined, which
// never matches a body value).
func headerValue(hd http.Header, name string) (string, bool) {
	vs := hd.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.TrimSpace(strings.Join(vs, ",")), true
}

// checkHeaders checks the request metadata headers of a stateless request
// against its body (2026-07-28, Streamable HTTP: Server Validation): a
// missing MCP-Protocol-Version first, then one that differs from the _meta
// protocolVersion. A version not served gets -32022 with the supported
// ones. A body without _meta protocolVersion is judged by the header's
// version (a method that revision lacks gets -32601, 404; a notification
// method with an id -32600) and otherwise left to HandleStateless
// (-32602). Then come Mcp-Method, Mcp-Name and the Mcp-Param-* headers of
// the tool's x-mcp-header annotations, before HandleStateless judges the
// method.
func (h *Handler) checkHeaders(r *http.Request, msg *message) *jsonrpc.Error {
	hv, ok := headerValue(r.Header, hdrProtocolVersion)
	if !ok {
		return headerMismatch("missing MCP-Protocol-Version header")
	}
	mv := mcp.MetaVersion(msg.params)
	if mv != "" && hv != mv {
		return headerMismatch("MCP-Protocol-Version header %q does not match _meta %s %q", hv, mcp.MetaProtocolVersion, mv)
	}
	if mv == "" {
		// Nothing to check the headers against: what the header declares
		// decides, else HandleStateless answers the missing _meta.
		return h.srv.StatelessError(hv, msg.method, false)
	}
	mount := h.srv.Mounted(mv)
	if mount == nil || !mount.Protocol.Stateless {
		return h.srv.StatelessError(mv, msg.method, false)
	}
	hm, ok := headerValue(r.Header, hdrMethod)
	if !ok {
		return headerMismatch("missing Mcp-Method header")
	}
	if hm != msg.method {
		return headerMismatch("Mcp-Method header %q does not match the method %q", hm, msg.method)
	}
	if np := mcp.NameParam(mount.Protocol, msg.method); np != "" {
		body, present := stringMember(msg.params, np)
		hn, has := headerValue(r.Header, hdrName)
		switch {
		case !has && present:
			return headerMismatch("missing Mcp-Name header (params.%s is %q)", np, body)
		case has:
			v, err := decodeHeaderValue(hn)
			if err != nil {
				return headerMismatch("Mcp-Name header is not a valid value")
			}
			if !present || v != body {
				return headerMismatch("Mcp-Name header %q does not match params.%s %q", v, np, body)
			}
		}
	}
	if msg.method == "tools/call" {
		return h.checkParamHeaders(r, msg)
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call against
// its arguments.
func (h *Handler) checkParamHeaders(r *http.Request, msg *message) *jsonrpc.Error {
	phs, err := h.srv.ToolParamHeaders(r.Context(), msg.request())
	if err != nil || len(phs) == 0 {
		return nil
	}
	args, _ := member(msg.params, "arguments")
	for _, ph := range phs {
		name := hdrParamPrefix + ph.Name
		val, present := args, len(args) > 0
		for _, p := range ph.Path {
			if !present {
				break
			}
			val, present = member(val, p)
		}
		if present && val.Kind() == wire.Null {
			present = false
		}
		hv, has := headerValue(r.Header, name)
		if !has {
			if present {
				return headerMismatch("missing %s header for argument %s", name, strings.Join(ph.Path, "."))
			}
			continue
		}
		v, err := decodeHeaderValue(hv)
		if err != nil {
			return headerMismatch("%s header is not a valid value", name)
		}
		if !present {
			return headerMismatch("%s header is set but argument %s is absent or null", name, strings.Join(ph.Path, "."))
		}
		if !sameValue(val, v) {
			return headerMismatch("%s header %q does not match argument %s", name, v, strings.Join(ph.Path, "."))
		}
	}
	return nil
}

// sameValue compares a header's value with a body value: strings exactly,
// numbers numerically, booleans as "true" or "false".
func sameValue(body wire.Raw, v string) bool {
	d := wire.NewDecoder(body)
	switch body.Kind() {
	case wire.String:
		s, err := d.Str()
		return err == nil && s == v
	case wire.Bool:
		b, err := d.Bool()
		return err == nil && strconv.FormatBool(b) == v
	case wire.Number:
		lit, err := d.Number()
		if err != nil {
			return false
		}
		hd := wire.NewDecoder([]byte(v))
		hlit, err := hd.Number()
		if err != nil || hd.End() != nil {
			return false
		}
		a, err1 := strconv.ParseFloat(string(lit), 64)
		b, err2 := strconv.ParseFloat(string(hlit), 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}

// member returns the value of an object's member.
func member(obj wire.Raw, name string) (wire.Raw, bool) {
	if obj.Kind() != wire.Object {
		return nil, false
	}
	var out wire.Raw
	found := false
	d := wire.NewDecoder(obj)
	_ = d.Object(func(key []byte) error {
		if found || string(key) != name {
			return d.Skip()
		}
		v, err := d.Raw()
		out, found = v, err == nil
		return err
	})
	return out, found
}

// stringMember returns a string member of params.
func stringMember(params wire.Raw, name string) (string, bool) {
	if len(params) == 0 {
		return "", false
	}
	d := wire.NewDecoder(params)
	k, s, err := d.PeekMember(name)
	if err != nil || k != wire.String {
		return "", false
	}
	return string(s), true
}
