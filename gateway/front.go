package gateway

import (
	"context"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// The front handler: the 2026-07-28 Server methods, each carrying its
// request to the backend. The engine declares a capability for every
// group of methods the handler implements, so the handler implements
// only the groups the backend declared: one of sixteen types, each
// embedding the parts of its groups (Go builds no method set at run
// time).

// toolsPart serves tools/list and tools/call.
type toolsPart struct{ g *Gateway }

// ListTools implements v26.Server.
func (p toolsPart) ListTools(ctx context.Context, params *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return through(p.g, ctx, func(b *backend) (*v26.ListToolsResult, error) {
		return b.c.ListTools(p.g.backendCtx(ctx), paginated(params))
	})
}

// CallTool implements v26.Server.
func (p toolsPart) CallTool(ctx context.Context, params *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	return through(p.g, ctx, func(b *backend) (v26.CallToolReply, error) {
		if b.native {
			q := *params
			q.Meta = nativeHop(q.Meta)
			return nativeCall(b, p.g, ctx, v26.MethodToolsCall, &q, v26.UnmarshalCallToolReply)
		}
		return parkCall(p.g, b, ctx, params.RequestState, params.InputResponses, func(ctx context.Context) (v26.CallToolReply, error) {
			q := *params
			q.RequestState, q.InputResponses, q.Meta = wire.Opt[string]{}, nil, hop(q.Meta)
			r, err := b.c.CallTool(ctx, &q)
			return r, b.failed(err) // this call's backend: a retry may be served by the next
		}, inputRequired[v26.CallToolReply])
	})
}

// promptsPart serves prompts/list and prompts/get.
type promptsPart struct{ g *Gateway }

// ListPrompts implements v26.Server.
func (p promptsPart) ListPrompts(ctx context.Context, params *v26.PaginatedRequestParams) (*v26.ListPromptsResult, error) {
	return through(p.g, ctx, func(b *backend) (*v26.ListPromptsResult, error) {
		return b.c.ListPrompts(p.g.backendCtx(ctx), paginated(params))
	})
}

// GetPrompt implements v26.Server.
func (p promptsPart) GetPrompt(ctx context.Context, params *v26.GetPromptRequestParams) (v26.GetPromptReply, error) {
	return through(p.g, ctx, func(b *backend) (v26.GetPromptReply, error) {
		if b.native {
			q := *params
			q.Meta = nativeHop(q.Meta)
			return nativeCall(b, p.g, ctx, v26.MethodPromptsGet, &q, v26.UnmarshalGetPromptReply)
		}
		return parkCall(p.g, b, ctx, params.RequestState, params.InputResponses, func(ctx context.Context) (v26.GetPromptReply, error) {
			q := *params
			q.RequestState, q.InputResponses, q.Meta = wire.Opt[string]{}, nil, hop(q.Meta)
			r, err := b.c.GetPrompt(ctx, &q)
			return r, b.failed(err) // this call's backend: a retry may be served by the next
		}, inputRequired[v26.GetPromptReply])
	})
}

// resourcesPart serves resources/list, resources/read and
// resources/templates/list.
type resourcesPart struct{ g *Gateway }

// ListResources implements v26.Server.
func (p resourcesPart) ListResources(ctx context.Context, params *v26.PaginatedRequestParams) (*v26.ListResourcesResult, error) {
	return through(p.g, ctx, func(b *backend) (*v26.ListResourcesResult, error) {
		return b.c.ListResources(p.g.backendCtx(ctx), paginated(params))
	})
}

// ListResourceTemplates implements v26.Server.
func (p resourcesPart) ListResourceTemplates(ctx context.Context, params *v26.PaginatedRequestParams) (*v26.ListResourceTemplatesResult, error) {
	return through(p.g, ctx, func(b *backend) (*v26.ListResourceTemplatesResult, error) {
		return b.c.ListResourceTemplates(p.g.backendCtx(ctx), paginated(params))
	})
}

// ReadResource implements v26.Server.
func (p resourcesPart) ReadResource(ctx context.Context, params *v26.ReadResourceRequestParams) (v26.ReadResourceReply, error) {
	return through(p.g, ctx, func(b *backend) (v26.ReadResourceReply, error) {
		if b.native {
			q := *params
			q.Meta = nativeHop(q.Meta)
			return nativeCall(b, p.g, ctx, v26.MethodResourcesRead, &q, v26.UnmarshalReadResourceReply)
		}
		return parkCall(p.g, b, ctx, params.RequestState, params.InputResponses, func(ctx context.Context) (v26.ReadResourceReply, error) {
			q := *params
			q.RequestState, q.InputResponses, q.Meta = wire.Opt[string]{}, nil, hop(q.Meta)
			r, err := b.c.ReadResource(ctx, &q)
			return r, b.failed(err) // this call's backend: a retry may be served by the next
		}, inputRequired[v26.ReadResourceReply])
	})
}

// completePart serves completion/complete.
type completePart struct{ g *Gateway }

// Complete implements v26.Server.
func (p completePart) Complete(ctx context.Context, params *v26.CompleteRequestParams) (*v26.CompleteResult, error) {
	return through(p.g, ctx, func(b *backend) (*v26.CompleteResult, error) {
		q := *params
		q.Meta = hop(q.Meta)
		return b.c.Complete(p.g.backendCtx(ctx), &q)
	})
}

// The sixteen handlers: t tools, p prompts, r resources, c completions.
type (
	hNone struct{}
	hT    struct{ toolsPart }
	hP    struct{ promptsPart }
	hR    struct{ resourcesPart }
	hC    struct{ completePart }
	hTP   struct {
		toolsPart
		promptsPart
	}
	hTR struct {
		toolsPart
		resourcesPart
	}
	hTC struct {
		toolsPart
		completePart
	}
	hPR struct {
		promptsPart
		resourcesPart
	}
	hPC struct {
		promptsPart
		completePart
	}
	hRC struct {
		resourcesPart
		completePart
	}
	hTPR struct {
		toolsPart
		promptsPart
		resourcesPart
	}
	hTPC struct {
		toolsPart
		promptsPart
		completePart
	}
	hTRC struct {
		toolsPart
		resourcesPart
		completePart
	}
	hPRC struct {
		promptsPart
		resourcesPart
		completePart
	}
	hTPRC struct {
		toolsPart
		promptsPart
		resourcesPart
		completePart
	}
)

// frontHandler is the handler implementing the groups the backend's
// capabilities declare.
func frontHandler(g *Gateway, caps wire.Raw) any {
	has := func(name string) bool { _, ok := wire.MemberOf(caps, name); return ok }
	// 2024-11-05 has completion/complete but no capability declaring it:
	// a server of it with prompts or resources may complete their
	// arguments.
	completes := has("completions") || (g.first.ProtocolVersion() < "2025-03-26" && (has("prompts") || has("resources")))
	t, p, r, c := toolsPart{g}, promptsPart{g}, resourcesPart{g}, completePart{g}
	key := 0
	for i, ok := range []bool{has("tools"), has("prompts"), has("resources"), completes} {
		if ok {
			key |= 1 << i
		}
	}
	return [16]any{
		hNone{}, hT{t}, hP{p}, hTP{t, p}, hR{r}, hTR{t, r}, hPR{p, r}, hTPR{t, p, r},
		hC{c}, hTC{t, c}, hPC{p, c}, hTPC{t, p, c}, hRC{r, c}, hTRC{t, r, c}, hPRC{p, r, c}, hTPRC{t, p, r, c},
	}[key]
}

// backendCtx is the context of a call to the backend made for the front
// request in ctx: its progress, if the front client asked for it, goes to
// the front client.
func (g *Gateway) backendCtx(ctx context.Context) context.Context {
	r := rt.RequestFrom(ctx)
	if r == nil {
		return ctx
	}
	if _, ok := r.ProgressToken(); !ok {
		return ctx
	}
	return rt.WithProgress(ctx, func(u rt.ProgressUpdate) {
		_ = r.Progress(ctx, u.Progress, u.Total, u.Message)
	})
}

// through serves the front request in ctx with call, given the backend
// session serving it: the request is noted in progress meanwhile (enter;
// and its slot busy, which the idle reaper leaves alone), and an error of
// a backend that ended says so (backend.failed; a parked call's backend
// call does that itself, since the retry that reports it may be served
// by the backend's next life).
func through[R any](g *Gateway, ctx context.Context, call func(b *backend) (R, error)) (R, error) {
	b, err := g.backendFor(ctx)
	if err != nil {
		var zero R
		return zero, err
	}
	sl := b.in.sl
	sl.busy.Add(1)
	defer sl.busy.Add(-1)
	defer g.enter(ctx, sl)()
	r, err := call(b)
	return r, b.failed(err)
}

// enter notes the stateless front request in ctx, served by sl, in
// progress until done is called: a log message of the backend's that
// belongs to no session reaches the one stateless request in progress
// on its backend, if only one is (see backendHandler.LoggingMessage).
func (g *Gateway) enter(ctx context.Context, sl *slot) (done func()) {
	r := rt.RequestFrom(ctx)
	if r == nil || r.Session() != nil {
		return func() {}
	}
	g.flightMu.Lock()
	g.inflight[r] = flight{ctx, sl}
	g.flightMu.Unlock()
	return func() {
		g.flightMu.Lock()
		delete(g.inflight, r)
		g.flightMu.Unlock()
	}
}

// onlyStateless is the one stateless front request in progress on sl's
// backend, and its context, when only one is.
func (g *Gateway) onlyStateless(sl *slot) (*rt.Request, context.Context) {
	g.flightMu.Lock()
	defer g.flightMu.Unlock()
	var one *rt.Request
	for r, f := range g.inflight {
		if f.sl != sl {
			continue
		}
		if one != nil {
			return nil, nil
		}
		one = r
	}
	if one == nil {
		return nil, nil
	}
	return one, g.inflight[one].ctx
}

// nativeCall carries a request that may ask for input to a 2026-07-28
// backend as it is, and its answer back as it is: an input round the
// backend asks for reaches the front client, whose retry (its
// inputResponses and the backend's requestState) goes back the same way;
// so does a task handle (tasks.go).
func nativeCall[P wire.Marshaler, R any](b *backend, g *Gateway, ctx context.Context, method string, params P, decode func([]byte) (R, error)) (R, error) {
	var raw wire.Raw
	var zero R
	if err := b.cs.Call(g.backendCtx(ctx), method, params, &raw); err != nil {
		return zero, err
	}
	if err := g.taskHandle(ctx, b, raw); err != nil {
		return zero, err // a task handle, passed on as it is
	}
	return decode(raw)
}

// hop is the _meta of a request carried to the backend: what its sender
// put there, without what the protocol reserves for the hop it came on
// (the front client's version, capabilities, info and log level, and its
// progress token: the gateway's session states its own).
func hop(m *v26.RequestMetaObject) *v26.RequestMetaObject {
	if m == nil || len(m.Extra) == 0 {
		return nil
	}
	return &v26.RequestMetaObject{Extra: m.Extra}
}

// nativeHop is the _meta of a request carried to a 2026-07-28 backend,
// which asks the front client itself (its input rounds pass through): the
// front client's capabilities and log level go with it, so that the
// backend asks only for what that client can give, and logs at its level.
func nativeHop(m *v26.RequestMetaObject) *v26.RequestMetaObject {
	if m == nil {
		return nil
	}
	if len(m.Extra) == 0 && m.ClientCapabilities == nil && !m.LogLevel.Set {
		return nil
	}
	return &v26.RequestMetaObject{Extra: m.Extra, ClientCapabilities: m.ClientCapabilities, LogLevel: m.LogLevel}
}

// paginated is a list request's params carried to the backend.
func paginated(p *v26.PaginatedRequestParams) *v26.PaginatedRequestParams {
	if p == nil {
		return nil
	}
	q := *p
	q.Meta = hop(q.Meta)
	return &q
}
