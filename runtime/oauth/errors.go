package oauth

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors; the errors the package returns wrap them (errors.Is).
var (
	// ErrNoResourceMetadata: no Protected Resource Metadata was found at
	// any of the locations tried, and the 2025-03-26 fallback is off.
	ErrNoResourceMetadata = errors.New("oauth: no protected resource metadata found")
	// ErrNoAuthServerMetadata: none of the well-known locations of the
	// authorization server answered with usable metadata.
	ErrNoAuthServerMetadata = errors.New("oauth: no authorization server metadata found")
	// ErrPKCEUnsupported: the authorization server does not advertise
	// S256 in code_challenge_methods_supported, so the client refuses to
	// proceed (MCP authorization, "Authorization Code Protection").
	ErrPKCEUnsupported = errors.New("oauth: the authorization server does not support PKCE with S256")
	// ErrNoClientID: no pre-registered client, no Client ID Metadata
	// Document the server supports, and no registration endpoint.
	ErrNoClientID = errors.New("oauth: no way to obtain a client_id from the authorization server")
	// ErrStateMismatch: the authorization response's state is not the one
	// sent.
	ErrStateMismatch = errors.New("oauth: authorization response state does not match the request")
	// ErrMissingIssuer: the server advertised
	// authorization_response_iss_parameter_supported but its authorization
	// response has no iss (RFC 9207 §2.4).
	ErrMissingIssuer = errors.New("oauth: authorization response lacks the iss parameter the server advertised")
	// ErrNoCode: the authorization response carries neither a code nor an
	// error.
	ErrNoCode = errors.New("oauth: authorization response has no code")
	// ErrTokenRejected: the resource server refused a token that was
	// issued moments ago for this very request.
	ErrTokenRejected = errors.New("oauth: the resource server rejected a freshly issued token")
	// ErrRetryLimit: the request still failed authorization after the
	// allowed number of authorization attempts.
	ErrRetryLimit = errors.New("oauth: authorization retry limit reached")
	// ErrInsecureEndpoint: an authorization endpoint is neither https nor
	// loopback http.
	ErrInsecureEndpoint = errors.New("oauth: authorization server endpoints must use https")
)

// ResourceMismatchError: the resource of the Protected Resource Metadata
// does not identify the server the client talks to (RFC 9728 §3.3), so
// the metadata must not be used.
type ResourceMismatchError struct {
	Resource  string // the metadata's resource
	ServerURL string // the MCP endpoint
	Metadata  string // where the metadata came from
}

func (e *ResourceMismatchError) Error() string {
	return fmt.Sprintf("oauth: protected resource metadata at %s is for resource %q, not for %s", e.Metadata, e.Resource, e.ServerURL)
}

// IssuerMismatchError: an issuer identifier differs from the expected one
// by simple string comparison: the issuer of authorization server
// metadata (RFC 8414 §3.3), or the iss of an authorization response
// (RFC 9207 §2.4).
type IssuerMismatchError struct {
	Where    string // "metadata at <url>" or "authorization response"
	Expected string
	Got      string
}

func (e *IssuerMismatchError) Error() string {
	return fmt.Sprintf("oauth: issuer %q in %s does not match the expected issuer %q", e.Got, e.Where, e.Expected)
}

// Error is an OAuth error response (RFC 6749 §4.1.2.1, §5.2; RFC 7591
// §3.2.2) from an authorization server endpoint.
type Error struct {
	Endpoint    string // "authorization", "token", "registration"
	Status      int    // the HTTP status (0 for authorization responses)
	Code        string // error
	Description string // error_description
	URI         string // error_uri
	Body        string // the start of a body that is not an OAuth error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("oauth: " + e.Endpoint + " endpoint")
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Code != "" {
		b.WriteString(": " + e.Code)
	}
	if e.Description != "" {
		b.WriteString(": " + e.Description)
	}
	if e.Code == "" && e.Body != "" {
		b.WriteString(": " + e.Body)
	}
	return b.String()
}

// InsufficientScopeError: the resource server keeps answering 403
// insufficient_scope although the client holds a token for the scopes
// it asks for.
type InsufficientScopeError struct {
	Required []string // the challenge's scope
	Granted  []string // the scopes of the token that was refused
}

func (e *InsufficientScopeError) Error() string {
	return fmt.Sprintf("oauth: resource server requires scope %q; a token requested for %q was refused", strings.Join(e.Required, " "), strings.Join(e.Granted, " "))
}

func (e *InsufficientScopeError) Unwrap() error { return ErrRetryLimit }
