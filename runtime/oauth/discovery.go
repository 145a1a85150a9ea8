package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ProtectedResourceMetadata is OAuth 2.0 Protected Resource Metadata
// (RFC 9728 §2): what a client discovers here, and what a server publishes
// (streamhttp.Options.ResourceMetadata).
type ProtectedResourceMetadata struct {
	Resource                          string   `json:"resource"`
	AuthorizationServers              []string `json:"authorization_servers,omitempty"`
	JWKSURI                           string   `json:"jwks_uri,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported            []string `json:"bearer_methods_supported,omitempty"`
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
	ResourceName                      string   `json:"resource_name,omitempty"`
	ResourceDocumentation             string   `json:"resource_documentation,omitempty"`
	ResourcePolicyURI                 string   `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI                    string   `json:"resource_tos_uri,omitempty"`
	TLSClientCertificateBoundTokens   bool     `json:"tls_client_certificate_bound_access_tokens,omitempty"`
	DPoPSigningAlgValuesSupported     []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundAccessTokensRequired     bool     `json:"dpop_bound_access_tokens_required,omitempty"`

	// URL is where the document was fetched (not part of the document).
	URL string `json:"-"`
}

// AuthServerMetadata is OAuth 2.0 Authorization Server Metadata (RFC
// 8414 §2) or an OpenID Provider configuration, with the members an MCP
// client uses.
type AuthServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported,omitempty"`
	RevocationEndpoint                         string   `json:"revocation_endpoint,omitempty"`

	// URL is where the document was fetched; empty for the 2025-03-26
	// default endpoints (Legacy). Not part of the document.
	URL string `json:"-"`
	// Legacy is set for metadata made up from the 2025-03-26 default
	// endpoints (/authorize, /token, /register) of a server that
	// publishes none.
	Legacy bool `json:"-"`
}

// maxMetadata bounds a metadata document or endpoint response.
const maxMetadata = 1 << 20

// ResourceMetadataURLs returns the well-known locations of the Protected
// Resource Metadata of the MCP endpoint serverURL, in the order a client
// tries them (RFC 9728 §3.1; MCP authorization): path-based
// (/.well-known/oauth-protected-resource/<path>) when the endpoint has a
// path, then the root.
func ResourceMetadataURLs(serverURL string) ([]string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("oauth: bad server URL %q", serverURL)
	}
	origin := u.Scheme + "://" + u.Host
	var out []string
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		out = append(out, origin+"/.well-known/oauth-protected-resource"+p)
	}
	return append(out, origin+"/.well-known/oauth-protected-resource"), nil
}

// AuthServerMetadataURLs returns the locations of the metadata of the
// authorization server issuer, in the order MCP clients try them: for an
// issuer with a path, RFC 8414 path insertion, OpenID Connect path
// insertion, OpenID Connect path appending; for one without, RFC 8414
// then OpenID Connect.
func AuthServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: bad issuer identifier %q", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}, nil
}

// DiscoverResource finds and validates the Protected Resource Metadata of
// the MCP endpoint serverURL. metadataURL is the resource_metadata of the
// server's WWW-Authenticate challenge, if any: it is tried first, then
// the well-known locations. A document whose resource does not identify
// serverURL is rejected (*ResourceMismatchError) without trying further.
// When no location has a document the error wraps ErrNoResourceMetadata.
func DiscoverResource(ctx context.Context, hc *http.Client, serverURL, metadataURL string) (*ProtectedResourceMetadata, error) {
	urls, err := ResourceMetadataURLs(serverURL)
	if err != nil {
		return nil, err
	}
	if metadataURL != "" {
		urls = append([]string{metadataURL}, urls...)
	}
	var tried []string
	seen := map[string]bool{}
	for _, loc := range urls {
		if seen[loc] {
			continue
		}
		seen[loc] = true
		var md ProtectedResourceMetadata
		if err := getJSON(ctx, hc, loc, &md); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		md.URL = loc
		if md.Resource == "" {
			tried = append(tried, fmt.Sprintf("%s: no resource member", loc))
			continue
		}
		if !ResourceMatches(md.Resource, serverURL) {
			return nil, &ResourceMismatchError{Resource: md.Resource, ServerURL: serverURL, Metadata: loc}
		}
		return &md, nil
	}
	return nil, fmt.Errorf("%w for %s (%s)", ErrNoResourceMetadata, serverURL, strings.Join(tried, "; "))
}

// ResourceMatches reports whether the resource identifier of protected
// resource metadata covers the MCP endpoint serverURL: same scheme, host
// and port (compared case-insensitively, default ports elided), and a
// path that is the endpoint's path or one of its parent paths (so
// https://example.com covers https://example.com/mcp).
func ResourceMatches(resource, serverURL string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(serverURL)
	if err1 != nil || err2 != nil || r.Fragment != "" || r.Host == "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || hostPort(r) != hostPort(s) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

func hostPort(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(host, port)
}

// DiscoverAuthServer fetches the metadata of the authorization server
// with the issuer identifier issuer, trying AuthServerMetadataURLs in
// order. A document whose issuer is not exactly issuer is not used (RFC
// 8414 §3.3); when that is all there is, the error is an
// *IssuerMismatchError. When no location has a document the error wraps
// ErrNoAuthServerMetadata.
func DiscoverAuthServer(ctx context.Context, hc *http.Client, issuer string) (*AuthServerMetadata, error) {
	urls, err := AuthServerMetadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	var tried []string
	var mismatch *IssuerMismatchError
	for _, loc := range urls {
		var md AuthServerMetadata
		if err := getJSON(ctx, hc, loc, &md); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		md.URL = loc
		if md.Issuer != issuer {
			if mismatch == nil {
				mismatch = &IssuerMismatchError{Where: "metadata at " + loc, Expected: issuer, Got: md.Issuer}
			}
			continue
		}
		return &md, nil
	}
	if mismatch != nil {
		return nil, mismatch
	}
	return nil, fmt.Errorf("%w for issuer %s (%s)", ErrNoAuthServerMetadata, issuer, strings.Join(tried, "; "))
}

// legacyAuthServer is the metadata a 2025-03-26 client assumes for a
// server that publishes none: the default endpoints at the origin of the
// MCP endpoint.
func legacyAuthServer(origin string) *AuthServerMetadata {
	return &AuthServerMetadata{
		AuthorizationEndpoint:         origin + "/authorize",
		TokenEndpoint:                 origin + "/token",
		RegistrationEndpoint:          origin + "/register",
		CodeChallengeMethodsSupported: []string{"S256"},
		Legacy:                        true,
	}
}

// statusError is a metadata location that did not answer 200.
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string { return fmt.Sprintf("%s: HTTP %d", e.url, e.status) }

// getJSON GETs loc and decodes its JSON body into v.
func getJSON(ctx context.Context, hc *http.Client, loc string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", loc, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return &statusError{url: loc, status: resp.StatusCode}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(v); err != nil {
		return fmt.Errorf("%s: bad JSON: %w", loc, err)
	}
	return nil
}

// isLoopback reports whether u's host is localhost or a loopback address.
func isLoopback(u *url.URL) bool {
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkSecure requires https, or http to a loopback host, unless
// insecure.
func checkSecure(raw string, insecure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("oauth: bad endpoint URL %q", raw)
	}
	if u.Scheme == "https" || insecure || (u.Scheme == "http" && isLoopback(u)) {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInsecureEndpoint, raw)
}
