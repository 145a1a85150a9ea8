package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

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

// toolHeaders returns the x-mcp-header annotations of the tool a
// tools/call of mount m names (nil for unknown tools and tools without
// annotations; tools whose annotations are invalid have none). They are
// learned with the tools' schemas: the tools are listed through the
// handler once, with the request's _meta, and again after the tool list
// changes.
func (s *Server) toolHeaders(ctx context.Context, in *Inbound, m *mounted) []ParamHeader {
	if ts := s.tools.learned(m); ts != nil {
		if tool := ts.tools[in.toolName()]; tool != nil {
			return tool.headers
		}
		return nil
	}
	// The first call lists the tools through the handler, as a request
	// of its own.
	rc := &reqCtx{Context: ctx}
	rc.r = Request{Method: in.req.Method, ID: in.req.ID, Protocol: m.Protocol, server: s, mount: m, out: discardOut{}, in: *in}
	rc.r.client = statelessClient{&rc.r}
	rc.r.ctx = rc
	defer rc.r.finish()
	if ts := s.tools.set(rc, m, in.req.Params).tools[in.toolName()]; ts != nil {
		return ts.headers
	}
	return nil
}

// discardOut drops the related messages of an internal request.
type discardOut struct{}

func (discardOut) Notify(context.Context, string, wire.Marshaler) error { return nil }
