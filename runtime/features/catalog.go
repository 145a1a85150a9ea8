package features

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A Set plugs into a server as an mcp.Feature (mcp.ServerOptions.Features):
// it answers the methods of its lists before the mounted handler, in the
// shape of each request's revision, and leaves the handler the rest — a
// call or read of a name it does not know, and the items after its own in
// a list the handler also serves. An item of the handler's list that the
// set lists too (the same name, URI or URI template) is left out of the
// merged list and logged as an error once: its calls reach the set's.

// Request is a request the Set serves (Serve): what the runtime read of
// it, for the set to answer in the shape of its revision.
type Request struct {
	// Role is the method's role (RoleToolsCall, RolePromptsGet, …).
	Role protocol.Role
	// Protocol is the request's revision.
	Protocol *protocol.Protocol
	// Params are the request's params (nil when absent).
	Params wire.Raw
	// Name is params.name (the tool of tools/call, the prompt of
	// prompts/get), and Arguments params.arguments of tools/call.
	Name      string
	Arguments wire.Raw
	// Handled reports a method the mounted handler also serves: a name
	// the set does not know is answered with ErrNotInSet (else with the
	// revision's error for an unknown name).
	Handled bool
	// Merged reports a list the handler continues: the set lists all its
	// items, unpaginated, on the first page.
	Merged bool
	// Stamp is what the revision asks of every result: the set writes
	// resultType "complete", the cache fields of a cacheable result and
	// the server's Implementation as _meta, so that the result it writes
	// is sent as it is. Nil when the revision asks nothing.
	Stamp *protocol.Stamp

	// unchecked records a server built with DisableToolSchemas: the set
	// checks no arguments for it either.
	unchecked bool
}

// ErrNotInSet is a Set's answer to a name it does not serve.
var ErrNotInSet = errors.New("features: not in the set")

// roles are the roles whose methods a set may serve, and the lists among
// them.
var roles = map[protocol.Role]bool{
	protocol.RoleToolsList: true, protocol.RoleToolsCall: false,
	protocol.RolePromptsList: true, protocol.RolePromptsGet: false,
	protocol.RoleResourcesList: true, protocol.RoleResourceTemplatesList: true, protocol.RoleResourcesRead: false,
	protocol.RoleComplete: false,
}

// Attach implements mcp.Feature: the set serves its lists' methods on
// every mounted revision, declares their capabilities (listChanged: its
// items may change while the server runs) and its items' capability
// extensions (an MCP App's), and announces the changes of its lists.
func (s *Set) Attach(reg *mcp.Registry) error {
	// Per server: a set attached to several follows each one's option.
	unchecked := reg.Options().DisableToolSchemas
	if err := s.declare(reg, unchecked); err != nil {
		return err
	}
	reg.ListChanged()
	shadowed := &shadowLog{log: reg.Logger(), seen: map[string]bool{}}
	srv := reg.Server()
	s.Watch(func(k mcp.ListKind) { srv.NotifyListChanged(context.Background(), k) })
	for role, list := range roles {
		reg.Route(mcp.Route{
			Role:   role,
			Serves: func(*protocol.Protocol) bool { return s.Serves(role) },
			Step:   s.step(role, list, shadowed, unchecked),
		})
	}
	reg.Capabilities(func(_ *protocol.Protocol, _ func(protocol.Role) bool, c *mcp.Capabilities) {
		for k, v := range s.Extensions() {
			c.Extensions[k] = v
		}
	})
	return nil
}

// declare declares the set's items to reg, which refuses one another
// feature serves too, after refusing any that cannot be served
// (declared.go).
func (s *Set) declare(reg *mcp.Registry, unchecked bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tools {
		if err := toolProblem(t); err != nil {
			return err
		}
		if err := s.checkable(t, unchecked); err != nil {
			return err
		}
		if err := reg.Declare("tool", t.Name); err != nil {
			return err
		}
	}
	for _, p := range s.prompts {
		if err := promptProblem(p); err != nil {
			return err
		}
		if err := reg.Declare("prompt", p.Name); err != nil {
			return err
		}
	}
	for _, r := range s.resources {
		if err := resourceProblem(r); err != nil {
			return err
		}
		if err := reg.Declare("resource", r.URI); err != nil {
			return err
		}
	}
	for _, t := range s.templates {
		if err := templateProblem(t); err != nil {
			return err
		}
		if err := reg.Declare("template", t.URITemplate); err != nil {
			return err
		}
	}
	return nil
}

// step serves the methods of role (list: one of the lists) from the set,
// leaving the handler what the set does not serve.
func (s *Set) step(role protocol.Role, list bool, shadowed *shadowLog, unchecked bool) mcp.Step {
	return func(ctx context.Context, r *mcp.Request, next mcp.Next) (wire.Marshaler, error) {
		if !s.Serves(role) {
			return next.Serve()
		}
		handled := r.Handled()
		req := &Request{Role: role, Protocol: r.Protocol, Params: r.Params(), Handled: handled, Merged: list && handled, Stamp: r.Stamp(), unchecked: unchecked}
		switch role {
		case protocol.RoleToolsCall:
			req.Name, req.Arguments = r.Name(), r.Arguments()
		case protocol.RolePromptsGet:
			req.Name = r.Name()
		}
		data, err := s.Serve(ctx, req)
		switch {
		case errors.Is(err, ErrNotInSet) && handled:
			return next.Serve()
		case err != nil:
			return nil, err
		}
		if req.Merged {
			more, err := next.Serve()
			if err != nil {
				return nil, err
			}
			var dups []string
			if data, dups, err = mergeLists(data, more); err != nil {
				return nil, fmt.Errorf("features: %s: %w", r.Method, err)
			}
			shadowed.report(r.Method, dups)
		}
		return r.Written(data)
	}
}

// shadowLog logs, once each, the handler's list items a set shadows.
type shadowLog struct {
	log  *slog.Logger
	mu   sync.Mutex
	seen map[string]bool
}

func (l *shadowLog) report(method string, keys []string) {
	for _, k := range keys {
		l.mu.Lock()
		first := !l.seen[method+"\x00"+k]
		l.seen[method+"\x00"+k] = true
		l.mu.Unlock()
		if first {
			l.log.Error("features: the handler lists an item a Set serves too: its calls reach the Set's, so the handler's is left out of the list; rename or remove one",
				"method", method, "item", k)
		}
	}
}

// itemKeys are the members that identify a list's items.
var itemKeys = []string{"name", "uri", "uriTemplate"}

// itemKey is what identifies a list item: its uriTemplate, uri or name.
func itemKey(item wire.Raw) string {
	for i := len(itemKeys) - 1; i >= 0; i-- {
		if v, ok := wire.MemberOf(item, itemKeys[i]); ok && v.Kind() == wire.String {
			if k, err := wire.NewDecoder(v).Str(); err == nil {
				return itemKeys[i] + " " + k
			}
		}
	}
	return ""
}

// arrayItems are the items of a JSON array.
func arrayItems(a wire.Raw) ([]wire.Raw, error) {
	var out []wire.Raw
	d := wire.NewDecoder(a)
	err := d.Array(func() error {
		v, err := d.Raw()
		out = append(out, v)
		return err
	})
	return out, err
}

// withoutShadowed returns the handler's items h less those whose key one
// of the set's items v has, and those keys.
func withoutShadowed(v, h wire.Raw) (wire.Raw, []string, error) {
	own, err := arrayItems(v)
	if err != nil {
		return nil, nil, err
	}
	keys := map[string]bool{}
	for _, it := range own {
		if k := itemKey(it); k != "" {
			keys[k] = true
		}
	}
	theirs, err := arrayItems(h)
	if err != nil {
		return nil, nil, err
	}
	var dups []string
	kept := theirs[:0]
	for _, it := range theirs {
		if k := itemKey(it); k != "" && keys[k] {
			dups = append(dups, k)
			continue
		}
		kept = append(kept, it)
	}
	if dups == nil {
		return h, nil, nil
	}
	var e wire.Encoder
	e.ArrayStart()
	for _, it := range kept {
		e.Raw(it)
	}
	e.ArrayEnd()
	return e.Bytes(), dups, e.Err()
}

// mergeLists appends the items of the handler's list result (its only
// array member) to the set's, less those the set lists too (returned as
// dups), and keeps the handler's other members (nextCursor).
func mergeLists(set wire.Raw, handler wire.Marshaler) (merged wire.Raw, dups []string, err error) {
	more, err := wire.Marshal(handler)
	if err != nil {
		return nil, nil, err
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
		return nil, nil, err
	}
	var e wire.Encoder
	e.ObjectStart()
	d = wire.NewDecoder(set)
	if err := d.Object(func(key []byte) error {
		v, err := d.Raw()
		if err != nil {
			return err
		}
		e.Field(string(key))
		if h, ok := items[string(key)]; ok && v.Kind() == wire.Array {
			h, shadowed, err := withoutShadowed(v, h)
			if err != nil {
				return err
			}
			dups = append(dups, shadowed...)
			e.Raw(joinArrays(v, h))
			return nil
		}
		e.Raw(v)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	_, setMeta := wire.MemberOf(set, "_meta")
	for _, m := range rest {
		if m.Name == "nextCursor" || (m.Name == "_meta" && !setMeta) {
			e.Field(m.Name)
			e.Raw(m.Value)
		}
	}
	e.ObjectEnd()
	return e.Bytes(), dups, e.Err()
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
