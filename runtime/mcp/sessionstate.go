package mcp

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// SessionState is what a stateful session is beyond the process that
// opened it: enough for another instance of the same server to continue
// it (a transport that shares sessions keeps it in a store). What runs in
// a process — requests in progress, streams, calls to the client — is not
// in it.
type SessionState struct {
	// Revision is the negotiated protocol revision.
	Revision string `json:"revision"`
	// ClientCapabilities and ClientInfo are the client's, from initialize.
	ClientCapabilities wire.Raw `json:"clientCapabilities,omitempty"`
	ClientInfo         wire.Raw `json:"clientInfo,omitempty"`
	// Principal is who opened the session: only they may use it.
	Principal string `json:"principal,omitempty"`
	// Ready reports notifications/initialized received.
	Ready bool `json:"ready,omitempty"`
	// LogLevel is the level the client set.
	LogLevel string `json:"logLevel,omitempty"`
	// Subscriptions are the resources the client subscribed to.
	Subscriptions []string `json:"subscriptions,omitempty"`
	// Transport names the transport the session belongs to, when the
	// transport has more than one ("sse": the HTTP+SSE transport of
	// 2024-11-05 beside Streamable HTTP); set and read by the transport.
	Transport string `json:"transport,omitempty"`
}

// State returns the session's state and the count of its changes so far
// (a transport saves it again when the count moved); ok is false before
// initialize.
func (sess *Session) State() (st SessionState, changes uint64, ok bool) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if !sess.initialized || sess.mount == nil {
		return SessionState{}, sess.changes, false
	}
	st = SessionState{
		Revision:           sess.mount.Protocol.Revision,
		ClientCapabilities: sess.clientCaps,
		ClientInfo:         sess.clientInfo,
		Principal:          sess.principal,
		Ready:              sess.ready,
		LogLevel:           sess.logLevel,
	}
	for uri := range sess.subs {
		st.Subscriptions = append(st.Subscriptions, uri)
	}
	slices.Sort(st.Subscriptions)
	return st, sess.changes, true
}

// Changes counts the changes of the session's state so far (see State),
// without copying it.
func (sess *Session) Changes() uint64 {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.changes
}

// RestoreSession makes a session of this server from the state another
// instance saved: initialized, ready for requests (peer and cancel as
// NewSession's). It fails when the revision is not mounted here, or is
// stateless.
func (s *Server) RestoreSession(st SessionState, peer Caller, cancel func(jsonrpc.ID) bool) (*Session, error) {
	m := s.byRev[st.Revision]
	if m == nil || m.Protocol.Stateless() {
		return nil, fmt.Errorf("mcp: restoring a session of revision %q, which this server does not serve statefully", st.Revision)
	}
	sess := s.NewSession(peer, cancel)
	sess.mu.Lock()
	sess.mount, sess.initialized, sess.ready = m, true, st.Ready
	sess.principal, sess.transport, sess.opened = st.Principal, TransportHTTP, time.Now()
	sess.clientCaps, sess.clientInfo = st.ClientCapabilities, st.ClientInfo
	if st.LogLevel != "" {
		sess.logLevel = st.LogLevel
	}
	for _, uri := range st.Subscriptions {
		if sess.subs == nil {
			sess.subs = map[string]bool{}
		}
		sess.subs[uri] = true
	}
	sess.mu.Unlock()
	if sess.OnNegotiated != nil {
		sess.OnNegotiated(m.Protocol)
	}
	return sess, nil
}

// SetID names the session as its transport does (the Mcp-Session-Id of
// Streamable HTTP): middleware sees the name (Message.SessionID), and with
// a TaskStore the session's tasks are shared under it.
func (sess *Session) SetID(id string) {
	sess.mu.Lock()
	sess.id = id
	sess.mu.Unlock()
}

// ID is the name SetID gave the session ("" for none).
func (sess *Session) ID() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.id
}
