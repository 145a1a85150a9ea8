package streamhttp

import (
	"encoding/base64"
	"errors"
	"strings"
	"unicode/utf8"
)

// The HTTP headers of the transport.
const (
	hdrSessionID       = "Mcp-Session-Id"
	hdrProtocolVersion = "Mcp-Protocol-Version" // canonical form of MCP-Protocol-Version
	hdrMethod          = "Mcp-Method"
	hdrName            = "Mcp-Name"
	hdrParamPrefix     = "Mcp-Param-"
	hdrLastEventID     = "Last-Event-Id"
)

// The sentinel that wraps a base64 header value (2026-07-28: Value
// Encoding).
const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// encodeHeaderValue returns v as a header value: as is when it is
// header-safe, else "=?base64?<base64 of its UTF-8>?=". Values that are
// not safe: non-ASCII, control characters (tab included), leading or
// trailing whitespace, the empty string, or a value that looks like the
// sentinel itself.
func encodeHeaderValue(v string) string {
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

var errBadHeaderValue = errors.New("invalid header value")

// decodeHeaderValue returns the value a header carries: the decoded
// payload of the base64 sentinel (strict: standard alphabet with padding,
// UTF-8 content), or the value itself, which must then consist of visible
// ASCII, spaces and tabs. Surrounding whitespace is trimmed first.
func decodeHeaderValue(v string) (string, error) {
	v = strings.Trim(v, " \t")
	if isSentinel(v) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", errBadHeaderValue
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", errBadHeaderValue
		}
	}
	return v, nil
}
