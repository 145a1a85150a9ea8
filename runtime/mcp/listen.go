package mcp

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// listener is one subscriptions/listen stream (2026-07-28 on).
type listener struct {
	id        jsonrpc.ID
	out       Outbound
	proto     *protocol.Protocol
	filter    listenFilter
	principal string        // who opened the stream
	stop      chan struct{} // closed to end the stream gracefully
	once      sync.Once
	// acked is held until the acknowledgement is out: the listener is
	// registered before it, so a change right after the client reads the
	// ack is not missed, and a notification never overtakes the ack.
	acked sync.RWMutex
}

// listenFilter is what a listen request opts into.
type listenFilter struct {
	tools, prompts, resources bool
	resourceURIs              []string
}

func (f listenFilter) encode(e *wire.Encoder) {
	e.ObjectStart()
	if f.tools {
		e.FieldRaw(`"toolsListChanged":`)
		e.Bool(true)
	}
	if f.prompts {
		e.Field("promptsListChanged")
		e.Bool(true)
	}
	if f.resources {
		e.Field("resourcesListChanged")
		e.Bool(true)
	}
	if len(f.resourceURIs) > 0 {
		e.Field("resourceSubscriptions")
		e.ArrayStart()
		for _, u := range f.resourceURIs {
			e.Str(u)
		}
		e.ArrayEnd()
	}
	e.ObjectEnd()
}

// streamEnder is implemented by an Outbound that ends a listen stream its
// own way: on stdio the server sends the revision's cancellation
// notification referencing the listen request, and cancels it, instead of
// answering it.
type streamEnder interface {
	canceller
	endsStreamsByCancel() bool
}

// serveListen serves subscriptions/listen: it acknowledges with the
// honoured subset of the requested notifications, then delivers them, each
// carrying the subscription id, until the client goes away (no answer) or
// the server ends the stream (SubscriptionsListenResult).
func serveListen(rc *reqCtx) (wire.Marshaler, error) {
	s, m, params, id := rc.r.server, rc.r.mount, rc.r.in.req.Params, rc.r.in.req.ID
	if err := rc.r.route.method.ValidateParams(params); err != nil {
		return nil, err
	}
	want := parseListenFilter(params)
	impl := func(r protocol.Role) bool { return s.serves(m, r) }
	var got listenFilter
	if s.opts.ListChanged {
		got.tools = want.tools && impl(protocol.RoleToolsList)
		got.prompts = want.prompts && impl(protocol.RolePromptsList)
		got.resources = want.resources && impl(protocol.RoleResourcesList)
	}
	if impl(protocol.RoleResourcesRead) {
		got.resourceURIs = want.resourceURIs
	}
	l := &listener{id: id, out: rc.r.out, proto: m.Protocol, filter: got, stop: make(chan struct{}), principal: PrincipalFrom(rc)}
	ack := func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"notifications":`)
		got.encode(e)
		e.FieldRaw(`"_meta":`)
		e.ObjectStart()
		e.Field(MetaSubscriptionID)
		id.EncodeJSON(e)
		e.ObjectEnd()
		e.ObjectEnd()
	}
	l.acked.Lock()
	s.mu.Lock()
	s.listens[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listens, l)
		s.mu.Unlock()
	}()
	err := l.out.Notify(rc, m.Protocol.RoleName(protocol.RoleListenAcknowledged), encoderFunc(ack))
	l.acked.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case <-rc.Done():
		return nil, rc.Err()
	case <-l.stop:
	}
	if se, ok := l.out.(streamEnder); ok && se.endsStreamsByCancel() {
		if name := m.Protocol.RoleName(protocol.RoleCancelled); name != "" {
			_ = l.out.Notify(rc, name, cancelParams{id, "the server ended the subscription stream"})
		}
		if se.Cancel(id) {
			return nil, context.Canceled
		}
	}
	res := func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"resultType":`)
		e.Str("complete")
		e.FieldRaw(`"_meta":`)
		e.ObjectStart()
		e.Field(MetaSubscriptionID)
		id.EncodeJSON(e)
		e.ObjectEnd()
		e.ObjectEnd()
	}
	return encoderFunc(res), nil
}

func parseListenFilter(params wire.Raw) listenFilter {
	var f listenFilter
	if len(params) == 0 {
		return f
	}
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		if string(key) != "notifications" {
			return d.Skip()
		}
		return d.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "toolsListChanged":
				f.tools, err = d.Bool()
			case "promptsListChanged":
				f.prompts, err = d.Bool()
			case "resourcesListChanged":
				f.resources, err = d.Bool()
			case "resourceSubscriptions":
				err = d.Array(func() error {
					u, err := d.Str()
					f.resourceURIs = append(f.resourceURIs, u)
					return err
				})
			default:
				err = d.Skip()
			}
			return err
		})
	})
	return f
}

// ListKind names a list whose changes the server announces.
type ListKind int

// The lists.
const (
	ToolsList ListKind = iota + 1
	PromptsList
	ResourcesList
)

// NotifyListChanged tells every client that the server's tools, prompts or
// resources changed: stateful sessions get notifications/<kind>/list_changed,
// listen streams that opted in get it with their subscription id. With a
// Broadcast, the clients of the other instances hear of it too.
func (s *Server) NotifyListChanged(ctx context.Context, kind ListKind) {
	s.announceList(ctx, kind)
	s.broadcast(ctx, announceList, listNames[kind])
}

// NotifyListChangedTo tells only the clients of the principals named
// (sessions and listen streams they opened, on every instance with a
// Broadcast) that a list changed: what a list shows one principal (items
// visible by principal) changed for them alone.
func (s *Server) NotifyListChangedTo(ctx context.Context, kind ListKind, principals ...string) {
	if len(principals) == 0 {
		return
	}
	s.announceListTo(ctx, kind, principals)
	s.broadcast(ctx, announceListTo, listNames[kind]+"\x00"+strings.Join(principals, "\x00"))
}

// announceList tells this instance's clients of a list change.
func (s *Server) announceList(ctx context.Context, kind ListKind) {
	s.announceListTo(ctx, kind, nil)
}

// announceListTo tells this instance's clients of a list change: those of
// the principals named, or all (nil).
func (s *Server) announceListTo(ctx context.Context, kind ListKind, principals []string) {
	role := map[ListKind]protocol.Role{
		ToolsList:     protocol.RoleToolsListChanged,
		PromptsList:   protocol.RolePromptsListChanged,
		ResourcesList: protocol.RoleResourcesListChanged,
	}[kind]
	if kind == ToolsList {
		s.tools.forget()
	}
	sessions, listens := s.audience()
	for _, sess := range sessions {
		if principals == nil || slices.Contains(principals, sess.Principal()) {
			sess.notify(ctx, role, emptyParams)
		}
	}
	for _, l := range listens {
		if principals != nil && !slices.Contains(principals, l.principal) {
			continue
		}
		if (kind == ToolsList && l.filter.tools) || (kind == PromptsList && l.filter.prompts) || (kind == ResourcesList && l.filter.resources) {
			l.send(ctx, role, nil)
		}
	}
}

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed (with a Broadcast, those of every instance).
func (s *Server) NotifyResourceUpdated(ctx context.Context, uri string) {
	s.announceResource(ctx, uri)
	s.broadcast(ctx, announceResource, uri)
}

// announceResource tells this instance's subscribers of a resource update.
func (s *Server) announceResource(ctx context.Context, uri string) {
	sessions, listens := s.audience()
	params := func(e *wire.Encoder) {
		e.ObjectStart()
		e.FieldRaw(`"uri":`)
		e.Str(uri)
		e.ObjectEnd()
	}
	for _, sess := range sessions {
		if sess.subscribed(uri) {
			sess.notify(ctx, protocol.RoleResourceUpdated, encoderFunc(params))
		}
	}
	for _, l := range listens {
		if slices.Contains(l.filter.resourceURIs, uri) {
			l.send(ctx, protocol.RoleResourceUpdated, func(e *wire.Encoder) {
				e.FieldRaw(`"uri":`)
				e.Str(uri)
			})
		}
	}
}

var emptyParams = wire.Raw(`{}`)

func (s *Server) audience() ([]*Session, []*listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sessions := make([]*Session, 0, len(s.sessions))
	for sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	listens := make([]*listener, 0, len(s.listens))
	for l := range s.listens {
		listens = append(listens, l)
	}
	return sessions, listens
}

// send delivers the notification in role r on the stream with the
// subscription id; members writes the params members besides _meta.
func (l *listener) send(ctx context.Context, r protocol.Role, members func(*wire.Encoder)) {
	method := l.proto.RoleName(r)
	if method == "" {
		return
	}
	params := func(e *wire.Encoder) {
		e.ObjectStart()
		if members != nil {
			members(e)
		}
		e.FieldRaw(`"_meta":`)
		e.ObjectStart()
		e.Field(MetaSubscriptionID)
		l.id.EncodeJSON(e)
		e.ObjectEnd()
		e.ObjectEnd()
	}
	l.acked.RLock()
	defer l.acked.RUnlock()
	_ = l.out.Notify(ctx, method, encoderFunc(params))
}

// EndStreams ends every listen stream gracefully (a server shutting down).
func (s *Server) EndStreams() { s.endStreamsOf(nil) }

// endStreamsOf ends the listen streams whose messages go to out (every
// one when out is nil).
func (s *Server) endStreamsOf(out Outbound) {
	_, listens := s.audience()
	for _, l := range listens {
		if out == nil || l.out == out {
			l.once.Do(func() { close(l.stop) })
		}
	}
}
