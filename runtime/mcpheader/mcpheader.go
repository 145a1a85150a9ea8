// Package mcpheader is the request metadata headers of MCP's Streamable
// HTTP transport (2026-07-28 on): a stateless request states its protocol
// version, its method, the name it acts on and the tool arguments its
// tool's inputSchema annotates with x-mcp-header in headers, which the
// server checks against the body. It has the header names, the encoding
// of header values, the annotations (Params), what a client sets (Set) and
// the rules a server checks them by (Mismatch, CheckParams).
package mcpheader

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The header names, canonical.
const (
	ProtocolVersion = "Mcp-Protocol-Version" // MCP-Protocol-Version
	Method          = "Mcp-Method"
	Name            = "Mcp-Name"
	ParamPrefix     = "Mcp-Param-"
)

// CodeMismatch is the error code of a header that disagrees with the body
// (HEADER_MISMATCH).
const CodeMismatch = -32020

// Values gives a request's header values by name (http.Header is one).
type Values interface {
	Values(key string) []string
}

// Get returns a header's value (repeated headers are joined, which never
// matches a body value).
func Get(hd Values, name string) (string, bool) {
	vs := hd.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.TrimSpace(strings.Join(vs, ",")), true
}

// Mismatch is the -32020 error of a header rule.
func Mismatch(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeMismatch, Message: "header mismatch: " + fmt.Sprintf(format, args...)}
}

// CheckParams checks the Mcp-Param-* headers of a tools/call against its
// arguments (args), as the tool's annotations (phs) name them.
func CheckParams(hd Values, args wire.Raw, phs []Param) *jsonrpc.Error {
	for _, ph := range phs {
		name := ParamPrefix + ph.Name
		val, present := argument(args, ph.Path)
		if present && val.Kind() == wire.Null {
			present = false
		}
		hv, has := Get(hd, name)
		if !has {
			if present {
				return Mismatch("missing %s header for argument %s", name, strings.Join(ph.Path, "."))
			}
			continue
		}
		v, err := DecodeValue(hv)
		if err != nil {
			return Mismatch("%s header is not a valid value", name)
		}
		if !present {
			return Mismatch("%s header is set but argument %s is absent or null", name, strings.Join(ph.Path, "."))
		}
		if !sameValue(val, v) {
			return Mismatch("%s header %q does not match argument %s", name, v, strings.Join(ph.Path, "."))
		}
	}
	return nil
}

// argument returns the value at path in the arguments object.
func argument(args wire.Raw, path []string) (wire.Raw, bool) {
	val, present := args, len(args) > 0
	for _, p := range path {
		if !present {
			break
		}
		val, present = wire.MemberOf(val, p)
	}
	return val, present
}

// sameValue compares a header's value with a body value: strings exactly,
// numbers numerically, booleans as "true" or "false".
func sameValue(body wire.Raw, v string) bool {
	d := wire.NewDecoder(body)
	switch body.Kind() {
	case wire.String:
		s, err := d.Str()
		return err == nil && s == v
	case wire.Bool:
		b, err := d.Bool()
		return err == nil && strconv.FormatBool(b) == v
	case wire.Number:
		lit, err := d.Number()
		if err != nil {
			return false
		}
		hd := wire.NewDecoder([]byte(v))
		hlit, err := hd.Number()
		if err != nil || hd.End() != nil {
			return false
		}
		a, err1 := strconv.ParseFloat(string(lit), 64)
		b, err2 := strconv.ParseFloat(string(hlit), 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}

// Set sets, with set, the request metadata headers of a stateless request
// on Streamable HTTP in revision p: Mcp-Method, Mcp-Name
// (the params member the method's table entry names, encoded when it is
// not header-safe) and, for a tools/call, the Mcp-Param-* headers of the
// arguments the tool's x-mcp-header annotations name (tool gives them by
// tool name). params is the request's params.
func Set(p *protocol.Protocol, method string, params wire.Raw, tool func(name string) []Param, set func(key, value string)) {
	set(Method, method)
	md := p.Lookup(method)
	if md == nil || len(params) == 0 {
		return
	}
	var named, toolName string
	var hasNamed bool
	var args wire.Raw
	call := md.Role == protocol.RoleToolsCall
	d := wire.NewDecoder(params)
	d.SetShared(true)
	_ = d.Object(func(key []byte) error {
		var err error
		switch k := string(key); {
		case k == md.NameParam && d.Peek() == wire.String:
			named, err = d.Str()
			hasNamed = err == nil
			if call && k == "name" {
				toolName = named
			}
		case call && k == "name" && d.Peek() == wire.String:
			toolName, err = d.Str()
		case call && k == "arguments":
			args, err = d.Raw()
		default:
			err = d.Skip()
		}
		return err
	})
	if hasNamed {
		set(Name, EncodeValue(named))
	}
	if !call || tool == nil {
		return
	}
	for _, ph := range tool(toolName) {
		v, ok := argument(args, ph.Path)
		if !ok {
			continue
		}
		if s, ok := headerForm(v); ok {
			set(ParamPrefix+ph.Name, s)
		}
	}
}

// headerForm is an argument as its Mcp-Param header carries it: strings
// (encoded when not header-safe), booleans, integers; false for null and
// anything else.
func headerForm(v wire.Raw) (string, bool) {
	d := wire.NewDecoder(v)
	switch v.Kind() {
	case wire.String:
		str, err := d.Str()
		return EncodeValue(str), err == nil
	case wire.Bool:
		b, err := d.Bool()
		return strconv.FormatBool(b), err == nil
	case wire.Number:
		n, err := d.Int64()
		return strconv.FormatInt(n, 10), err == nil
	}
	return "", false
}

// The sentinel that wraps a base64 header value (2026-07-28: Value
// Encoding).
const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// EncodeValue returns v as a header value: as is when it is
// header-safe, else "=?base64?<base64 of its UTF-8>?=". Values that are
// not safe: non-ASCII, control characters (tab included), leading or
// trailing whitespace, the empty string, or a value that looks like the
// sentinel itself.
func EncodeValue(v string) string {
	if headerSafe(v) {
		return v
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + b64Suffix
}

func headerSafe(v string) bool {
	if v == "" || v[0] == ' ' || v[len(v)-1] == ' ' || isSentinel(v) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func isSentinel(v string) bool {
	return len(v) >= len(b64Prefix)+len(b64Suffix) && strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix)
}

// ErrBadValue reports a header value that is neither plain visible
// ASCII nor a valid base64 sentinel.
var ErrBadValue = errors.New("invalid header value")

// DecodeValue returns the value a header carries: the decoded
// payload of the base64 sentinel (strict: standard alphabet with padding,
// UTF-8 content), or the value itself, which must then consist of visible
// ASCII, spaces and tabs. Surrounding whitespace is trimmed first.
func DecodeValue(v string) (string, error) {
	v = strings.Trim(v, " \t")
	if isSentinel(v) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", ErrBadValue
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", ErrBadValue
		}
	}
	return v, nil
}

// Param is one x-mcp-header annotation of a tool's inputSchema: on
// stateless Streamable HTTP the client mirrors the argument at Path into
// the header "Mcp-Param-" + Name, and the server checks that they agree.
type Param struct {
	// Name is the annotation's value (the header is "Mcp-Param-" + Name).
	Name string
	// Path is the chain of property names from the schema root.
	Path []string
	// Type is the property's type: "string", "integer" or "boolean".
	Type string
}

// Params reads the x-mcp-header annotations of an inputSchema, sorted
// by name. An error reports an annotation the specification forbids: empty
// or not a token, duplicated (case-insensitively), on a property that is
// not a string, integer or boolean, or not reachable from the root through
// "properties" alone; clients drop such tools.
func Params(inputSchema []byte) ([]Param, error) {
	if len(inputSchema) == 0 {
		return nil, nil
	}
	d := wire.NewDecoder(inputSchema)
	root, err := tree(d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	return paramsOf(root)
}

// paramsOf is Params of a schema decoded by tree.
func paramsOf(root any) ([]Param, error) {
	var out []Param
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

// tree decodes the JSON value at d as scanHeaders walks it: an object as
// a map[string]any (the last member of a name winning, as JSON Schema
// validators read it), an array as []any, a string as a string, and any
// other value as nil (a number or a boolean is neither a header name nor
// a type).
func tree(d *wire.Decoder) (any, error) {
	switch d.Peek() {
	case wire.Object:
		m := map[string]any{}
		err := d.Object(func(key []byte) error {
			v, err := tree(d)
			m[string(key)] = v
			return err
		})
		return m, err
	case wire.Array:
		a := []any{}
		err := d.Array(func() error {
			v, err := tree(d)
			a = append(a, v)
			return err
		})
		return a, err
	case wire.String:
		return d.Str()
	}
	return nil, d.Skip()
}

// scanHeaders walks a schema; chain reports that v is reached from the root
// through "properties" only (path names the property).
func scanHeaders(v any, path []string, chain bool, out *[]Param) error {
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
			*out = append(*out, Param{Name: name, Path: append([]string(nil), path...), Type: typ})
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
