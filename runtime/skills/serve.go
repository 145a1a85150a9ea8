package skills

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/paginate"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Serving a catalog (the io.modelcontextprotocol/skills extension,
// SEP-2640): Feature plugs it into a server (mcp.ServerOptions.Features),
// which then declares the extension on its stateless revisions and
// answers, before its handler sees them, skills/list (paginated, one entry
// never split), skills/get, resources/read of the skills' files,
// resources/directory/read when DirectoryRead is set, and lists each
// skill's SKILL.md at the end of resources/list.

// ServeOptions configure how a catalog is served (Feature).
type ServeOptions struct {
	// PageSize is the number of entries per skills/list and
	// resources/directory/read page (default 50).
	PageSize int
	// DirectoryRead declares directoryRead and serves
	// resources/directory/read on the skills' directories.
	DirectoryRead bool
}

// Feature serves cat on every revision with capability extensions
// (2026-07-28 on).
func Feature(cat *Catalog, o ServeOptions) mcp.Feature {
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	f := &served{cat: cat, o: o}
	return mcp.FeatureFunc(f.attach)
}

// served is a catalog a server serves.
type served struct {
	cat *Catalog
	o   ServeOptions
}

func (f *served) attach(reg *mcp.Registry) error {
	if f.cat == nil {
		return errors.New("skills: Feature without a catalog")
	}
	on := func(p *protocol.Protocol) bool { return p.Knows("extensions") }
	list, get, dirRead, read := protocol.SkillsExtensionMethods()
	methods := []*protocol.Method{list, get}
	if f.o.DirectoryRead {
		methods = append(methods, dirRead)
	}
	for _, md := range methods {
		reg.Route(mcp.Route{Method: md, On: on, Step: f.serve})
	}
	// The skills' files are read with resources/read, which the feature
	// serves even where the handler (or the revision) has none.
	reg.Route(mcp.Route{Role: protocol.RoleResourcesRead, On: on, Step: f.readFile})
	reg.Route(mcp.Route{Method: read, On: func(p *protocol.Protocol) bool { return on(p) && p.Role(protocol.RoleResourcesRead) == nil }, Step: f.readFile})
	reg.Route(mcp.Route{Role: protocol.RoleResourcesList, On: on, Step: f.listResources})
	reg.Capabilities(func(p *protocol.Protocol, _ func(protocol.Role) bool, c *mcp.Capabilities) {
		if !on(p) {
			return
		}
		c.Extensions[Extension] = wire.Raw(`{}`)
		if f.o.DirectoryRead {
			c.Extensions[Extension] = wire.Raw(`{"directoryRead":true}`)
		}
	})
	return nil
}

// skillParams are the params of the skills methods.
type skillParams struct {
	URI    *string `json:"uri"`
	Cursor *string `json:"cursor"`
}

func decodeParams(params wire.Raw) (skillParams, error) {
	var q skillParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &q); err != nil {
			return q, mcp.InvalidParams("/params", err.Error())
		}
	}
	return q, nil
}

// serve answers skills/list, skills/get and resources/directory/read.
func (f *served) serve(_ context.Context, r *mcp.Request, _ mcp.Next) (wire.Marshaler, error) {
	q, err := decodeParams(r.Params())
	if err != nil {
		return nil, err
	}
	uri := func() (string, error) {
		if q.URI == nil {
			return "", mcp.InvalidParams("/params/uri", "required")
		}
		return *q.URI, nil
	}
	cursor := ""
	if q.Cursor != nil {
		cursor = *q.Cursor
	}
	list, get, _, _ := protocol.SkillsExtensionMethods()
	switch r.Method {
	case list.Name:
		page, next, err := paginate.Page(f.cat.Entries(), cursor, f.o.PageSize)
		if err != nil {
			return nil, err
		}
		return result(r, "skills", page, next)
	case get.Name:
		u, err := uri()
		if err != nil {
			return nil, err
		}
		e, found := f.cat.Skill(u)
		if !found {
			return nil, mcp.InvalidParams("/params/uri", "no skill "+strconv.Quote(u))
		}
		return result(r, "skill", e, "")
	}
	u, err := uri()
	if err != nil {
		return nil, err
	}
	children, found := f.cat.ReadDir(u)
	if !found {
		return nil, mcp.InvalidParams("/params/uri", strconv.Quote(u)+" is not a directory this server serves")
	}
	page, next, err := paginate.Page(children, cursor, f.o.PageSize)
	if err != nil {
		return nil, err
	}
	return result(r, "resources", page, next)
}

// readFile serves resources/read of the skills' files; other URIs go to
// next.
func (f *served) readFile(_ context.Context, r *mcp.Request, next mcp.Next) (wire.Marshaler, error) {
	q, err := decodeParams(r.Params())
	if err != nil {
		return nil, err
	}
	if q.URI == nil {
		return next.Serve()
	}
	c, found := f.cat.Read(*q.URI)
	if !found {
		return next.Serve()
	}
	if err := r.ValidateParams(); err != nil {
		return nil, err
	}
	item := map[string]string{"uri": c.URI, "mimeType": c.MIMEType}
	if c.Text() {
		item["text"] = string(c.Data)
	} else {
		item["blob"] = base64.StdEncoding.EncodeToString(c.Data)
	}
	return result(r, "contents", []map[string]string{item}, "")
}

// listResources completes resources/list with the skills' SKILL.md
// resources, after what the handler lists (on its last page); without a
// handler that lists resources, they are the list.
func (f *served) listResources(_ context.Context, r *mcp.Request, next mcp.Next) (wire.Marshaler, error) {
	res, err := next.Serve()
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
		if err := r.ValidateParams(); err != nil {
			return nil, err
		}
		return result(r, "resources", f.cat.Resources(), "")
	}
	if err != nil || res == nil {
		return res, err
	}
	return appendResources(r, res, f.cat.Resources())
}

// result encodes a complete, cacheable stateless result holding member v,
// with nextCursor when next is set, stamped as the request's revision
// asks, and hands it to the engine as a written result.
func result(r *mcp.Request, member string, v any, next string) (wire.Marshaler, error) {
	b, err := json.Marshal(v)
	if err != nil {
		// The values are the catalog's: strings, numbers and maps.
		panic("skills: encoding a result: " + err.Error())
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.Field(member)
	e.Raw(b)
	if next != "" {
		e.FieldRaw(`"nextCursor":`)
		e.Str(next)
	}
	mcp.WriteStamp(e, r.Stamp())
	e.ObjectEnd()
	return r.Written(append(wire.Raw(nil), e.Bytes()...))
}

// appendResources adds extra to the resources of a resources/list result
// on its last page (no nextCursor). The handler's result is not stamped
// yet (the engine stamps a handler's result after the chain, but sends
// JSON a feature wrote as it is), so it is stamped here first when the
// request's revision asks it.
func appendResources(r *mcp.Request, res wire.Marshaler, extra []Resource) (wire.Marshaler, error) {
	if len(extra) == 0 {
		return res, nil
	}
	if st := r.Stamp(); st != nil && r.Protocol.Stamp != nil {
		res = r.Protocol.Stamp(res, st)
	}
	b, err := wire.Marshal(res)
	if err != nil {
		return nil, err
	}
	var members []wire.Member
	last := true
	d := wire.NewDecoder(b)
	err = d.Object(func(key []byte) error {
		v, err := d.Raw()
		if err != nil {
			return err
		}
		name := string(key)
		if name == "nextCursor" && v.Kind() == wire.String && string(v) != `""` {
			last = false
		}

		members = append(members, wire.Member{Name: name, Value: v})
		return nil
	})
	if err != nil || !last {
		return res, err
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	for _, m := range members {
		e.Field(m.Name)
		if m.Name != "resources" {
			e.Raw(m.Value)
			continue
		}
		var items, more []json.RawMessage
		if err := json.Unmarshal(m.Value, &items); err != nil {
			return nil, err
		}
		b, err := json.Marshal(extra)
		if err != nil {
			return nil, err
		}
		_ = json.Unmarshal(b, &more)
		joined, _ := json.Marshal(append(items, more...))
		e.Raw(joined)
	}
	e.ObjectEnd()
	return r.Written(append(wire.Raw(nil), e.Bytes()...))
}
