// Package mcp serves and calls the Model Context Protocol with the
// packages mcpgen generates, one per protocol revision, in both of the
// protocol's eras: the stateful revisions (2024-11-05 … 2025-11-25, which
// open a session with initialize) and the stateless ones (2026-07-28 on,
// whose every request carries its version and the client's capabilities).
//
// # Servers
//
// NewServer serves the revisions mounted on it — each generated package's
// Mount(handler), a value implementing any of the methods of that
// revision's Server interface — and declared tools, prompts and resources
// (ServerOptions.Catalog, which mcpgen tools generates from Go functions).
// Transports serve it: package stdio over standard input and output,
// package streamhttp over Streamable HTTP, each both eras at once.
//
// A handler learns about and acts for the request it serves through
// RequestFrom(ctx): the client's capabilities, progress, logs, calls back
// to a stateful client (ClientOf), tasks, sealed requestState, and the
// request's HTTP headers.
//
// # Clients
//
// Connect opens a session with a server over a ClientTransport (the
// transports' client sides) in the era ClientOptions.Era chooses, once; the
// generated Client of the negotiated revision makes typed calls through
// the ClientSession, and the mounted handlers answer the server's requests
// (sampling, elicitation, roots).
//
// # Middleware
//
// A Middleware (ServerOptions.Middleware, ClientOptions.Middleware) wraps
// every message a server or client receives and sends, on every era and
// transport, and sees it as a Message: method, id, params, principal,
// session, revision, transport header, and the outcome. Recovery, on by
// default, answers a panic with an internal error; RequestLog logs each
// message with slog.
//
// # Transports
//
// A transport hands each message it receives to Server.Accept, which
// reads it once and picks the era that serves it; the transport serves the
// Exchange it returns, in the Session it keeps for a stateful client
// (Server.NewSession, RestoreSession). ServeConn serves a whole message
// stream that way. A client transport implements ClientTransport.
//
// The descriptors generated packages give the runtime, and the helpers
// their code calls, are in package protocol; runnable examples of the main
// tasks are in examples/hello (example_test.go) of the mcpgen repository.
package mcp
