// Package oauth is the client side of MCP authorization: OAuth 2.1 for
// HTTP transports, as the MCP specification (2025-11-25 and 2026-07-28)
// profiles it.
//
// A Config describes the client; Config.Client wraps an *http.Client so
// that every request to an MCP endpoint carries its access token, and a
// 401 (or a 403 insufficient_scope) starts authorization:
//
//   - Protected Resource Metadata discovery (RFC 9728): the
//     resource_metadata of the WWW-Authenticate challenge, else
//     /.well-known/oauth-protected-resource/<path>, else the root; the
//     metadata's resource must identify the endpoint.
//   - Authorization server metadata discovery (RFC 8414, OpenID Connect
//     Discovery) in the order MCP prescribes, with the issuer checked by
//     simple string comparison.
//   - A client_id: pre-registered, a Client ID Metadata Document URL when
//     the server supports those, else Dynamic Client Registration (RFC
//     7591); registrations are kept per authorization server.
//   - The authorization code grant with PKCE (S256), state, the resource
//     indicator (RFC 8707) and RFC 9207 iss validation; the token
//     endpoint authentication method the server supports.
//   - Scope selection: the challenge's scope, else the resource's
//     scopes_supported, else none; offline_access when the authorization
//     server offers it; step-up on 403 insufficient_scope with the union
//     of the scopes, within a retry limit.
//   - Refresh tokens, a change of authorization server (re-registration),
//     and the 2025-03-26 fallbacks for servers without resource metadata.
//
// Tokens are kept per (resource, issuer) in a Store (memory by default).
// Extension grants (client credentials, JWT bearer, enterprise-managed
// authorization) plug in as a Grant.
package oauth

import (
	"context"
	"crypto"
	"net/http"
	"net/url"
	"strings"
)

// Config describes an OAuth client of MCP servers.
type Config struct {
	// ClientName is the client_name sent with Dynamic Client Registration.
	ClientName string
	// ClientURI is the client_uri sent with Dynamic Client Registration.
	ClientURI string
	// RedirectURL is the redirect_uri of the authorization code grant
	// (default "http://127.0.0.1/callback"). See Loopback for a native
	// application's.
	RedirectURL string
	// ApplicationType is the application_type of Dynamic Client
	// Registration: "native" or "web" (default: native for a localhost,
	// loopback or private-use scheme redirect URL, else web).
	ApplicationType string

	// ClientID and ClientSecret are a pre-registered client; with them
	// the client does not register. Issuer, if set, is the authorization
	// server they belong to: with any other, the client registers anew.
	ClientID, ClientSecret string
	Issuer                 string
	// ClientMetadataURL is the https URL of the client's Client ID
	// Metadata Document, used as client_id with authorization servers
	// that advertise client_id_metadata_document_supported.
	ClientMetadataURL string
	// PrivateKey and SigningAlgorithm (default: ES256, ES384 or ES512 by
	// curve, RS256 for RSA) make the pre-registered client authenticate
	// with private_key_jwt (RFC 7523 §2.2) where the authorization
	// server supports it.
	PrivateKey       crypto.Signer
	SigningAlgorithm string
	// TokenEndpointAuthMethod forces the token endpoint authentication
	// method ("client_secret_basic", "client_secret_post", "none");
	// default: what the registration says, else the best the
	// authorization server supports for the credentials at hand.
	TokenEndpointAuthMethod string

	// Scopes, if set, are requested instead of those the scope selection
	// strategy picks (the challenge's scope, else scopes_supported).
	Scopes []string
	// NoOfflineAccess stops the client adding offline_access to the
	// scopes when the authorization server lists it in scopes_supported.
	NoOfflineAccess bool

	// Authorize takes the user agent to authURL and returns the URL the
	// authorization server redirected it to (the redirect URL with code,
	// state and iss). Default: Headless, which suits servers that
	// redirect without user interaction.
	Authorize func(ctx context.Context, authURL string) (*url.URL, error)
	// Grant obtains tokens in place of the authorization code grant
	// (ClientCredentials, JWTBearer, ...).
	Grant Grant

	// DPoP, if set, is the key of DPoP proofs (RFC 9449): token requests
	// carry one, and DPoP-bound tokens are presented with the DPoP scheme
	// and a fresh proof per request. See GenerateDPoPKey.
	DPoP crypto.Signer

	// Store keeps tokens and registrations (default: in memory, per
	// Transport).
	Store Store
	// MaxAuthorizations bounds the authorizations one request may start
	// (default 3).
	MaxAuthorizations int
	// NoLegacyFallback turns off the 2025-03-26 behaviour for servers
	// without Protected Resource Metadata: authorization server metadata
	// at the endpoint's origin, else /authorize, /token and /register
	// there.
	NoLegacyFallback bool
	// AllowInsecure allows http authorization endpoints on hosts other
	// than localhost and loopback addresses.
	AllowInsecure bool
}

// Client returns an *http.Client that authorizes its requests as
// configured. Requests go out through base's Transport (base nil:
// http.DefaultClient), which also makes the discovery, registration and
// token requests; base's Timeout, Jar and CheckRedirect are kept.
func (c *Config) Client(base *http.Client) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	return &http.Client{
		Transport:     c.NewTransport(base),
		CheckRedirect: base.CheckRedirect,
		Jar:           base.Jar,
		Timeout:       base.Timeout,
	}
}

// NewTransport returns the http.RoundTripper Client uses.
func (c *Config) NewTransport(base *http.Client) *Transport {
	if base == nil {
		base = http.DefaultClient
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	t := &Transport{
		cfg:      *c,
		base:     rt,
		hc:       &http.Client{Transport: rt, Timeout: base.Timeout},
		bindings: map[string]binding{},
		meta:     map[string]*AuthServerMetadata{},
	}
	t.cfg.Scopes = append([]string(nil), c.Scopes...)
	if t.cfg.Store == nil {
		t.cfg.Store = NewMemoryStore()
	}
	if t.cfg.RedirectURL == "" {
		t.cfg.RedirectURL = "http://127.0.0.1/callback"
	}
	if t.cfg.MaxAuthorizations <= 0 {
		t.cfg.MaxAuthorizations = 3
	}
	if t.cfg.Authorize == nil {
		t.cfg.Authorize = Headless(t.hc)
	}
	if c.DPoP != nil {
		t.dpop, t.initErr = newDPoP(c.DPoP)
	}
	if t.cfg.ApplicationType == "" {
		t.cfg.ApplicationType = "web"
		if u, err := url.Parse(t.cfg.RedirectURL); err == nil && (isLoopback(u) || (u.Scheme != "http" && u.Scheme != "https")) {
			t.cfg.ApplicationType = "native"
		}
	}
	return t
}

// Headless returns an Authorize function that GETs the authorization URL
// with hc, without following redirects, and returns the Location of the
// redirect. It suits authorization servers that redirect at once: test
// servers, clients whose consent is already on record.
func Headless(hc *http.Client) func(ctx context.Context, authURL string) (*url.URL, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	nc := *hc
	nc.Jar = nil
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := nc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode/100 != 3 || loc == "" {
			return nil, &Error{Endpoint: "authorization", Status: resp.StatusCode, Body: readSnippet(resp.Body)}
		}
		return resp.Request.URL.Parse(loc)
	}
}

// scopeString joins scopes for the scope parameter.
func scopeString(s []string) string { return strings.Join(s, " ") }
