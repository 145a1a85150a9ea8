package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Catalog serves server features declared once, in Go, for every mounted
// revision: tools, prompts and resources (package runtime/features, whose
// code mcpgen tools generates). The runtime gives it the methods of the
// roles it serves; it answers with the result as JSON in the shape of the
// request's revision (Protocol.Has tells what that revision can carry),
// which the runtime decodes into the revision's own result type
// (Method.NewResult) and then treats as a handler's result: stamped,
// validated, written as the revision writes it.
//
// A handler mounted beside a catalog keeps the rest: a call or read of a
// name the catalog does not know (ErrNotInCatalog) goes to the handler's
// method, and a handler's list is served after the catalog's items.
type Catalog interface {
	// Serves reports whether the catalog answers the method in role.
	Serves(role protocol.Role) bool
	// Serve answers one request; ErrNotInCatalog leaves it to the
	// handler. Errors that are not *jsonrpc.Error are internal errors.
	Serve(ctx context.Context, req *CatalogRequest) (wire.Raw, error)
	// Watch registers changed, which the catalog calls with the list
	// whenever its items change; the server announces it to its clients.
	Watch(changed func(list ListKind))
}

// CatalogRequest is a request a Catalog serves.
type CatalogRequest struct {
	// Role is the method's role (RoleToolsCall, RolePromptsGet, …).
	Role protocol.Role
	// Protocol is the request's revision.
	Protocol *protocol.Protocol
	// Params are the request's params (nil when absent).
	Params wire.Raw
	// Name is params.name (the tool of tools/call, the prompt of
	// prompts/get), and Arguments params.arguments of tools/call, as the
	// runtime read them when it classified the request.
	Name      string
	Arguments wire.Raw
	// Handled reports a method the mounted handler also serves: the
	// catalog answers a name it does not know with ErrNotInCatalog (else
	// with the revision's error for an unknown name).
	Handled bool
	// Merged reports a list the handler continues: the catalog lists all
	// its items, unpaginated, on the first page.
	Merged bool
	// Stamp is what the revision asks of every result: the catalog writes
	// resultType "complete", the cache fields of a cacheable result
	// (Stamp.CacheScope, Stamp.TTLMs) and the server's Implementation as
	// _meta MetaServerInfo, so that the result it writes is sent as it is,
	// without being decoded and written again. Nil when the revision asks
	// nothing, or when the server validates its results
	// (ServerOptions.ValidateResults): it then decodes, stamps and
	// validates the result as a handler's.
	Stamp *protocol.Stamp
}

// ErrNotInCatalog is a Catalog's answer to a name it does not serve.
var ErrNotInCatalog = errors.New("mcp: not in the catalog")

// catalogRoles are the roles whose methods a catalog may serve, and the
// lists among them.
var catalogRoles = map[protocol.Role]bool{
	protocol.RoleToolsList: true, protocol.RoleToolsCall: false,
	protocol.RolePromptsList: true, protocol.RolePromptsGet: false,
	protocol.RoleResourcesList: true, protocol.RoleResourceTemplatesList: true, protocol.RoleResourcesRead: false,
	protocol.RoleComplete: false,
}

// catalogRoute reports whether a catalog is asked first for md: the
// server has one, md's role is one a catalog may serve, and the revision
// can carry its answers. What the catalog serves may change while the
// server runs (items added later), so the route is decided once and the
// catalog asked per request.
func (s *Server) catalogRoute(md *protocol.Method) bool {
	if s.opts.Catalog == nil || md.NewResult == nil {
		return false
	}
	_, ok := catalogRoles[md.Role]
	return ok
}

// routesCatalog reports whether the catalog serves md now.
func (s *Server) routesCatalog(md *protocol.Method) bool {
	return s.catalogRoute(md) && s.opts.Catalog.Serves(md.Role)
}

// fromCatalog produces the result of a request the catalog serves: its
// answer, stamped and sent as the catalog wrote it (encoded once), or the
// handler's where the catalog leaves the request to it. A server that
// validates its results decodes the catalog's answer into the revision's
// type first, and treats it as a handler's result (stamped, validated).
func (s *Server) fromCatalog(rc *reqCtx) (wire.Marshaler, error) {
	mount, m := rc.r.mount, rc.r.route.method
	handled := m.Implemented != nil && m.Implemented(mount.Handler)
	list := catalogRoles[m.Role]
	// One allocation holds the request and the result the catalog writes.
	c := &struct {
		req CatalogRequest
		out writtenResult
	}{req: CatalogRequest{Role: m.Role, Protocol: mount.Protocol, Params: rc.r.in.req.Params, Handled: handled, Merged: list && handled}}
	req := &c.req
	if !s.validate {
		req.Stamp = s.stamps[m]
	}
	if m.Role == protocol.RoleToolsCall {
		req.Name, req.Arguments = rc.r.in.toolName(), rc.r.in.args
	} else if m.Role == protocol.RolePromptsGet {
		req.Name = rc.r.in.named[0]
	}
	if !s.opts.Catalog.Serves(m.Role) {
		if handled {
			return s.fromHandler(rc)
		}
		return nil, jsonrpc.MethodNotFound(m.Name)
	}
	data, err := s.opts.Catalog.Serve(rc, req)
	switch {
	case errors.Is(err, ErrNotInCatalog) && handled:
		return s.fromHandler(rc)
	case err != nil:
		return nil, err
	}
	if req.Merged {
		more, err := s.fromHandler(rc)
		if err != nil {
			return nil, err
		}
		if data, err = mergeLists(data, more); err != nil {
			return nil, fmt.Errorf("mcp: %s: %w", m.Name, err)
		}
	}
	if s.validate {
		res := m.NewResult()
		if err := wire.Unmarshal(data, res); err != nil {
			return nil, fmt.Errorf("mcp: %s: the catalog's result does not decode as revision %s's: %w", m.Name, mount.Protocol.Revision, err)
		}
		return res, nil
	}
	c.out.raw = data
	return &c.out, nil
}

// writtenResult is a result written as JSON, in the revision's shape and
// stamped: it is sent as it is (Protocol.Stamp leaves it alone).
type writtenResult struct{ raw wire.Raw }

// EncodeJSON implements wire.Marshaler.
func (w *writtenResult) EncodeJSON(e *wire.Encoder) { e.Raw(w.raw) }

// written returns the JSON of a result written as JSON, if it is one.
func written(res wire.Marshaler) (wire.Raw, bool) {
	switch r := res.(type) {
	case *writtenResult:
		return r.raw, true
	case wire.Raw:
		return r, true
	}
	return nil, false
}

// fromHandler produces a result with the mounted handler, checking a
// tools/call's arguments against the schema the handler lists first.
func (s *Server) fromHandler(rc *reqCtx) (wire.Marshaler, error) {
	mount, m := rc.r.mount, rc.r.route.method
	if m.Role == protocol.RoleToolsCall {
		if res, err := s.tools.checkCall(rc, mount); res != nil || err != nil {
			return res, err
		}
	}
	return m.Serve(rc, mount.Handler, rc.r.in.req.Params)
}

// mergeLists appends the items of the handler's list result (its only
// array member) to the catalog's, and keeps the handler's other members
// (nextCursor).
func mergeLists(catalog wire.Raw, handler wire.Marshaler) (wire.Raw, error) {
	more, err := wire.Marshal(handler)
	if err != nil {
		return nil, err
	}
	items := map[string]wire.Raw{}
	var rest wire.Members
	d := wire.NewDecoder(more)
	if err := d.Object(func(key []byte) error {
		v, err := d.Raw()
		if err != nil {
			return err
		}
		if v.Kind() == wire.Array {
			items[string(key)] = v
		} else {
			rest = append(rest, wire.Member{Name: string(key), Value: v})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var e wire.Encoder
	e.ObjectStart()
	d = wire.NewDecoder(catalog)
	if err := d.Object(func(key []byte) error {
		v, err := d.Raw()
		if err != nil {
			return err
		}
		e.Field(string(key))
		if h, ok := items[string(key)]; ok && v.Kind() == wire.Array {
			e.Raw(joinArrays(v, h))
			return nil
		}
		e.Raw(v)
		return nil
	}); err != nil {
		return nil, err
	}
	_, catalogMeta := wire.MemberOf(catalog, "_meta")
	for _, m := range rest {
		if m.Name == "nextCursor" || (m.Name == "_meta" && !catalogMeta) {
			e.Field(m.Name)
			e.Raw(m.Value)
		}
	}
	e.ObjectEnd()
	return e.Bytes(), e.Err()
}

// joinArrays joins two JSON arrays.
func joinArrays(a, b wire.Raw) wire.Raw {
	ai, bi := trimArray(a), trimArray(b)
	out := make(wire.Raw, 0, len(ai)+len(bi)+3)
	out = append(out, '[')
	out = append(out, ai...)
	if len(ai) > 0 && len(bi) > 0 {
		out = append(out, ',')
	}
	out = append(out, bi...)
	return append(out, ']')
}

// trimArray returns the items of a JSON array, without the brackets and
// surrounding space.
func trimArray(a wire.Raw) []byte {
	s := []byte(a)
	for len(s) > 0 && s[0] != '[' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] != ']' {
		s = s[:len(s)-1]
	}
	if len(s) < 2 {
		return nil
	}
	s = s[1 : len(s)-1]
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r') {
		s = s[1:]
	}
	return s
}

// watchCatalog announces the catalog's list changes.
func (s *Server) watchCatalog() {
	if s.opts.Catalog == nil {
		return
	}
	s.opts.Catalog.Watch(func(list ListKind) {
		s.NotifyListChanged(context.Background(), list)
	})
}

// serves reports whether the server answers the method in role r on a
// mounted revision: its handler implements it, or the catalog serves it.
func (s *Server) serves(m *mounted, r protocol.Role) bool {
	md := m.Protocol.Role(r)
	if md == nil {
		return false
	}
	return (md.Implemented != nil && md.Implemented(m.Handler)) || s.routesCatalog(md)
}

// checkCatalog refuses a revision whose generated table cannot carry the
// catalog's answers (no NewResult: generated by an mcpgen before the
// catalog existed), rather than leave its methods unanswered.
func checkCatalog(c Catalog, p *protocol.Protocol) error {
	if c == nil {
		return nil
	}
	for role := range catalogRoles {
		if md := p.Role(role); md != nil && c.Serves(role) && md.NewResult == nil {
			return fmt.Errorf("mcp: revision %s: its package has no result constructor for %s (Method.NewResult), which ServerOptions.Catalog needs: generate it again with this module's mcpgen", p.Revision, md.Name)
		}
	}
	return nil
}
