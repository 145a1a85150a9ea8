package features

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The set's prompts and resources: prompts/list, prompts/get,
// resources/list, resources/templates/list and resources/read.

func (s *Set) listPrompts(ctx context.Context, req *Request) (wire.Raw, error) {
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

func (s *Set) getPrompt(ctx context.Context, req *Request) (wire.Raw, error) {
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
			return nil, ErrNotInSet
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
	if pr.Get == nil { // added after NewServer, which refuses it (declared.go)
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "features: prompt %s has no Get", pr.Name)
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
	mcp.WriteStamp(e, req.Stamp)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}

func (s *Set) listResources(ctx context.Context, req *Request) (wire.Raw, error) {
	s.mu.RLock()
	rs := slices.Clone(s.resources)
	s.mu.RUnlock()
	rs, private := visible(ctx, rs, func(*Resource) bool { return true }, func(r *Resource) func(context.Context) bool { return r.Visible })
	return list(s, req, "resources", "ListResourcesResult", private, rs, func(e *wire.Encoder, r *Resource) {
		writeDescribed(e, req.Protocol, "Resource", "uri", r.URI, r.Name, r.Title, r.Description, r.MIMEType, r.Icons, r.Meta)
	})
}

func (s *Set) listTemplates(ctx context.Context, req *Request) (wire.Raw, error) {
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

func (s *Set) readResource(ctx context.Context, req *Request) (wire.Raw, error) {
	uri, err := stringParam(req.Params, "uri")
	if err != nil {
		return nil, err
	}
	var read func() ([]Contents, error)
	var meta wire.Raw
	s.mu.RLock()
	for _, r := range s.resources {
		if r.URI == uri && sees(ctx, r.Visible) {
			read = func() ([]Contents, error) {
				if r.Read == nil { // added after NewServer, which refuses it (declared.go)
					return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "features: resource %s has no Read", r.URI)
				}
				return r.Read(ctx, uri)
			}
			meta = r.ContentsMeta
			break
		}
	}
	if read == nil {
		for _, t := range s.templates {
			if vars, ok := MatchTemplate(t.URITemplate, uri); ok && sees(ctx, t.Visible) {
				read = func() ([]Contents, error) {
					if t.Read == nil { // added after NewServer, which refuses it (declared.go)
						return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "features: template %s has no Read", t.URITemplate)
					}
					return t.Read(ctx, uri, vars)
				}
				break
			}
		}
	}
	s.mu.RUnlock()
	if read == nil {
		if req.Handled {
			return nil, ErrNotInSet
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
	mcp.WriteStamp(e, req.Stamp)
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
