package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sort"
	"strings"
	"sync"
	"weak"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ParamHeader is one x-mcp-header annotation of a tool's inputSchema: on
// stateless Streamable HTTP the client mirrors the argument at Path into
// the header "Mcp-Param-" + Name, and the server checks that they agree.
type ParamHeader struct {
	// Name is the annotation's value (the header is "Mcp-Param-" + Name).
	Name string
	// Path is the chain of property names from the schema root.
	Path []string
	// Type is the property's type: "string", "integer" or "boolean".
	Type string
}

// ParamHeaders reads the x-mcp-header annotations of an inputSchema, sorted
// by name. An error reports an annotation the specification forbids: empty
// or not a token, duplicated (case-insensitively), on a property that is
// not a string, integer or boolean, or not reachable from the root through
// "properties" alone; clients drop such tools.
func ParamHeaders(inputSchema []byte) ([]ParamHeader, error) {
	if len(inputSchema) == 0 {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, err
	}
	var out []ParamHeader
	if err := scanHeaders(root, nil, true, &out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i := 1; i < len(out); i++ {
		if strings.EqualFold(out[i-1].Name, out[i].Name) {
			return nil, errors.New("x-mcp-header " + out[i].Name + " is not unique")
		}
	}
	return out, nil
}

// scanHeaders walks a schema; chain reports that v is reached from the root
// through "properties" only (path names the property).
func scanHeaders(v any, path []string, chain bool, out *[]ParamHeader) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := scanHeaders(e, nil, false, out); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if a, ok := x["x-mcp-header"]; ok {
			if !chain || len(path) == 0 {
				return errors.New("x-mcp-header outside a chain of properties")
			}
			name, ok := a.(string)
			if !ok || !isToken(name) {
				return errors.New("x-mcp-header of " + strings.Join(path, ".") + " is not a header token")
			}
			typ := primitiveType(x["type"])
			if typ == "" {
				return errors.New("x-mcp-header " + name + " is on a property that is not a string, integer or boolean")
			}
			*out = append(*out, ParamHeader{Name: name, Path: append([]string(nil), path...), Type: typ})
		}
		for k, sub := range x {
			switch k {
			case "x-mcp-header":
			case "const", "default", "enum", "examples":
				// Instances, not schemas: their members are data.
			case "properties":
				props, ok := sub.(map[string]any)
				if !ok {
					continue
				}
				for name, ps := range props {
					p := append(append([]string(nil), path...), name)
					if err := scanHeaders(ps, p, chain, out); err != nil {
						return err
					}
				}
			default:
				if err := scanHeaders(sub, nil, false, out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// primitiveType returns the annotated property's type, or "" when it may
// not carry a header. ["string","null"] counts as "string".
func primitiveType(t any) string {
	ok := func(s string) bool { return s == "string" || s == "integer" || s == "boolean" }
	switch x := t.(type) {
	case string:
		if ok(x) {
			return x
		}
	case []any:
		found := ""
		for _, e := range x {
			s, _ := e.(string)
			switch {
			case s == "null":
			case ok(s) && found == "":
				found = s
			default:
				return ""
			}
		}
		return found
	}
	return ""
}

// isToken reports an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// headerSets caches the annotations of a mounted revision's tools. It is
// keyed weakly by the toolSet the schema learning made, so the cache is
// forgotten with it when the tool list changes (Server.NotifyListChanged),
// and an entry goes away once its toolSet is collected.
var headerSets sync.Map // weak.Pointer[toolSet] -> *headerSet

type headerSet struct {
	once  sync.Once
	tools map[string][]ParamHeader
}

// ToolParamHeaders returns the x-mcp-header annotations of the tool a
// stateless tools/call request names (nil for other requests, unknown
// tools and tools without annotations; tools whose annotations are invalid
// have none). The tools are listed through the handler once, with the
// request's _meta, and again after the tool list changes.
func (s *Server) ToolParamHeaders(ctx context.Context, req *jsonrpc.Request) ([]ParamHeader, error) {
	if req.Method != "tools/call" {
		return nil, nil
	}
	m := s.byRev[MetaVersion(req.Params)]
	if m == nil || !m.Protocol.Stateless {
		return nil, nil
	}
	rc := &reqCtx{Context: ctx}
	rc.r = Request{Method: req.Method, ID: req.ID, Protocol: m.Protocol, server: s, out: discardOut{}, meta: parseMeta(req.Params)}
	defer rc.r.finish()
	ts := s.tools.set(rc, m, req.Params)
	key := weak.Make(ts)
	v, loaded := headerSets.LoadOrStore(key, &headerSet{})
	if !loaded {
		runtime.AddCleanup(ts, func(k weak.Pointer[toolSet]) { headerSets.Delete(k) }, key)
	}
	hs := v.(*headerSet)
	hs.once.Do(func() { hs.tools = s.learnParamHeaders(rc, m, req.Params) })
	name, _ := toolCallArgs(req.Params)
	return hs.tools[name], nil
}

// learnParamHeaders lists the tools through the handler and reads their
// annotations.
func (s *Server) learnParamHeaders(rc *reqCtx, m *Mount, callParams wire.Raw) map[string][]ParamHeader {
	out := map[string][]ParamHeader{}
	list := m.Protocol.Methods["tools/list"]
	if list == nil || list.Serve == nil || list.Implemented == nil || !list.Implemented(m.Handler) {
		return out
	}
	meta := metaOf(callParams)
	cursor := ""
	for range 100 {
		e := wire.GetEncoder()
		e.ObjectStart()
		if len(meta) > 0 {
			e.FieldRaw(`"_meta":`)
			e.Raw(meta)
		}
		if cursor != "" {
			e.FieldRaw(`"cursor":`)
			e.Str(cursor)
		}
		e.ObjectEnd()
		params := append(wire.Raw(nil), e.Bytes()...)
		wire.PutEncoder(e)
		res, err := list.Serve(rc, m.Handler, params)
		if err != nil || res == nil {
			s.log.Warn("mcp: listing tools to learn their x-mcp-header annotations failed", "err", err)
			return out
		}
		data, err := wire.Marshal(res)
		if err != nil {
			return out
		}
		var page struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(data, &page); err != nil {
			return out
		}
		for _, t := range page.Tools {
			hs, err := ParamHeaders(t.InputSchema)
			if err != nil {
				s.log.Warn("mcp: tool has an invalid x-mcp-header annotation; its headers are not checked", "tool", t.Name, "err", err)
				continue
			}
			if len(hs) > 0 {
				out[t.Name] = hs
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return out
}

// discardOut drops the related messages of an internal request.
type discardOut struct{}

func (discardOut) Notify(context.Context, string, wire.Marshaler) error { return nil }
