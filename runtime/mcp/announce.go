package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Announcements: a change the server tells its clients of — a list that
// changed, a resource updated — reaches this instance's stateful sessions
// (as the revision's notification) and the features that asked
// (Registry.OnAnnounce: listen streams), and, with a Broadcast, the other
// instances, which tell theirs. Streams: requests that last until the
// server ends them (a listen stream), registered so that a drain ends
// them.

// ListKind names a list whose changes the server announces.
type ListKind int

// The lists.
const (
	ToolsList ListKind = iota + 1
	PromptsList
	ResourcesList
)

// Broadcast shares a server's announcements — list changes and resource
// updates, and what its features publish (Registry.Broadcast) — with the
// other instances of the same server, so that a client attached to one
// instance (a stateful session's GET stream, a listen stream) hears of a
// change announced on another. Implementations must be safe for
// concurrent use (runtime/store/redis has one, on pub/sub).
type Broadcast interface {
	// Publish hands msg to every instance (the publisher's own copy is
	// dropped by the server).
	Publish(ctx context.Context, msg []byte) error
	// Subscribe calls deliver with every message published until ctx
	// ends; it returns once it receives.
	Subscribe(ctx context.Context, deliver func(msg []byte)) error
}

// The announcements on a Broadcast: "<instance>\n<kind>\n<argument>",
// kind "list" (argument tools, prompts or resources), "list-to" (the list
// and the principals, NUL-separated), "resource" (the URI), or a
// feature's kind.
const (
	announceList     = "list"
	announceListTo   = "list-to"
	announceResource = "resource"
)

var listNames = map[ListKind]string{ToolsList: "tools", PromptsList: "prompts", ResourcesList: "resources"}

// announcer is a server's side of the announcements and streams.
type announcer struct {
	srv *Server
	// instance names this server on its Broadcast; stop ends the
	// subscription.
	instance string
	stop     context.CancelFunc

	mu      sync.Mutex
	streams map[*requestStream]struct{}
}

// start subscribes to the other instances' announcements.
func (a *announcer) start() error {
	s := a.srv
	a.streams = map[*requestStream]struct{}{}
	b := s.opts.Broadcast
	if b == nil {
		return nil
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	a.instance = hex.EncodeToString(id[:])
	ctx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	return b.Subscribe(ctx, func(msg []byte) {
		from, rest, _ := strings.Cut(string(msg), "\n")
		kind, arg, _ := strings.Cut(rest, "\n")
		if from == a.instance {
			return
		}
		switch kind {
		case announceList, announceListTo:
			parts := strings.Split(arg, "\x00")
			for k, name := range listNames {
				if name == parts[0] {
					a.tell(ctx, Announcement{List: k, Principals: parts[1:len(parts):len(parts)]}, kind == announceListTo)
				}
			}
		case announceResource:
			a.tell(ctx, Announcement{URI: arg}, false)
		default:
			if deliver := s.feats.kinds[kind]; deliver != nil {
				deliver(ctx, arg)
			}
		}
	})
}

// broadcast tells the other instances of an announcement made here.
func (a *announcer) broadcast(ctx context.Context, kind, arg string) {
	b := a.srv.opts.Broadcast
	if b == nil {
		return
	}
	if err := b.Publish(context.WithoutCancel(ctx), []byte(a.instance+"\n"+kind+"\n"+arg)); err != nil {
		a.srv.log.Error("mcp: broadcasting an announcement failed", "kind", kind, "arg", arg, "err", err)
	}
}


// NotifyListChanged tells every client that the server's tools, prompts or
// resources changed: stateful sessions get notifications/<kind>/list_changed,
// and the features that listen (listen streams that opted in) hear of it.
// With a Broadcast, the clients of the other instances hear of it too.
func (s *Server) NotifyListChanged(ctx context.Context, kind ListKind) {
	s.ann.tell(ctx, Announcement{List: kind}, false)
	s.ann.broadcast(ctx, announceList, listNames[kind])
}

// NotifyListChangedTo tells only the clients of the principals named
// (sessions and listen streams they opened, on every instance with a
// Broadcast) that a list changed: what a list shows one principal (items
// visible by principal) changed for them alone.
func (s *Server) NotifyListChangedTo(ctx context.Context, kind ListKind, principals ...string) {
	if len(principals) == 0 {
		return
	}
	s.ann.tell(ctx, Announcement{List: kind, Principals: principals}, true)
	s.ann.broadcast(ctx, announceListTo, listNames[kind]+"\x00"+strings.Join(principals, "\x00"))
}

// NotifyResourceUpdated tells the clients subscribed to uri that it
// changed (with a Broadcast, those of every instance).
func (s *Server) NotifyResourceUpdated(ctx context.Context, uri string) {
	s.ann.tell(ctx, Announcement{URI: uri}, false)
	s.ann.broadcast(ctx, announceResource, uri)
}

// tell tells this instance's clients of an announcement: the stateful
// sessions it concerns, then the features. A list announced to principals
// (to) with none named concerns nobody.
func (a *announcer) tell(ctx context.Context, an Announcement, to bool) {
	s := a.srv
	if to && len(an.Principals) == 0 {
		return
	}
	if !to {
		an.Principals = nil
	}
	if an.List == ToolsList {
		s.tools.forget()
	}
	s.mu.Lock()
	sessions := make([]*Session, 0, len(s.sessions))
	for sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	s.mu.Unlock()
	for _, sess := range sessions {
		switch {
		case an.List != 0 && (an.Principals == nil || slices.Contains(an.Principals, sess.Principal())):
			sess.notify(ctx, listRoles[an.List], emptyParams)
		case an.List == 0 && sess.subscribed(an.URI):
			sess.notify(ctx, protocol.RoleResourceUpdated, uriParams(an.URI))
		}
	}
	for _, f := range s.feats.announce {
		f(ctx, an)
	}
}

// listRoles are the roles of the notifications of each list.
var listRoles = map[ListKind]protocol.Role{
	ToolsList:     protocol.RoleToolsListChanged,
	PromptsList:   protocol.RolePromptsListChanged,
	ResourcesList: protocol.RoleResourcesListChanged,
}

// ListRole is the role of the notification announcing a change of list.
func ListRole(kind ListKind) protocol.Role { return listRoles[kind] }

var emptyParams = wire.Raw(`{}`)

// uriParams are the params of notifications/resources/updated.
type uriParams string

func (u uriParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"uri":`)
	e.Str(string(u))
	e.ObjectEnd()
}

// requestStream is a request that lasts until the server ends it
// (Request.Stream).
type requestStream struct {
	out  Outbound // the transport's, to end the streams of a connection
	stop chan struct{}
	once sync.Once
}

func (st *requestStream) end() { st.once.Do(func() { close(st.stop) }) }

// Stream marks the request a stream that lasts until the server ends it:
// ended is closed when it does (Server.EndStreams at a drain, or the
// request's connection draining); call done once the stream is over.
func (r *Request) Stream() (ended <-chan struct{}, done func()) {
	a := &r.server.ann
	st := &requestStream{out: r.conn, stop: make(chan struct{})}
	a.mu.Lock()
	a.streams[st] = struct{}{}
	a.mu.Unlock()
	return st.stop, func() {
		a.mu.Lock()
		delete(a.streams, st)
		a.mu.Unlock()
	}
}

// EndStream ends the stream of a request the server ended the way its
// transport ends one: on stdio the revision's cancellation notification
// referencing the request (reason its reason), after which the request
// gets no response — EndStream returns true, and the stream's handler
// returns context.Canceled; elsewhere it returns false, and the handler
// answers with its result.
func (r *Request) EndStream(ctx context.Context, reason string) bool {
	se, ok := r.out.(streamEnder)
	if !ok || !se.endsStreamsByCancel() {
		return false
	}
	if name := r.Protocol.RoleName(protocol.RoleCancelled); name != "" {
		_ = r.out.Notify(ctx, name, cancelParams{r.ID, reason})
	}
	return se.Cancel(r.ID)
}

// streamEnder is implemented by an Outbound that ends a stream its own
// way: on stdio the server sends the revision's cancellation notification
// referencing the stream's request, and cancels it, instead of answering
// it.
type streamEnder interface {
	Cancel(id jsonrpc.ID) bool
	endsStreamsByCancel() bool
}

// EndStreams ends every stream gracefully (a server shutting down).
func (s *Server) EndStreams() { s.ann.endStreams(nil) }

// endStreams ends the streams whose messages go to out (every one when
// out is nil).
func (a *announcer) endStreams(out Outbound) {
	a.mu.Lock()
	var ending []*requestStream
	for st := range a.streams {
		if out == nil || st.out == out {
			ending = append(ending, st)
		}
	}
	a.mu.Unlock()
	for _, st := range ending {
		st.end()
	}
}

// Close stops what the server runs in the background (its subscription
// to the other instances' announcements, the features'). Sessions are the
// transports'.
func (s *Server) Close() {
	if s.ann.stop != nil {
		s.ann.stop()
	}
	for _, f := range s.feats.close {
		f()
	}
}
