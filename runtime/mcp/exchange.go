package mcp

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file is where transports meet the engine. A transport hands every
// message it receives to Server.Accept, which reads it once and decides,
// in the one place that decides it, the era that serves it; the Exchange
// it returns is then served by that era's implementation (era.go), with
// the server's middleware around it. Nothing else asks which era a
// message belongs to.

// The transports the runtime names to middleware (Message.Transport).
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Via is what a transport knows of a message besides the message itself.
type Via struct {
	// Transport names the transport (TransportStdio, TransportHTTP), for
	// middleware and logs.
	Transport string
	// Version is the protocol version the transport carries beside the
	// message: the MCP-Protocol-Version header of HTTP ("" for none).
	Version string
	// Session reports a message of a session the transport keeps for its
	// client: on stdio the connection's, once initialized; on HTTP one an
	// Mcp-Session-Id header names.
	Session bool
	// Header is the transport's header of the message (an HTTP request's);
	// handlers read it with Request.Header, middleware with
	// Message.Header. Nil off HTTP.
	Header Header
	// Client is the address of the client as the transport sees it (on
	// HTTP the remote address, or the one a trusted proxy forwards), for
	// middleware keying unauthenticated clients (Message.Client); "" when
	// the transport has none (stdio: the connection is the client).
	Client string
}

// Exchange is one message a transport received, read once by the engine
// (its method and id, and the members of its params the runtime uses),
// with the era that serves it. Server.Accept makes it; the transport
// serves it with Serve.
type Exchange struct {
	srv *Server
	in  inbound
	via Via
	era protocol.Era
	// opens reports initialize, the request that opens a session.
	opens bool
}

// Accept reads a request or notification a transport received and picks
// the era that serves it: the stateless era for a request whose _meta
// names a protocol version; the era of the revision the transport
// declares beside it (the stateless era, which names the versions it has,
// for one the server does not mount, unless the message belongs to a
// session); else the stateful era for a message of a session, initialize
// (which opens one) and ping, and any method of a mounted stateful
// revision; else the stateless era, whose answer says what the request
// lacks. A server without stateful revisions serves everything statelessly
// but initialize, which its stateful era answers with the versions the
// server supports.
//
// req may be nil for a transport request without a message (an HTTP GET
// or DELETE): the Exchange then only tells its era. The Exchange refers to
// req and its params, which must stay unchanged while it is in use.
func (s *Server) Accept(req *jsonrpc.Request, via Via) Exchange {
	x := Exchange{srv: s, via: via}
	if req != nil {
		x.in = s.classify(req)
		x.opens = s.opensSession(&x.in)
	}
	x.era = s.eraFor(&x.in, via, x.opens)
	return x
}

// eraFor decides the era of a message (see Accept); in.req is nil for a
// transport request without one; opens reports initialize.
func (s *revisions) eraFor(in *inbound, via Via, opens bool) protocol.Era {
	if in.meta.protocolVersion != "" {
		return protocol.Stateless
	}
	if v := via.Version; v != "" {
		if m := s.byRev[v]; m != nil {
			return m.Protocol.Era
		}
		if !via.Session {
			// A version the server does not have, outside a session: the
			// stateless era answers with the versions it has (-32022).
			return protocol.Stateless
		}
	}
	if len(s.stateful) == 0 {
		if opens {
			return protocol.Stateful
		}
		return protocol.Stateless
	}
	if via.Session || in.req == nil || opens || s.roles[in.req.Method] == protocol.RolePing || s.statefulMethod(in.req.Method) {
		return protocol.Stateful
	}
	return protocol.Stateless
}

// opensSession reports an initialize request: the request that opens a
// stateful session (on a server without stateful revisions, the one the
// revisions before 2026-07-28 open it with, which is answered with the
// versions the server supports).
func (s *revisions) opensSession(in *inbound) bool {
	if in.req.IsNotification {
		return false
	}
	if len(s.stateful) == 0 {
		return in.req.Method == statefulInitialize
	}
	return s.roles[in.req.Method] == protocol.RoleInitialize
}

// statefulMethod reports whether a mounted stateful revision has method.
func (s *revisions) statefulMethod(method string) bool {
	for _, m := range s.stateful {
		if m.routes[method] != nil {
			return true
		}
	}
	return false
}

// Era is the era that serves the message.
func (x *Exchange) Era() protocol.Era { return x.era }

// OpensSession reports initialize, the request that opens a stateful
// session: the transport makes the session it keeps before serving it.
func (x *Exchange) OpensSession() bool { return x.opens }

// Check applies the rules of the message's era to what the transport
// carries beside it, before anything is served: on the stateless era the
// request metadata headers of Streamable HTTP (a version the server does
// not serve is -32022 with the supported ones, a header that disagrees
// with the body -32020, a method the declared revision lacks -32601); on
// the stateful era, that a declared version is a mounted revision. It is
// nil when they agree. A notification is not checked.
//
// Not inlined: the copy of the exchange it passes would enlarge the stack
// frame of the transport function calling it, which is on the stack while
// the handler runs (see "Stack depth" in the doc of package streamhttp).
//
//go:noinline
func (x *Exchange) Check(ctx context.Context, hd mcpheader.Values) *jsonrpc.Error {
	return x.srv.eras[x.era].check(ctx, *x, hd)
}

// Serve serves the message in its era, with the server's middleware
// around it. sess is the stateful session the transport keeps for the
// message's client (nil for the stateless era; on a server without
// stateful revisions initialize is answered without one); out carries the
// messages related to a request (progress, logs, and on the stateless era
// a listen stream's notifications). Errors are *jsonrpc.Error values to
// answer with; others are internal errors. A notification's result is
// nil.
func (x *Exchange) Serve(ctx context.Context, sess *Session, out Outbound) (res wire.Marshaler, err error) {
	s := x.srv
	if s.incoming != nil {
		m := x.message(ctx, sess, out)
		res, err = s.incoming(ctx, m)
		m.release()
		return res, err
	}
	if s.recover {
		// Recovery, without a Message to build.
		defer s.recoverPanic(ctx, x.in.req, &res, &err)
	}
	return s.eras[x.era].serve(ctx, *x, sess, out)
}

// serveFinal is the innermost step of the incoming middleware chain: the
// era serving the message.
func serveFinal(ctx context.Context, m *Message) (wire.Marshaler, error) {
	return m.x.srv.eras[m.x.era].serve(ctx, m.x, m.sess, m.out)
}

// era is the runtime's implementation of one era: how a message of it is
// checked and served. A Server has one of each (Server.eras). The exchange
// is passed by value: it stays on the transport's stack.
type era interface {
	check(ctx context.Context, x Exchange, hd mcpheader.Values) *jsonrpc.Error
	serve(ctx context.Context, x Exchange, sess *Session, out Outbound) (wire.Marshaler, error)
}
