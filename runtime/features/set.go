package features

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/paginate"
	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Set holds the tools, prompts and resources a server serves from Go. It is
// safe for concurrent use; adding or removing items announces the change
// (notifications/…/list_changed, listen streams) to the server's clients.
type Set struct {
	// PageSize is how many items a list page holds (0: all on one page).
	PageSize int

	mu        sync.RWMutex
	tools     []*Tool
	prompts   []*Prompt
	resources []*Resource
	templates []*Template
	// kinds records the lists the set ever had items in: it serves their
	// methods, and the server declares their capabilities.
	kinds [numKinds]bool
	// completes records that a prompt or template completes: the set
	// serves completion/complete, and the server declares completions.
	completes bool
	watchers  []func(mcp.ListKind)
	// schemas are the compiled input schemas of the tools whose Call does
	// not check its arguments (*Tool → *compiledSchema).
	schemas sync.Map
}

type kind int

const (
	kindTools kind = iota
	kindPrompts
	kindResources
	numKinds
)

var _ mcp.Feature = (*Set)(nil)

// NewSet returns an empty set.
func NewSet() *Set { return &Set{} }

// AddTools adds tools; a name already in the set is replaced.
func (s *Set) AddTools(ts ...Tool) *Set {
	s.forgetSchemas(func(t *Tool) bool { return slices.ContainsFunc(ts, func(n Tool) bool { return n.Name == t.Name }) })
	add(s, &s.tools, ts, func(t *Tool) string { return t.Name }, kindTools, mcp.ToolsList)
	return s
}

// forgetSchemas drops the compiled input schemas of the tools gone.
func (s *Set) forgetSchemas(gone func(*Tool) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tools {
		if gone(t) {
			s.schemas.Delete(t)
		}
	}
}

// AddPrompts adds prompts; a name already in the set is replaced.
func (s *Set) AddPrompts(ps ...Prompt) *Set {
	s.noteCompletes(slices.ContainsFunc(ps, func(p Prompt) bool { return p.Complete != nil }))
	add(s, &s.prompts, ps, func(p *Prompt) string { return p.Name }, kindPrompts, mcp.PromptsList)
	return s
}

// noteCompletes records items that complete.
func (s *Set) noteCompletes(any bool) {
	if any {
		s.mu.Lock()
		s.completes = true
		s.mu.Unlock()
	}
}

// AddResources adds resources; a URI already in the set is replaced.
func (s *Set) AddResources(rs ...Resource) *Set {
	add(s, &s.resources, rs, func(r *Resource) string { return r.URI }, kindResources, mcp.ResourcesList)
	return s
}

// AddTemplates adds resource templates; a template already in the set is
// replaced.
func (s *Set) AddTemplates(ts ...Template) *Set {
	s.noteCompletes(slices.ContainsFunc(ts, func(t Template) bool { return t.Complete != nil }))
	add(s, &s.templates, ts, func(t *Template) string { return t.URITemplate }, kindResources, mcp.ResourcesList)
	return s
}

// add adds items to list (replacing those with the same key), records
// that the set has items of kind k, and announces the change of list.
func add[T any](s *Set, list *[]*T, items []T, key func(*T) string, k kind, change mcp.ListKind) {
	s.mu.Lock()
	for i := range items {
		item := new(T) // a copy: the caller's slice stays the caller's
		*item = items[i]
		if j := slices.IndexFunc(*list, func(x *T) bool { return key(x) == key(item) }); j >= 0 {
			(*list)[j] = item
		} else {
			*list = append(*list, item)
		}
	}
	s.kinds[k] = true
	s.mu.Unlock()
	s.changed(change)
}

// RemoveTools removes the named tools.
func (s *Set) RemoveTools(names ...string) {
	s.forgetSchemas(func(t *Tool) bool { return slices.Contains(names, t.Name) })
	s.mu.Lock()
	s.tools = slices.DeleteFunc(s.tools, func(t *Tool) bool { return slices.Contains(names, t.Name) })
	s.mu.Unlock()
	s.changed(mcp.ToolsList)
}

// RemovePrompts removes the named prompts.
func (s *Set) RemovePrompts(names ...string) {
	s.mu.Lock()
	s.prompts = slices.DeleteFunc(s.prompts, func(p *Prompt) bool { return slices.Contains(names, p.Name) })
	s.mu.Unlock()
	s.changed(mcp.PromptsList)
}

// RemoveResources removes the resources and templates with the given URIs
// (URI templates for templates).
func (s *Set) RemoveResources(uris ...string) {
	s.mu.Lock()
	s.resources = slices.DeleteFunc(s.resources, func(r *Resource) bool { return slices.Contains(uris, r.URI) })
	s.templates = slices.DeleteFunc(s.templates, func(t *Template) bool { return slices.Contains(uris, t.URITemplate) })
	s.mu.Unlock()
	s.changed(mcp.ResourcesList)
}

// Tool returns the named tool.
func (s *Set) Tool(name string) (Tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.tool(name); t != nil {
		return *t, true
	}
	return Tool{}, false
}

func (s *Set) tool(name string) *Tool {
	for _, t := range s.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (s *Set) changed(k mcp.ListKind) {
	s.mu.RLock()
	ws := slices.Clone(s.watchers)
	s.mu.RUnlock()
	for _, w := range ws {
		w(k)
	}
}

// Watch registers changed, which the set calls with the list whenever its
// items change (Attach announces them through the server).
func (s *Set) Watch(changed func(mcp.ListKind)) {
	s.mu.Lock()
	s.watchers = append(s.watchers, changed)
	s.mu.Unlock()
}

// Extensions reports the capability extensions the set's items need:
// MCP Apps (io.modelcontextprotocol/ui) once it has a UI resource. The
// server declares them where a revision has capability extensions.
func (s *Set) Extensions() map[string]wire.Raw {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if slices.ContainsFunc(s.resources, func(r *Resource) bool { return r.MIMEType == AppMIMEType }) {
		return map[string]wire.Raw{AppExtension: wire.Raw(`{"mimeTypes":["` + AppMIMEType + `"]}`)}
	}
	return nil
}

// Serves reports whether the set answers the methods of role: those of
// every list the set has had items in.
func (s *Set) Serves(role protocol.Role) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch role {
	case protocol.RoleToolsList, protocol.RoleToolsCall:
		return s.kinds[kindTools]
	case protocol.RolePromptsList, protocol.RolePromptsGet:
		return s.kinds[kindPrompts]
	case protocol.RoleResourcesList, protocol.RoleResourceTemplatesList, protocol.RoleResourcesRead:
		return s.kinds[kindResources]
	case protocol.RoleComplete:
		return s.completes
	}
	return false
}

// Serve answers one request in the shape of its revision; ErrNotInSet
// leaves it to the handler. Errors that are not *jsonrpc.Error are
// internal errors.
func (s *Set) Serve(ctx context.Context, req *Request) (wire.Raw, error) {
	switch req.Role {
	case protocol.RoleToolsList:
		return s.listTools(ctx, req)
	case protocol.RoleToolsCall:
		return s.callTool(ctx, req)
	case protocol.RolePromptsList:
		return s.listPrompts(ctx, req)
	case protocol.RolePromptsGet:
		return s.getPrompt(ctx, req)
	case protocol.RoleResourcesList:
		return s.listResources(ctx, req)
	case protocol.RoleResourceTemplatesList:
		return s.listTemplates(ctx, req)
	case protocol.RoleResourcesRead:
		return s.readResource(ctx, req)
	case protocol.RoleComplete:
		return s.complete(ctx, req)
	}
	return nil, ErrNotInSet
}

// page cuts a list for a request: everything when a handler continues it.
func page[T any](s *Set, req *Request, items []T) ([]T, string, error) {
	if req.Merged {
		return items, "", nil
	}
	cursor, err := stringParam(req.Params, "cursor")
	if err != nil {
		return nil, "", err
	}
	return paginate.Page(items, cursor, s.PageSize)
}

// list writes {"<member>":[items…],"nextCursor":…}.
func list[T any](s *Set, req *Request, member, def string, private bool, items []T, write func(*wire.Encoder, T)) (wire.Raw, error) {
	items, next, err := page(s, req, items)
	if err != nil {
		return nil, err
	}
	var e wire.Encoder
	e.ObjectStart()
	e.Field(member)
	e.ArrayStart()
	for _, it := range items {
		write(&e, it)
	}
	e.ArrayEnd()
	if next != "" {
		e.Field("nextCursor")
		e.Str(next)
	}
	st := req.Stamp
	if private && req.Protocol.Has(def, "cacheScope") {
		// A list that depends on the principal is theirs alone.
		if st != nil {
			c := *st
			c.CacheScope = "private"
			st = &c
		} else {
			// The server stamps it (validating results): the scope set
			// keeps its lifetime, 0, immediately stale.
			e.FieldRaw(`"ttlMs":0,"cacheScope":"private"`)
		}
	}
	mcp.WriteStamp(&e, st)
	e.ObjectEnd()
	return e.Bytes(), e.Err()
}

// visible keeps the items served (a revision's) that the principal of ctx
// sees, filtering items (the caller's copy) in place; private reports a
// list that depends on the principal.
func visible[T any](ctx context.Context, items []*T, served func(*T) bool, vis func(*T) func(context.Context) bool) (out []*T, private bool) {
	out = items[:0]
	for _, it := range items {
		if !served(it) {
			continue
		}
		if v := vis(it); v != nil {
			private = true
			if !v(ctx) {
				continue
			}
		}
		out = append(out, it)
	}
	return out, private
}

// sees reports whether the principal of ctx sees an item with predicate v.
func sees(ctx context.Context, v func(context.Context) bool) bool { return v == nil || v(ctx) }

// stringParam reads a string member of params ("" when absent).
func stringParam(params wire.Raw, name string) (string, error) {
	if len(params) == 0 {
		return "", nil
	}
	var v string
	d := wire.NewDecoder(params)
	err := d.Object(func(key []byte) error {
		if string(key) != name || d.Peek() != wire.String {
			return d.Skip()
		}
		var err error
		v, err = d.Str()
		return err
	})
	if err != nil {
		return "", mcp.InvalidParams("/params", err.Error())
	}
	return v, nil
}

// stringMap reads an object of strings member of params.
func stringMap(params wire.Raw, name string) (map[string]string, error) {
	out := map[string]string{}
	if len(params) == 0 {
		return out, nil
	}
	d := wire.NewDecoder(params)
	err := d.Object(func(key []byte) error {
		if string(key) != name || d.Peek() != wire.Object {
			return d.Skip()
		}
		return d.Object(func(k []byte) error {
			if d.Peek() != wire.String {
				return mcp.InvalidParams("/params/"+name+"/"+string(k), "must be a string")
			}
			v, err := d.Str()
			out[string(k)] = v
			return err
		})
	})
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return nil, err
	}
	if err != nil {
		return nil, mcp.InvalidParams("/params", err.Error())
	}
	return out, nil
}
