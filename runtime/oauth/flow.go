package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Grant obtains an access token once the resource and its
// authorization server are known. The default is AuthorizationCode;
// ClientCredentials, JWTBearer and EnterpriseManaged implement the MCP
// authorization extensions. Token implementations use the Flow's
// Registration and TokenRequest.
type Grant interface {
	Token(ctx context.Context, f *Flow) (*Token, error)
}

// Flow is one authorization in progress: what discovery found and what
// the grant is to ask for.
type Flow struct {
	t         *Transport
	serverURL string
	prm       *ProtectedResourceMetadata // nil for the 2025-03-26 fallback
	as        *AuthServerMetadata
	issuer    string
	resource  string
	scopes    []string
}

// ServerURL is the MCP endpoint being authorized.
func (f *Flow) ServerURL() string { return f.serverURL }

// Resource is the resource indicator: the resource of the Protected
// Resource Metadata, verbatim.
func (f *Flow) Resource() string { return f.resource }

// Issuer is the authorization server's issuer identifier.
func (f *Flow) Issuer() string { return f.issuer }

// AuthServer is the authorization server's metadata.
func (f *Flow) AuthServer() *AuthServerMetadata { return f.as }

// ResourceMetadata is the Protected Resource Metadata (nil when the
// server has none and the 2025-03-26 fallback is in use).
func (f *Flow) ResourceMetadata() *ProtectedResourceMetadata { return f.prm }

// Scopes are the scopes to request.
func (f *Flow) Scopes() []string { return f.scopes }

// selectScopes applies the scope selection strategy: Config.Scopes, else
// the challenge's scope, else the resource's scopes_supported, else none.
func (f *Flow) selectScopes(ch Challenge) []string {
	switch {
	case len(f.t.cfg.Scopes) > 0:
		return slices.Clone(f.t.cfg.Scopes)
	case len(ch.Scopes()) > 0:
		return ch.Scopes()
	case f.prm != nil && len(f.prm.ScopesSupported) > 0:
		return slices.Clone(f.prm.ScopesSupported)
	}
	return []string{}
}

// AuthorizationCode is the authorization code grant with PKCE (the
// default Grant): the user agent (Config.Authorize) visits the
// authorization endpoint, and the code it brings back is exchanged for a
// token.
type AuthorizationCode struct{}

// Token implements Grant.
func (AuthorizationCode) Token(ctx context.Context, f *Flow) (*Token, error) {
	t, as := f.t, f.as
	if !as.Legacy && !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w (issuer %s advertises %q)", ErrPKCEUnsupported, f.issuer, as.CodeChallengeMethodsSupported)
	}
	if as.AuthorizationEndpoint == "" || as.TokenEndpoint == "" {
		return nil, fmt.Errorf("oauth: authorization server %s has no authorization or token endpoint", f.issuer)
	}
	client, err := f.Registration(ctx)
	if err != nil {
		return nil, err
	}
	verifier := randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	state := randomString(16)

	au, err := url.Parse(as.AuthorizationEndpoint)
	if err != nil {
		return nil, fmt.Errorf("oauth: bad authorization endpoint %q: %w", as.AuthorizationEndpoint, err)
	}
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", client.ClientID)
	q.Set("redirect_uri", t.cfg.RedirectURL)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	q.Set("resource", f.resource)
	if len(f.scopes) > 0 {
		q.Set("scope", scopeString(f.scopes))
	}
	au.RawQuery = q.Encode()

	cb, err := t.cfg.Authorize(ctx, au.String())
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization at %s: %w", as.AuthorizationEndpoint, err)
	}
	code, err := f.checkResponse(cb, state)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {t.cfg.RedirectURL},
		"code_verifier": {verifier},
		"resource":      {f.resource},
	}
	return f.TokenRequest(ctx, client, form)
}

// checkResponse validates an authorization response (the callback URL)
// and returns its code: the iss parameter first (RFC 9207 §2.4, simple
// string comparison with the recorded issuer; without one only if the
// server does not advertise it), then state, then error.
func (f *Flow) checkResponse(cb *url.URL, state string) (string, error) {
	if cb == nil {
		return "", ErrNoCode
	}
	q := cb.Query()
	if !f.as.Legacy {
		if q.Has("iss") {
			if iss := q.Get("iss"); iss != f.as.Issuer {
				return "", &IssuerMismatchError{Where: "authorization response", Expected: f.as.Issuer, Got: iss}
			}
		} else if f.as.AuthorizationResponseIssParameterSupported {
			return "", fmt.Errorf("%w (issuer %s)", ErrMissingIssuer, f.as.Issuer)
		}
	}
	if q.Get("state") != state {
		return "", ErrStateMismatch
	}
	if e := q.Get("error"); e != "" {
		return "", &Error{Endpoint: "authorization", Code: e, Description: q.Get("error_description"), URI: q.Get("error_uri")}
	}
	code := q.Get("code")
	if code == "" {
		return "", ErrNoCode
	}
	return code, nil
}

// Registration returns the client registration to use with the flow's
// authorization server: one on record for its issuer, the pre-registered
// client, the Client ID Metadata Document URL, or a new dynamic
// registration for grantTypes (default authorization_code and
// refresh_token), in that order.
func (f *Flow) Registration(ctx context.Context, grantTypes ...string) (*Registration, error) {
	if len(grantTypes) == 0 {
		grantTypes = []string{"authorization_code", "refresh_token"}
	}
	t, as, store := f.t, f.as, f.t.cfg.Store
	if c := store.Registration(f.issuer); c != nil {
		if c.ClientSecretExpiresAt == 0 || time.Now().Before(time.Unix(c.ClientSecretExpiresAt, 0)) {
			return c, nil
		}
		store.SetRegistration(f.issuer, nil)
	}
	cfg := &t.cfg
	if cfg.ClientID != "" && (cfg.Issuer == "" || cfg.Issuer == f.issuer) {
		c := &Registration{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenEndpointAuthMethod: cfg.TokenEndpointAuthMethod, Kind: "pre-registered"}
		store.SetRegistration(f.issuer, c)
		return c, nil
	}
	if cfg.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported {
		c := &Registration{ClientID: cfg.ClientMetadataURL, TokenEndpointAuthMethod: "none", Kind: "cimd"}
		if cfg.TokenEndpointAuthMethod != "" {
			c.TokenEndpointAuthMethod = cfg.TokenEndpointAuthMethod
		}
		return c, nil // portable: not bound to the issuer
	}
	if as.RegistrationEndpoint == "" {
		if cfg.ClientID != "" {
			return nil, fmt.Errorf("%w: the pre-registered client is for %s, not %s, which offers no registration", ErrNoClientID, cfg.Issuer, f.issuer)
		}
		return nil, fmt.Errorf("%w: %s has no registration endpoint", ErrNoClientID, f.issuer)
	}
	md := &ClientMetadata{
		ClientName:              cfg.ClientName,
		ClientURI:               cfg.ClientURI,
		RedirectURIs:            []string{cfg.RedirectURL},
		GrantTypes:              grantTypes,
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: registrationAuthMethod(cfg.TokenEndpointAuthMethod, as.TokenEndpointAuthMethodsSupported),
		ApplicationType:         cfg.ApplicationType,
	}
	if !slices.Contains(grantTypes, "authorization_code") {
		md.RedirectURIs, md.ResponseTypes = nil, nil
	}
	c, err := Register(ctx, t.hc, as.RegistrationEndpoint, md)
	if err != nil {
		return nil, err
	}
	c.Kind = "dynamic"
	store.SetRegistration(f.issuer, c)
	return c, nil
}

// registrationAuthMethod is the token_endpoint_auth_method to register
// with: the forced one, else a public client ("none") when the server
// allows it or says nothing, else the first secret-based method it
// supports.
func registrationAuthMethod(forced string, supported []string) string {
	if forced != "" {
		return forced
	}
	if len(supported) == 0 || slices.Contains(supported, "none") {
		return "none"
	}
	for _, m := range []string{"client_secret_basic", "client_secret_post"} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	return supported[0]
}

// ClientMetadata is an RFC 7591 client registration request.
type ClientMetadata struct {
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	SoftwareID              string   `json:"software_id,omitempty"`
	SoftwareVersion         string   `json:"software_version,omitempty"`
}

// Register performs Dynamic Client Registration (RFC 7591) at endpoint.
func Register(ctx context.Context, hc *http.Client, endpoint string, md *ClientMetadata) (*Registration, error) {
	body, err := json.Marshal(md)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("oauth: registration endpoint %q: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: registration at %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return nil, fmt.Errorf("oauth: registration at %s: %w", endpoint, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, endpointError("registration", resp.StatusCode, b)
	}
	var c Registration
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("oauth: registration at %s: bad response: %w", endpoint, err)
	}
	if c.ClientID == "" {
		return nil, fmt.Errorf("oauth: registration at %s: the response has no client_id", endpoint)
	}
	return &c, nil
}

// authMethod chooses how client authenticates at the token endpoint.
func (t *Transport) authMethod(c *Registration, supported []string) string {
	if c.TokenEndpointAuthMethod != "" {
		return c.TokenEndpointAuthMethod
	}
	if t.cfg.PrivateKey != nil && c.ClientID == t.cfg.ClientID && (len(supported) == 0 || slices.Contains(supported, "private_key_jwt")) {
		return "private_key_jwt"
	}
	if c.ClientSecret == "" {
		return "none"
	}
	// RFC 8414: client_secret_basic when the server says nothing.
	if len(supported) == 0 || slices.Contains(supported, "client_secret_basic") {
		return "client_secret_basic"
	}
	if slices.Contains(supported, "client_secret_post") {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// authenticate adds the client authentication of client to a token
// request to as.
func (t *Transport) authenticate(req *http.Request, form url.Values, client *Registration, as *AuthServerMetadata) error {
	switch t.authMethod(client, as.TokenEndpointAuthMethodsSupported) {
	case "client_secret_basic":
		// RFC 6749 §2.3.1: form-encoded, then Basic.
		req.SetBasicAuth(url.QueryEscape(client.ClientID), url.QueryEscape(client.ClientSecret))
	case "client_secret_post":
		form.Set("client_id", client.ClientID)
		form.Set("client_secret", client.ClientSecret)
	case "private_key_jwt":
		if t.cfg.PrivateKey == nil {
			return fmt.Errorf("oauth: private_key_jwt needs Config.PrivateKey")
		}
		assertion, err := t.clientAssertion(client.ClientID, as)
		if err != nil {
			return err
		}
		form.Set("client_id", client.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", client.ClientID)
	}
	return nil
}

// clientAssertion is a private_key_jwt client assertion (RFC 7523 §2.2):
// issued by and about the client, for the authorization server (its
// issuer identifier, else its token endpoint).
func (t *Transport) clientAssertion(clientID string, as *AuthServerMetadata) (string, error) {
	aud := as.Issuer
	if aud == "" {
		aud = as.TokenEndpoint
	}
	now := time.Now().Unix()
	return signJWT(t.cfg.PrivateKey, t.cfg.SigningAlgorithm, map[string]any{"typ": "JWT"}, map[string]any{
		"iss": clientID, "sub": clientID, "aud": aud,
		"iat": now, "exp": now + 300, "jti": randomString(16),
	})
}

// TokenRequest POSTs form to the authorization server's token endpoint,
// with the client authentication of client (nil: none) and a DPoP proof
// when so configured, and returns the token, recorded as requested for
// the flow's scopes.
func (f *Flow) TokenRequest(ctx context.Context, client *Registration, form url.Values) (*Token, error) {
	return f.t.tokenRequest(ctx, f.as, client, form, f.scopes)
}

// tokenRequest POSTs form to the token endpoint, authenticated as client
// (nil: no client authentication), and returns the token. requested are
// the scopes asked for, recorded with the token.
func (t *Transport) tokenRequest(ctx context.Context, as *AuthServerMetadata, client *Registration, form url.Values, requested []string) (*Token, error) {
	b, err := t.postForm(ctx, as.TokenEndpoint, "token", form, func(req *http.Request, form url.Values) error {
		if client == nil {
			return nil
		}
		return t.authenticate(req, form, client, as)
	})
	if err != nil {
		return nil, err
	}
	return parseToken(b, requested)
}

// postForm POSTs form to a token endpoint after auth has added client
// authentication to the request and form, and returns the body of a 2xx
// response. With DPoP it sends a proof, and retries once with the nonce
// the server asks for (RFC 9449 §8).
func (t *Transport) postForm(ctx context.Context, endpoint, name string, form url.Values, auth func(*http.Request, url.Values) error) ([]byte, error) {
	for try := 0; ; try++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
		if err != nil {
			return nil, fmt.Errorf("oauth: %s endpoint %q: %w", name, endpoint, err)
		}
		f := url.Values{}
		for k, v := range form {
			f[k] = slices.Clone(v)
		}
		if auth != nil {
			if err := auth(req, f); err != nil {
				return nil, err
			}
		}
		enc := f.Encode()
		req.Body = io.NopCloser(strings.NewReader(enc))
		req.ContentLength = int64(len(enc))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(enc)), nil }
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if t.dpop != nil {
			proof, err := t.dpop.proof(http.MethodPost, req.URL, "")
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err := t.hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("oauth: %s request to %s: %w", name, endpoint, err)
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("oauth: %s request to %s: %w", name, endpoint, err)
		}
		if resp.StatusCode/100 == 2 {
			if t.dpop != nil {
				t.dpop.learnNonce(req.URL, resp.Header)
			}
			return b, nil
		}
		e := endpointError(name, resp.StatusCode, b)
		if t.dpop != nil && try == 0 && t.dpop.learnNonce(req.URL, resp.Header) && e.Code == "use_dpop_nonce" {
			continue
		}
		return nil, e
	}
}

// tokenResponse is an RFC 6749 §5.1 access token response.
type tokenResponse struct {
	AccessToken  string          `json:"access_token"`
	TokenType    string          `json:"token_type"`
	ExpiresIn    json.RawMessage `json:"expires_in"`
	RefreshToken string          `json:"refresh_token"`
	Scope        string          `json:"scope"`
}

func parseToken(b []byte, requested []string) (*Token, error) {
	var r tokenResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("oauth: token endpoint: bad response: %w", err)
	}
	if r.AccessToken == "" {
		return nil, fmt.Errorf("oauth: token endpoint: the response has no access_token")
	}
	tok := &Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Requested: slices.Clone(requested)}
	switch {
	case tok.TokenType == "":
		tok.TokenType = "Bearer"
	case strings.EqualFold(tok.TokenType, "bearer"):
		tok.TokenType = "Bearer"
	case strings.EqualFold(tok.TokenType, "dpop"):
		tok.TokenType = "DPoP"
	default:
		return nil, fmt.Errorf("oauth: token endpoint: unsupported token_type %q", r.TokenType)
	}
	if len(r.ExpiresIn) > 0 && string(r.ExpiresIn) != "null" {
		s := strings.Trim(string(r.ExpiresIn), `"`)
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("oauth: token endpoint: bad expires_in %s", r.ExpiresIn)
		}
		if n > 0 {
			tok.Expiry = time.Now().Add(time.Duration(n * float64(time.Second)))
		}
	}
	if r.Scope != "" {
		tok.Scopes = strings.Fields(r.Scope)
	} else {
		tok.Scopes = slices.Clone(requested)
	}
	return tok, nil
}

// refresh uses old's refresh token (RFC 6749 §6) and stores the new
// token. A response without a refresh token keeps the old one.
func (t *Transport) refresh(ctx context.Context, as *AuthServerMetadata, issuer, resource string, old *Token) (*Token, error) {
	f := &Flow{t: t, as: as, issuer: issuer, resource: resource}
	client := t.cfg.Store.Registration(issuer)
	if client == nil {
		var err error
		if client, err = f.Registration(ctx); err != nil {
			return nil, err
		}
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {old.RefreshToken},
		"resource":      {resource},
	}
	tok, err := t.tokenRequest(ctx, as, client, form, old.Requested)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = old.RefreshToken
	}
	t.cfg.Store.SetToken(resource, issuer, tok)
	return tok, nil
}

// endpointError turns an error response into an *Error.
func endpointError(endpoint string, status int, body []byte) *Error {
	e := &Error{Endpoint: endpoint, Status: status}
	var r struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
		ErrorURI         string `json:"error_uri"`
	}
	if json.Unmarshal(body, &r) == nil && r.Error != "" {
		e.Code, e.Description, e.URI = r.Error, r.ErrorDescription, r.ErrorURI
	} else {
		e.Body = snippet(body)
	}
	return e
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func readSnippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 200))
	return snippet(b)
}

// randomString is n random bytes, base64url without padding.
func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
