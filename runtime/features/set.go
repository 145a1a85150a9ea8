package features

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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
}

type kind int

const (
	kindTools kind = iota
	kindPrompts
	kindResources
	numKinds
)

var _ mcp.Catalog = (*Set)(nil)

// NewSet returns an empty set.
func NewSet() *Set { return &Set{} }

// AddTools adds tools; a name already in the set is replaced.
func (s *Set) AddTools(ts ...Tool) *Set {
	add(s, &s.tools, ts, func(t *Tool) string { return t.Name }, kindTools, mcp.ToolsList)
	return s
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

// Watch implements mcp.Catalog.
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

// Serves implements mcp.Catalog: the methods of every list the set has
// had items in.
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

// Serve implements mcp.Catalog.
func (s *Set) Serve(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
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
	return nil, mcp.ErrNotInCatalog
}

// maxCompletions is the most values a completion result carries (the
// spec's bound).
const maxCompletions = 100

// complete answers completion/complete for a prompt or template of the
// set that completes; anything else is left to the handler (or answered
// with no values).
func (s *Set) complete(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	var ref struct{ typ, name, uri string }
	var arg struct{ name, value string }
	var resolved map[string]string
	d := wire.NewDecoder(req.Params)
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "ref":
			return d.Object(func(k []byte) error {
				var err error
				switch string(k) {
				case "type":
					ref.typ, err = d.Str()
				case "name":
					ref.name, err = d.Str()
				case "uri":
					ref.uri, err = d.Str()
				default:
					err = d.Skip()
				}
				return err
			})
		case "argument":
			return d.Object(func(k []byte) error {
				var err error
				switch string(k) {
				case "name":
					arg.name, err = d.Str()
				case "value":
					arg.value, err = d.Str()
				default:
					err = d.Skip()
				}
				return err
			})
		case "context":
			return d.Object(func(k []byte) error {
				if string(k) != "arguments" {
					return d.Skip()
				}
				resolved = map[string]string{}
				return d.Object(func(name []byte) error {
					v, err := d.Str()
					resolved[string(name)] = v
					return err
				})
			})
		}
		return d.Skip()
	})
	if err != nil {
		return nil, mcp.InvalidParams("/params", "completion/complete: "+err.Error())
	}
	var complete Completer
	s.mu.RLock()
	switch ref.typ {
	case "ref/prompt":
		for _, p := range s.prompts {
			if p.Name == ref.name && p.Eras.serves(req.Protocol) && sees(ctx, p.Visible) {
				complete = p.Complete
			}
		}
	case "ref/resource":
		for _, t := range s.templates {
			if t.URITemplate == ref.uri && sees(ctx, t.Visible) {
				complete = t.Complete
			}
		}
	}
	s.mu.RUnlock()
	if complete == nil {
		if req.Handled {
			return nil, mcp.ErrNotInCatalog
		}
		complete = func(context.Context, string, string, map[string]string) ([]string, error) { return nil, nil }
	}
	values, err := complete(ctx, arg.name, arg.value, resolved)
	if err != nil {
		return nil, err
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"completion":{"values":`)
	e.ArrayStart()
	for i, v := range values {
		if i == maxCompletions {
			break
		}
		e.Str(v)
	}
	e.ArrayEnd()
	if len(values) > maxCompletions {
		e.Field("total")
		e.Int64(int64(len(values)))
		e.Field("hasMore")
		e.Bool(true)
	}
	e.ObjectEnd()
	writeStamp(e, req.Stamp)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}

// page cuts a list for a request: everything when a handler continues it.
func page[T any](s *Set, req *mcp.CatalogRequest, items []T) ([]T, string, error) {
	if req.Merged {
		return items, "", nil
	}
	cursor, err := stringParam(req.Params, "cursor")
	if err != nil {
		return nil, "", err
	}
	return mcp.Page(items, cursor, s.PageSize)
}

// list writes {"<member>":[items…],"nextCursor":…}.
func list[T any](s *Set, req *mcp.CatalogRequest, member, def string, private bool, items []T, write func(*wire.Encoder, T)) (wire.Raw, error) {
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
	writeStamp(&e, st)
	e.ObjectEnd()
	return e.Bytes(), e.Err()
}

// writeStamp writes what the revision asks of every result (see
// mcp.CatalogRequest.Stamp), as the result's last members.
func writeStamp(e *wire.Encoder, st *protocol.Stamp) {
	if st == nil {
		return
	}
	e.FieldRaw(`"resultType":`)
	e.Str("complete")
	if st.CacheScope != "" {
		e.FieldRaw(`"ttlMs":`)
		e.Int64(st.TTLMs)
		e.FieldRaw(`"cacheScope":`)
		e.Str(st.CacheScope)
	}
	if st.ServerName != "" {
		e.FieldRaw(`"_meta":`)
		e.ObjectStart()
		e.Field(mcp.MetaServerInfo)
		e.ObjectStart()
		e.FieldRaw(`"name":`)
		e.Str(st.ServerName)
		e.FieldRaw(`"version":`)
		e.Str(st.ServerVersion)
		e.ObjectEnd()
		e.ObjectEnd()
	}
}

func (s *Set) listTools(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	s.mu.RLock()
	tools := slices.Clone(s.tools)
	s.mu.RUnlock()
	tools, private := visible(ctx, tools, func(t *Tool) bool { return t.Eras.serves(req.Protocol) }, func(t *Tool) func(context.Context) bool { return t.Visible })
	return list(s, req, "tools", "ListToolsResult", private, tools, func(e *wire.Encoder, t *Tool) { writeTool(e, req.Protocol, t) })
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

// writeTool writes a tool's definition with the members revision p has.
func writeTool(e *wire.Encoder, p *protocol.Protocol, t *Tool) {
	e.ObjectStart()
	e.Field("name")
	e.Str(t.Name)
	optString(e, p, "Tool", "title", t.Title)
	optString(e, p, "Tool", "description", t.Description)
	e.Field("inputSchema")
	if t.InputSchema != nil {
		e.Raw(t.InputSchema)
	} else {
		e.Raw(wire.Raw(`{"type":"object"}`))
	}
	if t.OutputSchema != nil && p.Has("Tool", "outputSchema") {
		e.Field("outputSchema")
		e.Raw(t.OutputSchema)
	}
	if !t.Annotations.empty() && p.Has("Tool", "annotations") {
		a := t.Annotations
		e.Field("annotations")
		e.ObjectStart()
		optString(e, p, "ToolAnnotations", "title", a.Title)
		for _, h := range []struct {
			name string
			v    wire.Opt[bool]
		}{{"readOnlyHint", a.ReadOnly}, {"destructiveHint", a.Destructive}, {"idempotentHint", a.Idempotent}, {"openWorldHint", a.OpenWorld}} {
			if h.v.Set && p.Has("ToolAnnotations", h.name) {
				e.Field(h.name)
				e.Bool(h.v.Value)
			}
		}
		e.ObjectEnd()
	}
	if t.Task != mcp.TaskForbidden && p.Has("Tool", "execution") {
		e.FieldRaw(`"execution":{"taskSupport":`)
		e.Str(t.Task.String())
		e.ObjectEnd()
	}
	writeIconsMeta(e, p, "Tool", t.Icons, t.Meta)
	e.ObjectEnd()
}

// writeIconsMeta writes an item's icons and _meta where def has them in
// revision p.
func writeIconsMeta(e *wire.Encoder, p *protocol.Protocol, def string, icons []Icon, meta wire.Raw) {
	if len(icons) > 0 && p.Has(def, "icons") {
		e.Field("icons")
		e.ArrayStart()
		for _, ic := range icons {
			e.ObjectStart()
			e.Field("src")
			e.Str(ic.Src)
			optString(e, p, "Icon", "mimeType", ic.MIMEType)
			if len(ic.Sizes) > 0 && p.Has("Icon", "sizes") {
				e.Field("sizes")
				e.ArrayStart()
				for _, sz := range ic.Sizes {
					e.Str(sz)
				}
				e.ArrayEnd()
			}
			optString(e, p, "Icon", "theme", ic.Theme)
			e.ObjectEnd()
		}
		e.ArrayEnd()
	}
	if meta != nil && p.Has(def, "_meta") {
		e.Field("_meta")
		e.Raw(meta)
	}
}

// optString writes a string member when it is set and def has it.
func optString(e *wire.Encoder, p *protocol.Protocol, def, member, v string) {
	if v != "" && p.Has(def, member) {
		e.Field(member)
		e.Str(v)
	}
}

func (s *Set) callTool(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	s.mu.RLock()
	t := s.tool(req.Name)
	s.mu.RUnlock()
	if t != nil && (!t.Eras.serves(req.Protocol) || !sees(ctx, t.Visible)) {
		t = nil // to a principal who does not see it, it does not exist
	}
	if t == nil {
		if req.Handled {
			return nil, mcp.ErrNotInCatalog
		}
		return nil, mcp.InvalidParams("/params/name", "unknown tool "+req.Name)
	}
	// A task asked of a tool that forbids them is the runtime's error too.
	if r := mcp.RequestFrom(ctx); r != nil && (t.Task != mcp.TaskForbidden || r.TasksRequested()) {
		asTask, err := r.TaskMode(t.Task)
		if err != nil {
			return nil, err
		}
		if asTask {
			return nil, r.StartTask(func(ctx context.Context, _ *mcp.Task) (wire.Marshaler, error) {
				return s.runTool(ctx, req, t)
			})
		}
	}
	return s.runTool(ctx, req, t)
}

// runTool runs a call and writes its CallToolResult for the request's
// revision.
func (s *Set) runTool(ctx context.Context, req *mcp.CatalogRequest, t *Tool) (wire.Raw, error) {
	p, args := req.Protocol, req.Arguments
	res, err := t.Call(ctx, args)
	if err != nil {
		var ae *ArgumentError
		var je *jsonrpc.Error
		var aw *mcp.AnswerWith
		switch {
		case errors.As(err, &aw), errors.As(err, &je), ctx.Err() != nil:
			return nil, err
		case errors.As(err, &ae) && p.ToolError == nil:
			// Arguments that break the schema are a protocol error in
			// this revision.
			return nil, mcp.InvalidParams("/params/arguments"+ae.Pointer(), ae.Error())
		case errors.As(err, &ae):
			res = &Result{Content: []Content{Text("invalid arguments for tool " + t.Name + ": " + ae.Error())}, IsError: true}
		default:
			res = &Result{Content: []Content{Text(err.Error())}, IsError: true}
		}
	}
	if res == nil {
		return nil, fmt.Errorf("features: tool %s returned no result and no error", t.Name)
	}
	return writeResult(p, req.Stamp, res)
}

// writeResult writes a CallToolResult for revision p, stamped with st.
func writeResult(p *protocol.Protocol, st *protocol.Stamp, r *Result) (wire.Raw, error) {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.Field("content")
	e.ArrayStart()
	for _, c := range r.Content {
		c.write(e, p)
	}
	e.ArrayEnd()
	if r.Structured != nil && p.Has("CallToolResult", "structuredContent") {
		e.Field("structuredContent")
		e.Raw(r.Structured)
	}
	if r.IsError {
		e.FieldRaw(`"isError":`)
		e.Bool(true)
	}
	writeStamp(e, st)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}

func (s *Set) listPrompts(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	s.mu.RLock()
	prompts := slices.Clone(s.prompts)
	s.mu.RUnlock()
	prompts, private := visible(ctx, prompts, func(p *Prompt) bool { return p.Eras.serves(req.Protocol) }, func(p *Prompt) func(context.Context) bool { return p.Visible })
	p := req.Protocol
	return list(s, req, "prompts", "ListPromptsResult", private, prompts, func(e *wire.Encoder, pr *Prompt) {
		e.ObjectStart()
		e.Field("name")
		e.Str(pr.Name)
		optString(e, p, "Prompt", "title", pr.Title)
		optString(e, p, "Prompt", "description", pr.Description)
		if len(pr.Arguments) > 0 {
			e.Field("arguments")
			e.ArrayStart()
			for _, a := range pr.Arguments {
				e.ObjectStart()
				e.Field("name")
				e.Str(a.Name)
				optString(e, p, "PromptArgument", "title", a.Title)
				optString(e, p, "PromptArgument", "description", a.Description)
				if a.Required {
					e.FieldRaw(`"required":true`)
				}
				e.ObjectEnd()
			}
			e.ArrayEnd()
		}
		writeIconsMeta(e, p, "Prompt", pr.Icons, pr.Meta)
		e.ObjectEnd()
	})
}

func (s *Set) getPrompt(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	s.mu.RLock()
	var pr *Prompt
	for _, x := range s.prompts {
		if x.Name == req.Name && x.Eras.serves(req.Protocol) && sees(ctx, x.Visible) {
			pr = x
		}
	}
	s.mu.RUnlock()
	if pr == nil {
		if req.Handled {
			return nil, mcp.ErrNotInCatalog
		}
		return nil, mcp.InvalidParams("/params/name", "unknown prompt "+req.Name)
	}
	args, err := stringMap(req.Params, "arguments")
	if err != nil {
		return nil, err
	}
	for _, a := range pr.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, mcp.InvalidParams("/params/arguments", "missing required argument "+a.Name)
		}
	}
	desc, msgs, err := pr.Get(ctx, args)
	if err != nil {
		var ae *ArgumentError
		if errors.As(err, &ae) {
			return nil, mcp.InvalidParams("/params/arguments"+ae.Pointer(), ae.Error())
		}
		return nil, err
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	if desc != "" {
		e.Field("description")
		e.Str(desc)
	}
	e.Field("messages")
	e.ArrayStart()
	for _, m := range msgs {
		e.ObjectStart()
		e.Field("role")
		e.Str(m.Role)
		e.Field("content")
		m.Content.write(e, req.Protocol)
		e.ObjectEnd()
	}
	e.ArrayEnd()
	writeStamp(e, req.Stamp)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}

func (s *Set) listResources(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	s.mu.RLock()
	rs := slices.Clone(s.resources)
	s.mu.RUnlock()
	rs, private := visible(ctx, rs, func(*Resource) bool { return true }, func(r *Resource) func(context.Context) bool { return r.Visible })
	return list(s, req, "resources", "ListResourcesResult", private, rs, func(e *wire.Encoder, r *Resource) {
		writeDescribed(e, req.Protocol, "Resource", "uri", r.URI, r.Name, r.Title, r.Description, r.MIMEType, r.Icons, r.Meta)
	})
}

func (s *Set) listTemplates(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	s.mu.RLock()
	ts := slices.Clone(s.templates)
	s.mu.RUnlock()
	ts, private := visible(ctx, ts, func(*Template) bool { return true }, func(t *Template) func(context.Context) bool { return t.Visible })
	return list(s, req, "resourceTemplates", "ListResourceTemplatesResult", private, ts, func(e *wire.Encoder, t *Template) {
		writeDescribed(e, req.Protocol, "ResourceTemplate", "uriTemplate", t.URITemplate, t.Name, t.Title, t.Description, t.MIMEType, t.Icons, t.Meta)
	})
}

// writeDescribed writes a resource or template: its key member, name,
// and the title, description, MIME type, icons and _meta def has in
// revision p.
func writeDescribed(e *wire.Encoder, p *protocol.Protocol, def, keyMember, key, name, title, description, mimeType string, icons []Icon, meta wire.Raw) {
	e.ObjectStart()
	e.Field(keyMember)
	e.Str(key)
	e.Field("name")
	e.Str(name)
	optString(e, p, def, "title", title)
	optString(e, p, def, "description", description)
	optString(e, p, def, "mimeType", mimeType)
	writeIconsMeta(e, p, def, icons, meta)
	e.ObjectEnd()
}

func (s *Set) readResource(ctx context.Context, req *mcp.CatalogRequest) (wire.Raw, error) {
	uri, err := stringParam(req.Params, "uri")
	if err != nil {
		return nil, err
	}
	var read func() ([]Contents, error)
	var meta wire.Raw
	s.mu.RLock()
	for _, r := range s.resources {
		if r.URI == uri && sees(ctx, r.Visible) {
			read = func() ([]Contents, error) { return r.Read(ctx, uri) }
			meta = r.ContentsMeta
			break
		}
	}
	if read == nil {
		for _, t := range s.templates {
			if vars, ok := MatchTemplate(t.URITemplate, uri); ok && sees(ctx, t.Visible) {
				read = func() ([]Contents, error) { return t.Read(ctx, uri, vars) }
				break
			}
		}
	}
	s.mu.RUnlock()
	if read == nil {
		if req.Handled {
			return nil, mcp.ErrNotInCatalog
		}
		return nil, NotFound(req.Protocol, uri)
	}
	contents, err := read()
	if err != nil {
		return nil, err
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.Field("contents")
	e.ArrayStart()
	for _, c := range contents {
		if c.URI == "" {
			c.URI = uri
		}
		if c.Meta == nil {
			c.Meta = meta
		}
		c.encodeFor(e, req.Protocol)
	}
	e.ArrayEnd()
	writeStamp(e, req.Stamp)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}

// NotFound is the error for a resource that does not exist in revision p,
// with data.uri: the revision's code (Protocol.ResourceNotFoundCode).
func NotFound(p *protocol.Protocol, uri string) error {
	code := p.ResourceNotFoundCode
	if code == 0 {
		code = mcp.CodeResourceNotFound
	}
	var e wire.Encoder
	e.ObjectStart()
	e.Field("uri")
	e.Str(uri)
	e.ObjectEnd()
	return &jsonrpc.Error{Code: code, Message: "resource not found: " + uri, Data: e.Bytes()}
}

// MatchTemplate matches uri against a URI template of simple {var}
// expressions, returning the variables' values. A variable matches up to
// the literal that follows it (and, at the end, the rest of the URI
// without a "/").
func MatchTemplate(template, uri string) (map[string]string, bool) {
	var vars map[string]string
	for template != "" {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			return vars, template == uri
		}
		lit := template[:open]
		if !strings.HasPrefix(uri, lit) {
			return nil, false
		}
		uri, template = uri[len(lit):], template[open+1:]
		end := strings.IndexByte(template, '}')
		if end < 0 {
			return nil, false
		}
		name := template[:end]
		template = template[end+1:]
		next := template
		if i := strings.IndexByte(next, '{'); i >= 0 {
			next = next[:i]
		}
		var val string
		switch {
		case next == "":
			if strings.Contains(uri, "/") && template == "" {
				return nil, false
			}
			val, uri = uri, ""
		default:
			i := strings.Index(uri, next)
			if i < 0 {
				return nil, false
			}
			val, uri = uri[:i], uri[i:]
		}
		if val == "" {
			return nil, false
		}
		if vars == nil {
			vars = map[string]string{}
		}
		vars[name] = val
	}
	return vars, uri == ""
}

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
