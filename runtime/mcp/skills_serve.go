package mcp

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/skills"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Skills (the io.modelcontextprotocol/skills extension, SEP-2640): a
// server with ServerOptions.Skills declares the extension on its
// stateless revisions and answers, before its handler sees them,
// skills/list (paginated, one entry never split), skills/get,
// resources/read of the skills' files, resources/directory/read when
// DirectoryRead is set, and lists each skill's SKILL.md at the end of
// resources/list. Methods no schema lists are served here, like the tasks
// extension's.

// SkillOptions serve a skills catalog (ServerOptions.Skills).
type SkillOptions struct {
	// Catalog is the skills served (skills.Load).
	Catalog *skills.Catalog
	// PageSize is the number of entries per skills/list and
	// resources/directory/read page (default 50).
	PageSize int
	// DirectoryRead declares directoryRead and serves
	// resources/directory/read on the skills' directories.
	DirectoryRead bool
}

// skillsCapability is the extension's settings object.
func (o *SkillOptions) capability() wire.Raw {
	if o.DirectoryRead {
		return wire.Raw(`{"directoryRead":true}`)
	}
	return emptyObject
}

func (o *SkillOptions) pageSize() int {
	if o.PageSize <= 0 {
		return 50
	}
	return o.PageSize
}

// skillParams are the params of the skills methods.
type skillParams struct {
	URI    *string `json:"uri"`
	Cursor *string `json:"cursor"`
}

// routeSkills adds the skills extension's routes to a mounted revision:
// its own methods, and the skills' files and SKILL.md resources in
// resources/read and resources/list before and after the handler's.
func (s *Server) routeSkills(m *mounted) {
	o := s.opts.Skills
	list, get, dirRead, read := protocol.SkillsExtensionMethods()
	add := []*protocol.Method{list, get}
	if o.DirectoryRead {
		add = append(add, dirRead)
	}
	for _, md := range add {
		m.routes[md.Name] = &route{method: md, serve: s.serveSkills}
	}
	// The skills' files are read with resources/read, which the runtime
	// serves even where the handler (or the revision) has none.
	if md := m.Protocol.Role(protocol.RoleResourcesRead); md != nil {
		rt := m.routes[md.Name]
		rt.serve = s.readSkillFile(rt.serve)
	} else {
		m.routes[read.Name] = &route{method: read, serve: s.readSkillFile(nil)}
	}
	if md := m.Protocol.Role(protocol.RoleResourcesList); md != nil {
		rt := m.routes[md.Name]
		rt.serve = s.listSkills(rt.serve)
	}
}

// decodeSkillParams reads the params of the skills methods.
func decodeSkillParams(params wire.Raw) (skillParams, error) {
	var q skillParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &q); err != nil {
			return q, InvalidParams("/params", err.Error())
		}
	}
	return q, nil
}

// serveSkills answers skills/list, skills/get and resources/directory/read.
func (s *Server) serveSkills(rc *reqCtx) (wire.Marshaler, error) {
	o := s.opts.Skills
	method := rc.r.route.method
	q, err := decodeSkillParams(rc.r.in.req.Params)
	if err != nil {
		return nil, err
	}
	uri := func() (string, error) {
		if q.URI == nil {
			return "", InvalidParams("/params/uri", "required")
		}
		return *q.URI, nil
	}
	cursor := ""
	if q.Cursor != nil {
		cursor = *q.Cursor
	}
	cat := o.Catalog
	switch method.Role {
	case protocol.RoleSkillsList:
		page, next, err := Page(cat.Entries(), cursor, o.pageSize())
		if err != nil {
			return nil, err
		}
		return s.skillResult(method.Name, "skills", page, next), nil
	case protocol.RoleSkillsGet:
		u, err := uri()
		if err != nil {
			return nil, err
		}
		e, found := cat.Skill(u)
		if !found {
			return nil, InvalidParams("/params/uri", "no skill "+strconv.Quote(u))
		}
		return s.skillResult(method.Name, "skill", e, ""), nil
	}
	u, err := uri()
	if err != nil {
		return nil, err
	}
	children, found := cat.ReadDir(u)
	if !found {
		return nil, InvalidParams("/params/uri", strconv.Quote(u)+" is not a directory this server serves")
	}
	page, next, err := Page(children, cursor, o.pageSize())
	if err != nil {
		return nil, err
	}
	return s.skillResult(method.Name, "resources", page, next), nil
}

// readSkillFile serves resources/read of the skills' files; other URIs
// go to next, the handler's route.
func (s *Server) readSkillFile(next routeFunc) routeFunc {
	return func(rc *reqCtx) (wire.Marshaler, error) {
		params := rc.r.in.req.Params
		q, err := decodeSkillParams(params)
		if err != nil {
			return nil, err
		}
		if q.URI == nil {
			return callNext(next, rc)
		}
		c, found := s.opts.Skills.Catalog.Read(*q.URI)
		if !found {
			return callNext(next, rc)
		}
		md := rc.r.route.method
		if md.ValidateParams != nil {
			if err := md.ValidateParams(params); err != nil {
				return nil, err
			}
		}
		item := map[string]string{"uri": c.URI, "mimeType": c.MIMEType}
		if c.Text() {
			item["text"] = string(c.Data)
		} else {
			item["blob"] = base64.StdEncoding.EncodeToString(c.Data)
		}
		return s.skillResult(md.Name, "contents", []map[string]string{item}, ""), nil
	}
}

// listSkills completes resources/list with the skills' SKILL.md resources
// (see listSkillResources); without a handler that lists resources, they
// are the list.
func (s *Server) listSkills(next routeFunc) routeFunc {
	return func(rc *reqCtx) (wire.Marshaler, error) {
		md := rc.r.route.method
		if !s.serves(rc.r.mount, md.Role) {
			if err := md.ValidateParams(rc.r.in.req.Params); err != nil {
				return nil, err
			}
			return s.listSkillResources(md.Name, nil)
		}
		res, err := callNext(next, rc)
		if err != nil || res == nil {
			return res, err
		}
		return s.listSkillResources(md.Name, res)
	}
}

// callNext serves rc with next, the route a wrapper wraps.
func callNext(next routeFunc, rc *reqCtx) (wire.Marshaler, error) {
	if next == nil {
		return nil, jsonrpc.MethodNotFound(rc.r.Method)
	}
	return next(rc)
}

// skillResult encodes a complete, cacheable stateless result holding
// member, with nextCursor when next is set.
func (s *Server) skillResult(method, member string, v any, next string) wire.Raw {
	b, err := json.Marshal(v)
	if err != nil {
		// The values are the catalog's: strings, numbers and maps.
		panic("mcp: encoding a skills result: " + err.Error())
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"resultType":`)
	e.Str("complete")
	e.Field(member)
	e.Raw(b)
	if next != "" {
		e.FieldRaw(`"nextCursor":`)
		e.Str(next)
	}
	s.endCacheable(e, s.cachePolicy(method))
	return append(wire.Raw(nil), e.Bytes()...)
}

// listSkillResources completes a stateless resources/list result: on its
// last page (no nextCursor) the skills' SKILL.md resources follow the
// handler's. res is nil when the handler does not list resources.
func (s *Server) listSkillResources(method string, res wire.Marshaler) (wire.Marshaler, error) {
	o := s.opts.Skills
	if o == nil || o.Catalog == nil {
		return res, nil
	}
	extra, err := json.Marshal(o.Catalog.Resources())
	if err != nil {
		return nil, err
	}
	if res == nil {
		return s.skillResult(method, "resources", json.RawMessage(extra), ""), nil
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
	if err != nil || !last || len(extra) <= 2 {
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
		var items []json.RawMessage
		if err := json.Unmarshal(m.Value, &items); err != nil {
			return nil, err
		}
		var more []json.RawMessage
		_ = json.Unmarshal(extra, &more)
		all, _ := json.Marshal(append(items, more...))
		e.Raw(all)
	}
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), nil
}
