package oauth

import (
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1), e.g. Bearer resource_metadata="…", scope="a b".
type Challenge struct {
	// Scheme is the auth scheme as sent ("Bearer", "DPoP").
	Scheme string
	// Params holds the auth-params by lower-cased name, unquoted.
	Params map[string]string
	// Token68 is the token68 form of the credentials, if the challenge
	// has one instead of parameters.
	Token68 string
}

// Param returns the auth-param name (case-insensitive).
func (c Challenge) Param(name string) string { return c.Params[strings.ToLower(name)] }

// ResourceMetadata is the resource_metadata parameter (RFC 9728 §5.1).
func (c Challenge) ResourceMetadata() string { return c.Param("resource_metadata") }

// Scopes is the scope parameter split on spaces (RFC 6750 §3).
func (c Challenge) Scopes() []string { return strings.Fields(c.Param("scope")) }

// Error is the error parameter ("invalid_token", "insufficient_scope").
func (c Challenge) Error() string { return c.Param("error") }

// ParseChallenges parses every WWW-Authenticate field of h.
func ParseChallenges(h http.Header) []Challenge {
	var out []Challenge
	for _, v := range h.Values("WWW-Authenticate") {
		out = append(out, ParseChallenge(v)...)
	}
	return out
}

// ParseChallenge parses one WWW-Authenticate field value, which may hold
// several challenges.
func ParseChallenge(s string) []Challenge {
	var out []Challenge
	for _, item := range splitOutsideQuotes(s) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		// A challenge starts with a scheme token followed by nothing or
		// by whitespace and its first parameter (or token68); any other
		// item is a parameter of the current challenge.
		tok := leadingToken(item)
		after := item[len(tok):]
		rest := strings.TrimLeft(after, " \t")
		if tok != "" && (after == "" || (len(rest) < len(after) && !strings.HasPrefix(rest, "="))) {
			out = append(out, Challenge{Scheme: tok, Params: map[string]string{}})
			if rest == "" {
				continue
			}
			item = rest
		}
		if len(out) == 0 {
			continue // a parameter before any scheme: malformed
		}
		c := &out[len(out)-1]
		name, value, ok := parseParam(item)
		if !ok {
			if c.Token68 == "" && len(c.Params) == 0 {
				c.Token68 = item
			}
			continue
		}
		if _, dup := c.Params[name]; !dup {
			c.Params[name] = value
		}
	}
	return out
}

// parseParam parses name BWS "=" BWS ( token / quoted-string ).
func parseParam(s string) (name, value string, ok bool) {
	name = leadingToken(s)
	if name == "" {
		return "", "", false
	}
	rest := strings.TrimLeft(s[len(name):], " \t")
	if !strings.HasPrefix(rest, "=") {
		return "", "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	if rest == "" || strings.HasPrefix(rest, "=") {
		return "", "", false // token68 padding
	}
	if rest[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(rest); i++ {
			switch ch := rest[i]; ch {
			case '\\':
				if i+1 < len(rest) {
					i++
					b.WriteByte(rest[i])
				}
			case '"':
				return strings.ToLower(name), b.String(), true
			default:
				b.WriteByte(ch)
			}
		}
		return strings.ToLower(name), b.String(), true // unterminated: take what is there
	}
	return strings.ToLower(name), strings.TrimSpace(rest), true
}

// leadingToken returns the RFC 9110 token at the start of s.
func leadingToken(s string) string {
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return s[:i]
		}
	}
	return s
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// splitOutsideQuotes splits s on the commas that are not inside a
// quoted-string.
func splitOutsideQuotes(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if quoted {
				i++
			}
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// bearerChallenge picks the challenge that concerns us: Bearer (or DPoP)
// first, else the first one.
func bearerChallenge(cs []Challenge) (Challenge, bool) {
	for _, scheme := range []string{"bearer", "dpop"} {
		for _, c := range cs {
			if strings.EqualFold(c.Scheme, scheme) {
				return c, true
			}
		}
	}
	if len(cs) > 0 {
		return cs[0], true
	}
	return Challenge{Params: map[string]string{}}, false
}
