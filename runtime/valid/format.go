package valid

import (
	"net/netip"
	"net/url"
	"strings"
)

// The string formats the MCP schema uses. uri and uri-template follow the
// reference validator (santhosh-tekuri/jsonschema): a URI is what net/url
// parses with a scheme; a URI template must additionally have balanced,
// unnested braces.

// URI reports whether s is an absolute URI (format "uri").
func URI(s string) bool {
	u, err := parseURL(s)
	return err == nil && u.Scheme != ""
}

// URITemplate reports whether s is a URI template (format "uri-template",
// RFC 6570): a URI reference whose expressions are balanced and unnested.
func URITemplate(s string) bool {
	if _, err := parseURL(s); err != nil {
		return false
	}
	open := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if open {
				return false
			}
			open = true
		case '}':
			if !open {
				return false
			}
			open = false
		}
	}
	return !open
}

// parseURL is url.Parse that also rejects a host with a colon that is not
// a bracketed IPv6 address.
func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if host := u.Hostname(); strings.IndexByte(host, ':') >= 0 {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errBadHost
		}
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() || a.Zone() != "" {
			return nil, errBadHost
		}
	}
	return u, nil
}

type hostError struct{}

func (hostError) Error() string { return "invalid IPv6 host" }

var errBadHost error = hostError{}

// Base64 reports whether s is standard base64 with padding (format "byte",
// RFC 4648 section 4). Line breaks are ignored, as encoding/base64 does. It
// does not allocate.
func Base64(s string) bool {
	n, pad := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' || c == '\n':
			continue
		case c == '=':
			pad++
		case pad > 0:
			return false // data after padding
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
		default:
			return false
		}
		n++
	}
	return n%4 == 0 && pad <= 2 && (n > 0 || pad == 0)
}
