package mcp

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

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

// skillMethod answers the skills methods of a stateless request, and
// resources/read of a skill file; ok is false for anything else.
func (s *Server) skillMethod(r *Request, method string, params wire.Raw) (res wire.Marshaler, err error, ok bool) {
	o := s.opts.Skills
	if o == nil || o.Catalog == nil {
		return nil, nil, false
	}
	switch method {
	case "skills/list", "skills/get", "resources/read":
	case "resources/directory/read":
		if !o.DirectoryRead {
			return nil, nil, false
		}
	default:
		return nil, nil, false
	}
	var q skillParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &q); err != nil {
			return nil, InvalidParams("/params", err.Error()), true
		}
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
	switch method {
	case "skills/list":
		page, next, err := Page(cat.Entries(), cursor, o.pageSize())
		if err != nil {
			return nil, err, true
		}
		return s.skillResult(method, "skills", page, next), nil, true
	case "skills/get":
		u, err := uri()
		if err != nil {
			return nil, err, true
		}
		e, found := cat.Skill(u)
		if !found {
			return nil, InvalidParams("/params/uri", "no skill "+strconv.Quote(u)), true
		}
		return s.skillResult(method, "skill", e, ""), nil, true
	case "resources/directory/read":
		u, err := uri()
		if err != nil {
			return nil, err, true
		}
		children, found := cat.ReadDir(u)
		if !found {
			return nil, InvalidParams("/params/uri", strconv.Quote(u)+" is not a directory this server serves"), true
		}
		page, next, err := Page(children, cursor, o.pageSize())
		if err != nil {
			return nil, err, true
		}
		return s.skillResult(method, "resources", page, next), nil, true
	}
	// resources/read: the skills' files; other URIs are the handler's.
	if q.URI == nil {
		return nil, nil, false
	}
	c, found := cat.Read(*q.URI)
	if !found {
		return nil, nil, false
	}
	if md := r.Protocol.Method(method); md != nil && md.ValidateParams != nil {
		if err := md.ValidateParams(params); err != nil {
			return nil, err, true
		}
	}
	item := map[string]string{"uri": c.URI, "mimeType": c.MIMEType}
	if c.Text() {
		item["text"] = string(c.Data)
	} else {
		item["blob"] = base64.StdEncoding.EncodeToString(c.Data)
	}
	return s.skillResult(method, "contents", []map[string]string{item}, ""), nil, true
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
func (s *Server) listSkillResources(res wire.Marshaler) (wire.Marshaler, error) {
	o := s.opts.Skills
	if o == nil || o.Catalog == nil {
		return res, nil
	}
	extra, err := json.Marshal(o.Catalog.Resources())
	if err != nil {
		return nil, err
	}
	if res == nil {
		return s.skillResult("resources/list", "resources", json.RawMessage(extra), ""), nil
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
