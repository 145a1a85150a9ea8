package mcp

import "context"

// A principal is who a request acts for: the subject an authenticating
// transport established (a token's subject, say), or "" when the transport
// authenticates no one (stdio; an HTTP endpoint without authentication).
// The runtime binds to it whatever a request opens, and lets only the same
// principal use it afterwards:
//
//   - a stateful session, from its initialize on (the HTTP transport
//     answers another principal's request 404, as if the session did not
//     exist);
//   - a task (another principal's tasks/get, tasks/result, tasks/update,
//     tasks/cancel find no such task, -32602; tasks/list does not show it);
//   - a requestState (sealed with the principal: another principal's retry
//     is refused, -32602).
//
// Transports put the principal in the context they serve a request with,
// with WithPrincipal; package streamhttp takes it from Options.Auth.

type principalKey struct{}

// WithPrincipal returns a copy of ctx carrying principal, the subject the
// requests served with it act for ("" for none).
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalFrom returns the principal ctx carries, "" for none.
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}
