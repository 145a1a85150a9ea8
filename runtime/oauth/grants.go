package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Grant type and token type URNs.
const (
	GrantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"     // RFC 7523
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange" // RFC 8693
	TokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// ClientCredentials is the client credentials grant (OAuth 2.1 §4.2; the
// MCP extension io.modelcontextprotocol/oauth-client-credentials): the
// client acts on its own behalf, authenticated with Config.ClientSecret
// (client_secret_basic or client_secret_post) or Config.PrivateKey
// (private_key_jwt).
type ClientCredentials struct{}

// Token implements Grant.
func (ClientCredentials) Token(ctx context.Context, f *Flow) (*Token, error) {
	client, err := f.Registration(ctx, "client_credentials")
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {f.resource}}
	if len(f.scopes) > 0 {
		form.Set("scope", scopeString(f.scopes))
	}
	return f.TokenRequest(ctx, client, form)
}

// JWTBearer is the JWT bearer authorization grant (RFC 7523 §2.1), as
// workload identity federation uses it (MCP extension
// io.modelcontextprotocol/auth/wif): Assertion returns a JWT for the
// authorization server (audience is its issuer identifier), which the
// client presents as the grant. A rejected assertion is an error: the
// client does not retry or switch grants.
type JWTBearer struct {
	Assertion func(ctx context.Context, audience string) (string, error)
}

// Token implements Grant.
func (g JWTBearer) Token(ctx context.Context, f *Flow) (*Token, error) {
	if g.Assertion == nil {
		return nil, errors.New("oauth: JWTBearer needs an Assertion function")
	}
	assertion, err := g.Assertion(ctx, audience(f.as))
	if err != nil {
		return nil, fmt.Errorf("oauth: obtaining the JWT bearer assertion: %w", err)
	}
	return jwtBearer(ctx, f, assertion)
}

func jwtBearer(ctx context.Context, f *Flow, assertion string) (*Token, error) {
	client, err := f.Registration(ctx, GrantJWTBearer)
	if err != nil && !errors.Is(err, ErrNoClientID) {
		return nil, err
	}
	form := url.Values{"grant_type": {GrantJWTBearer}, "assertion": {assertion}, "resource": {f.resource}}
	if len(f.scopes) > 0 {
		form.Set("scope", scopeString(f.scopes))
	}
	return f.TokenRequest(ctx, client, form)
}

func audience(as *AuthServerMetadata) string {
	if as.Issuer != "" {
		return as.Issuer
	}
	return as.TokenEndpoint
}

// EnterpriseManaged is Enterprise-Managed Authorization (MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization, SEP-990): the
// client exchanges the user's identity assertion from the enterprise
// identity provider for an Identity Assertion JWT Authorization Grant
// (ID-JAG) at the IdP's token endpoint (RFC 8693 token exchange, audience
// the MCP authorization server, resource the MCP server), then presents
// the ID-JAG to the MCP authorization server as a JWT bearer grant (RFC
// 7523), authenticated as the pre-registered client.
type EnterpriseManaged struct {
	// IDPTokenEndpoint is the IdP's token endpoint.
	IDPTokenEndpoint string
	// IDPClientID and IDPClientSecret authenticate the client at the IdP
	// (client_secret_post; none without a secret).
	IDPClientID, IDPClientSecret string
	// IDToken returns the user's identity assertion (an OpenID Connect
	// ID token) from the IdP.
	IDToken func(ctx context.Context) (string, error)
}

// Token implements Grant.
func (g EnterpriseManaged) Token(ctx context.Context, f *Flow) (*Token, error) {
	if g.IDPTokenEndpoint == "" || g.IDToken == nil {
		return nil, errors.New("oauth: EnterpriseManaged needs IDPTokenEndpoint and IDToken")
	}
	if err := checkSecure(g.IDPTokenEndpoint, f.t.cfg.AllowInsecure); err != nil {
		return nil, err
	}
	idToken, err := g.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: obtaining the identity assertion: %w", err)
	}
	form := url.Values{
		"grant_type":           {GrantTokenExchange},
		"requested_token_type": {TokenTypeIDJAG},
		"audience":             {audience(f.as)},
		"resource":             {f.resource},
		"subject_token":        {idToken},
		"subject_token_type":   {TokenTypeIDToken},
	}
	if len(f.scopes) > 0 {
		form.Set("scope", scopeString(f.scopes))
	}
	b, err := f.t.postForm(ctx, g.IDPTokenEndpoint, "IdP token", form, func(_ *http.Request, form url.Values) error {
		if g.IDPClientID != "" {
			form.Set("client_id", g.IDPClientID)
		}
		if g.IDPClientSecret != "" {
			form.Set("client_secret", g.IDPClientSecret)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var r struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("oauth: IdP token exchange: bad response: %w", err)
	}
	if r.AccessToken == "" || r.IssuedTokenType != TokenTypeIDJAG {
		return nil, fmt.Errorf("oauth: IdP token exchange: expected an ID-JAG, got issued_token_type %q", r.IssuedTokenType)
	}
	return jwtBearer(ctx, f, r.AccessToken)
}
