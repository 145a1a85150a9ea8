package streamhttp

import (
	"context"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Relay carries the client's responses to the server's requests between
// instances sharing sessions, and the messages of the HTTP+SSE transport
// to the instance holding a session's stream (their session argument is
// then "sse:" and the session id). A request to the client (sampling,
// elicitation, roots) goes out on the stream of the instance whose
// handler waits for it; the client POSTs the response, which a load
// balancer may send to another instance: that one publishes it, and the
// instance waiting for it delivers it. Implementations must be safe for
// concurrent use (runtime/store/redis has one, on pub/sub).
type Relay interface {
	// Publish hands msg, one JSON-RPC response, to the instance waiting
	// for it in session.
	Publish(ctx context.Context, session string, msg []byte) error
	// Subscribe calls deliver with every message published by any
	// instance until ctx ends; it returns once it receives.
	Subscribe(ctx context.Context, deliver func(session string, msg []byte)) error
}

// relayResponse hands a response no call of this instance waits for to
// the other instances; false when there is no Relay.
func (s *session) relayResponse(ctx context.Context, m *jsonrpc.Message) bool {
	relay := s.h.o.Relay
	if relay == nil {
		return false
	}
	var msg []byte
	if m.Error != nil {
		msg = jsonrpc.AppendError(nil, m.ID, true, jsonrpc.OmitID, m.Error)
	} else {
		var err error
		if msg, err = jsonrpc.AppendResponse(nil, m.ID, m.Result); err != nil {
			return false
		}
	}
	if err := relay.Publish(ctx, s.id, msg); err != nil {
		s.h.log.Error("streamhttp: relaying a response failed", "session", s.id, "err", err)
		return false
	}
	return true
}

// subscribeRelay delivers the responses other instances relay to the
// calls of this one's sessions, until the handler closes.
func (h *Handler) subscribeRelay() {
	if h.o.Relay == nil {
		return
	}
	err := h.o.Relay.Subscribe(h.base, func(sid string, msg []byte) {
		if id, ok := strings.CutPrefix(sid, sseInPrefix); ok {
			h.serveRelayedSSE(id, msg)
			return
		}
		if id, ok := strings.CutPrefix(sid, sseRelayPrefix); ok {
			h.deliverSSE(id, msg)
			return
		}
		h.mu.Lock()
		s := h.sessions[sid]
		h.mu.Unlock()
		if s == nil {
			return
		}
		m, err := jsonrpc.Parse(msg)
		if err != nil || m.Kind != jsonrpc.KindResponse {
			return
		}
		s.calls.Deliver(m, nil, false)
	})
	if err != nil {
		h.log.Error("streamhttp: subscribing to relayed responses failed", "err", err)
	}
}
