package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Transport is an http.RoundTripper that authorizes requests to MCP
// endpoints (see the package documentation). Make one with
// Config.NewTransport or Config.Client.
type Transport struct {
	cfg     Config
	base    http.RoundTripper
	hc      *http.Client // discovery, registration and token requests
	dpop    *dpopSigner  // nil without Config.DPoP
	initErr error        // a bad Config.DPoP key

	authMu sync.Mutex // one authorization at a time

	mu       sync.Mutex
	bindings map[string]binding             // endpoint → where its token is
	meta     map[string]*AuthServerMetadata // by issuer
}

// binding ties an MCP endpoint to the resource and authorization server
// its tokens are for.
type binding struct {
	resource, issuer string
	as               *AuthServerMetadata
}

var _ http.RoundTripper = (*Transport)(nil)

// endpointKey identifies an MCP endpoint: scheme, host and path.
func endpointKey(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.EscapedPath()
}

// endpointURL is the URL of the endpoint without query and fragment.
func endpointURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.User = "", "", "", nil
	return c.String()
}

// Token returns the access token the transport holds for the MCP endpoint
// serverURL, or nil.
func (t *Transport) Token(serverURL string) *Token {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil
	}
	t.mu.Lock()
	b, ok := t.bindings[endpointKey(u)]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	return t.cfg.Store.Token(b.resource, b.issuer)
}

// Authorize runs discovery and authorization for the MCP endpoint
// serverURL now, as a 401 without a challenge would.
func (t *Transport) Authorize(ctx context.Context, serverURL string) (*Token, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("oauth: bad server URL %q", serverURL)
	}
	t.authMu.Lock()
	defer t.authMu.Unlock()
	tok, _, err := t.authorize(ctx, u, Challenge{Params: map[string]string{}}, nil, nil, true)
	return tok, err
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	getBody, err := replayable(req)
	if err != nil {
		return nil, err
	}
	if t.initErr != nil {
		return nil, t.initErr
	}
	ctx := req.Context()
	var st attempt // what this request's authorizations obtained
	auths, nonces := 0, 0
	for {
		tok := t.current(ctx, req.URL)
		r := req.Clone(ctx)
		if getBody != nil {
			if r.Body, err = getBody(); err != nil {
				return nil, err
			}
		}
		if tok != nil {
			if err := t.present(r, tok); err != nil {
				return nil, err
			}
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		ch, ok := authChallenge(resp)
		if t.dpop != nil && t.dpop.learnNonce(r.URL, resp.Header) && ok && ch.Error() == "use_dpop_nonce" && nonces < 2 {
			// RFC 9449 §9: retry with the resource server's nonce.
			nonces++
			discard(resp)
			continue
		}
		if !ok || ch.Error() == "use_dpop_nonce" {
			return resp, nil
		}
		status := resp.StatusCode
		discard(resp)
		if auths >= t.cfg.MaxAuthorizations {
			return nil, fmt.Errorf("%w: %s %s answered %d after %d authorization(s)", ErrRetryLimit, req.Method, endpointURL(req.URL), status, auths)
		}
		auths++
		if err := t.challenged(ctx, req.URL, status, ch, tok, &st); err != nil {
			return nil, err
		}
	}
}

// present adds tok to r: Bearer, or DPoP with a fresh proof.
func (t *Transport) present(r *http.Request, tok *Token) error {
	if tok.TokenType == "DPoP" && t.dpop != nil {
		proof, err := t.dpop.proof(r.Method, r.URL, tok.AccessToken)
		if err != nil {
			return err
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
		return nil
	}
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// discard drains and closes a response that will not be returned.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// attempt is what the authorizations of one request obtained.
type attempt struct {
	fresh  *Token // the last token obtained
	reused bool   // it came from a refresh token, the store or another request, not a grant
}

// isFresh reports whether tok is the token this request just obtained.
func (a *attempt) isFresh(tok *Token) bool {
	return a.fresh != nil && tok != nil && tok.AccessToken == a.fresh.AccessToken
}

// authChallenge reports whether resp asks for (more) authorization: a
// 401 with a Bearer or DPoP challenge (or none at all), or a 403 whose
// challenge says insufficient_scope.
func authChallenge(resp *http.Response) (Challenge, bool) {
	cs := ParseChallenges(resp.Header)
	ch, any := bearerChallenge(cs)
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		if !any {
			return ch, true
		}
		return ch, strings.EqualFold(ch.Scheme, "bearer") || strings.EqualFold(ch.Scheme, "dpop")
	case http.StatusForbidden:
		return ch, any && ch.Error() == "insufficient_scope"
	}
	return ch, false
}

// replayable makes req's body readable once per attempt.
func replayable(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		req.Body.Close()
		return req.GetBody, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("oauth: reading the request body: %w", err)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}

// current returns the token to send to u, refreshing an expired one
// that has a refresh token.
func (t *Transport) current(ctx context.Context, u *url.URL) *Token {
	t.mu.Lock()
	b, ok := t.bindings[endpointKey(u)]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	tok := t.cfg.Store.Token(b.resource, b.issuer)
	if tok == nil || tok.Valid() {
		return tok
	}
	if tok.RefreshToken == "" || b.as == nil {
		return nil
	}
	t.authMu.Lock()
	defer t.authMu.Unlock()
	if tok = t.cfg.Store.Token(b.resource, b.issuer); tok == nil || tok.Valid() {
		return tok // refreshed meanwhile
	}
	nt, err := t.refresh(ctx, b.as, b.issuer, b.resource, tok)
	if err != nil {
		return nil // the server's 401 starts authorization
	}
	return nt
}

// challenged handles a 401 or 403 the request to u got with token sent
// (nil: none), updating st with the token to retry with.
func (t *Transport) challenged(ctx context.Context, u *url.URL, status int, ch Challenge, sent *Token, st *attempt) error {
	t.authMu.Lock()
	defer t.authMu.Unlock()
	// Another request may have authorized while this one was out.
	if cur := t.currentLocked(u); cur.Valid() && (sent == nil || cur.AccessToken != sent.AccessToken) {
		if status == http.StatusUnauthorized || containsAll(cur.Requested, ch.Scopes()) {
			st.fresh, st.reused = cur, true
			return nil
		}
	}
	var scopes []string // nil: choose by the scope selection strategy
	allowReuse := true
	if status == http.StatusForbidden {
		required := ch.Scopes()
		if st.isFresh(sent) && !st.reused && containsAll(sent.Requested, required) {
			// The token was requested for these very scopes moments ago:
			// asking again would loop.
			return &InsufficientScopeError{Required: required, Granted: sent.Scopes}
		}
		if sent != nil {
			scopes = union(sent.Requested, required)
		} else {
			scopes = union(nil, required)
		}
	} else if st.isFresh(sent) {
		if !st.reused {
			return fmt.Errorf("%w (%s)", ErrTokenRejected, endpointURL(u))
		}
		allowReuse = false // a reused token was refused: authorize afresh
	}
	tok, reused, err := t.authorize(ctx, u, ch, scopes, sent, allowReuse)
	if err != nil {
		return err
	}
	st.fresh, st.reused = tok, reused
	return nil
}

// currentLocked is the stored token for u, as is.
func (t *Transport) currentLocked(u *url.URL) *Token {
	t.mu.Lock()
	b, ok := t.bindings[endpointKey(u)]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	return t.cfg.Store.Token(b.resource, b.issuer)
}

// authorize discovers the resource and its authorization server and
// obtains a token for the endpoint u. scopes, if not nil, are the scopes
// to ask for (step-up); old is the token the server refused, if any;
// allowReuse lets a stored token or a refresh token stand in for
// authorization. It reports whether the token is such a stand-in.
// t.authMu is held.
func (t *Transport) authorize(ctx context.Context, u *url.URL, ch Challenge, scopes []string, old *Token, allowReuse bool) (*Token, bool, error) {
	serverURL := endpointURL(u)
	f := &Flow{t: t, serverURL: serverURL}
	prm, err := DiscoverResource(ctx, t.hc, serverURL, ch.ResourceMetadata())
	switch {
	case err == nil:
		f.prm = prm
		f.resource = prm.Resource
		if f.issuer = t.pickIssuer(prm.AuthorizationServers); f.issuer == "" {
			return nil, false, fmt.Errorf("oauth: protected resource metadata at %s lists no authorization server", prm.URL)
		}
		if err := checkSecure(f.issuer, t.cfg.AllowInsecure); err != nil {
			return nil, false, err
		}
		if f.as, err = t.authServer(ctx, f.issuer); err != nil {
			return nil, false, err
		}
	case errors.Is(err, ErrNoResourceMetadata) && !t.cfg.NoLegacyFallback:
		// 2025-03-26: the authorization server is at the endpoint's origin.
		f.issuer = u.Scheme + "://" + u.Host
		f.resource = serverURL
		f.as, err = t.authServer(ctx, f.issuer)
		if errors.Is(err, ErrNoAuthServerMetadata) {
			f.as, err = legacyAuthServer(f.issuer), nil
		}
		if err != nil {
			return nil, false, err
		}
	default:
		return nil, false, err
	}
	for _, ep := range []string{f.as.AuthorizationEndpoint, f.as.TokenEndpoint, f.as.RegistrationEndpoint} {
		if ep == "" {
			continue
		}
		if err := checkSecure(ep, t.cfg.AllowInsecure); err != nil {
			return nil, false, err
		}
	}
	t.mu.Lock()
	t.bindings[endpointKey(u)] = binding{resource: f.resource, issuer: f.issuer, as: f.as}
	t.mu.Unlock()

	// A stored token for this resource and server that the server has
	// not refused yet serves as is; a refresh token renews one without
	// the user; unless more scopes are needed.
	if prev := t.cfg.Store.Token(f.resource, f.issuer); allowReuse && prev != nil && (scopes == nil || containsAll(prev.Requested, scopes)) {
		if prev.Valid() && (old == nil || old.AccessToken != prev.AccessToken) {
			return prev, true, nil
		}
		if prev.RefreshToken != "" {
			if tok, err := t.refresh(ctx, f.as, f.issuer, f.resource, prev); err == nil {
				return tok, true, nil
			}
		}
	}
	if scopes == nil {
		scopes = f.selectScopes(ch)
		if old != nil {
			scopes = union(old.Requested, scopes)
		}
	}
	// offline_access (a refresh token) is asked for only where the
	// authorization server lists it, and never alone.
	scopes = slices.DeleteFunc(scopes, func(s string) bool { return s == "offline_access" })
	if len(scopes) > 0 && !t.cfg.NoOfflineAccess && slices.Contains(f.as.ScopesSupported, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	f.scopes = scopes
	grant := t.cfg.Grant
	if grant == nil {
		grant = AuthorizationCode{}
	}
	tok, err := grant.Token(ctx, f)
	if err != nil {
		return nil, false, err
	}
	if tok.Requested == nil {
		tok.Requested = slices.Clone(scopes)
	}
	t.cfg.Store.SetToken(f.resource, f.issuer, tok)
	return tok, false, nil
}

// pickIssuer chooses among a resource's authorization servers: the one
// the pre-registered client belongs to, else the first.
func (t *Transport) pickIssuer(servers []string) string {
	if t.cfg.Issuer != "" && slices.Contains(servers, t.cfg.Issuer) {
		return t.cfg.Issuer
	}
	for _, s := range servers {
		if s != "" {
			return s
		}
	}
	return ""
}

// authServer returns the (cached) metadata of issuer.
func (t *Transport) authServer(ctx context.Context, issuer string) (*AuthServerMetadata, error) {
	t.mu.Lock()
	md := t.meta[issuer]
	t.mu.Unlock()
	if md != nil {
		return md, nil
	}
	md, err := DiscoverAuthServer(ctx, t.hc, issuer)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.meta[issuer] = md
	t.mu.Unlock()
	return md, nil
}

// containsAll reports whether have includes every one of want.
func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// union is a then the members of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// CloseIdleConnections closes the idle connections of the underlying
// transport, if it can (http.Client.CloseIdleConnections calls it).
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
