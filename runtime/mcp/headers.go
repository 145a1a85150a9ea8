package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The request metadata headers of the stateless protocol on Streamable
// HTTP (2026-07-28: a request states its version, its method, the name it
// acts on and the tool arguments annotated with x-mcp-header in headers,
// which the server checks against the body). The rules are the core's:
// they read the message's classification, never the body again.

// The header names, canonical.
const (
	HeaderProtocolVersion = "Mcp-Protocol-Version" // MCP-Protocol-Version
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// Header gives a request's header values by name (http.Header is one).
type Header interface {
	Values(key string) []string
}

// headerMismatch is the -32020 error of a header rule.
func headerMismatch(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeHeaderMismatch, Message: "header mismatch: " + fmt.Sprintf(format, args...)}
}

// headerValue returns a header's value (repeated headers are joined, which
// never matches a body value).
func headerValue(hd Header, name string) (string, bool) {
	vs := hd.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.TrimSpace(strings.Join(vs, ",")), true
}

// CheckHeaders checks the request metadata headers of a stateless request
// against its classification (2026-07-28, Streamable HTTP: Server
// Validation): a missing MCP-Protocol-Version first, then one that differs
// from the _meta protocolVersion. A version not served gets -32022 with
// the supported ones. A body without _meta protocolVersion is judged by
// the header's version (a method that revision lacks gets -32601; a
// notification method with an id -32600) and otherwise left to
// ServeStateless (-32602). Then come Mcp-Method, Mcp-Name and the
// Mcp-Param-* headers of the tool's x-mcp-header annotations, before
// ServeStateless judges the method. It is nil when the headers agree.
func (s *Server) CheckHeaders(ctx context.Context, in *Inbound, hd Header) *jsonrpc.Error {
	method := in.req.Method
	hv, ok := headerValue(hd, HeaderProtocolVersion)
	if !ok {
		return headerMismatch("missing MCP-Protocol-Version header")
	}
	mv := in.meta.protocolVersion
	if mv != "" && hv != mv {
		return headerMismatch("MCP-Protocol-Version header %q does not match _meta %s %q", hv, MetaProtocolVersion, mv)
	}
	if mv == "" {
		// Nothing to check the headers against: what the header declares
		// decides, else ServeStateless answers the missing _meta.
		return s.statelessError(hv, method, false)
	}
	mount := s.byRev[mv]
	if mount == nil || !mount.Protocol.Stateless {
		return s.statelessError(mv, method, false)
	}
	hm, ok := headerValue(hd, HeaderMethod)
	if !ok {
		return headerMismatch("missing Mcp-Method header")
	}
	if hm != method {
		return headerMismatch("Mcp-Method header %q does not match the method %q", hm, method)
	}
	// The method's table entry, the extensions' included, names what
	// Mcp-Name mirrors, whether or not the server serves the method.
	md := methodIn(mount.Protocol, method)
	if md == nil {
		return nil
	}
	if np := md.NameParam; np != "" {
		body, present := in.member(s, np)
		hn, has := headerValue(hd, HeaderName)
		switch {
		case !has && present:
			return headerMismatch("missing Mcp-Name header (params.%s is %q)", np, body)
		case has:
			v, err := DecodeHeaderValue(hn)
			if err != nil {
				return headerMismatch("Mcp-Name header is not a valid value")
			}
			if !present || v != body {
				return headerMismatch("Mcp-Name header %q does not match params.%s %q", v, np, body)
			}
		}
	}
	if md.Role == RoleToolsCall {
		return checkParamHeaders(hd, in.args, s.toolHeaders(ctx, in, mount))
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call against
// its arguments.
func checkParamHeaders(hd Header, args wire.Raw, phs []ParamHeader) *jsonrpc.Error {
	for _, ph := range phs {
		name := HeaderParamPrefix + ph.Name
		val, present := argument(args, ph.Path)
		if present && val.Kind() == wire.Null {
			present = false
		}
		hv, has := headerValue(hd, name)
		if !has {
			if present {
				return headerMismatch("missing %s header for argument %s", name, strings.Join(ph.Path, "."))
			}
			continue
		}
		v, err := DecodeHeaderValue(hv)
		if err != nil {
			return headerMismatch("%s header is not a valid value", name)
		}
		if !present {
			return headerMismatch("%s header is set but argument %s is absent or null", name, strings.Join(ph.Path, "."))
		}
		if !sameValue(val, v) {
			return headerMismatch("%s header %q does not match argument %s", name, v, strings.Join(ph.Path, "."))
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

// SetRequestHeaders sets, with set, the request metadata headers of a
// stateless request on Streamable HTTP in revision p: Mcp-Method, Mcp-Name
// (the params member the method's table entry names, encoded when it is
// not header-safe) and, for a tools/call, the Mcp-Param-* headers of the
// arguments the tool's x-mcp-header annotations name (tool gives them by
// tool name). params is the request's params.
func SetRequestHeaders(p *Protocol, method string, params wire.Raw, tool func(name string) []ParamHeader, set func(key, value string)) {
	set(HeaderMethod, method)
	md := methodIn(p, method)
	if md == nil || len(params) == 0 {
		return
	}
	var named, toolName string
	var hasNamed bool
	var args wire.Raw
	call := md.Role == RoleToolsCall
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
		set(HeaderName, EncodeHeaderValue(named))
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
			set(HeaderParamPrefix+ph.Name, s)
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
		return EncodeHeaderValue(str), err == nil
	case wire.Bool:
		b, err := d.Bool()
		return strconv.FormatBool(b), err == nil
	case wire.Number:
		n, err := d.Int64()
		return strconv.FormatInt(n, 10), err == nil
	}
	return "", false
}

// methodIn is the table entry of method in revision p, including the
// methods of the extensions the runtime serves on it.
func methodIn(p *Protocol, method string) *Method {
	if md := p.Methods[method]; md != nil {
		return md
	}
	if slices.Contains(p.ServerCapabilities, "extensions") {
		for _, md := range extensionMethods {
			if md.Name == method {
				return md
			}
		}
	}
	return nil
}

// RoleOf is the role of method in revision p (extension methods included).
func RoleOf(p *Protocol, method string) Role {
	if md := methodIn(p, method); md != nil {
		return md.Role
	}
	return RoleNone
}

// The sentinel that wraps a base64 header value (2026-07-28: Value
// Encoding).
const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// EncodeHeaderValue returns v as a header value: as is when it is
// header-safe, else "=?base64?<base64 of its UTF-8>?=". Values that are
// not safe: non-ASCII, control characters (tab included), leading or
// trailing whitespace, the empty string, or a value that looks like the
// sentinel itself.
func EncodeHeaderValue(v string) string {
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

// ErrBadHeaderValue reports a header value that is neither plain visible
// ASCII nor a valid base64 sentinel.
var ErrBadHeaderValue = errors.New("invalid header value")

// DecodeHeaderValue returns the value a header carries: the decoded
// payload of the base64 sentinel (strict: standard alphabet with padding,
// UTF-8 content), or the value itself, which must then consist of visible
// ASCII, spaces and tabs. Surrounding whitespace is trimmed first.
func DecodeHeaderValue(v string) (string, error) {
	v = strings.Trim(v, " \t")
	if isSentinel(v) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", ErrBadHeaderValue
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", ErrBadHeaderValue
		}
	}
	return v, nil
}
