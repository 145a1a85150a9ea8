package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseChallenge(t *testing.T) {
	tests := []struct {
		in   string
		want []Challenge
	}{
		{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://x/.well-known/oauth-protected-resource", "scope": "a b"}}}},
		{`Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="http://h/p", error_description="a, \"quoted\" one"`,
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "mcp:write", "resource_metadata": "http://h/p", "error_description": `a, "quoted" one`}}}},
		{`Basic realm="r", Bearer realm="api", error=invalid_token`,
			[]Challenge{{Scheme: "Basic", Params: map[string]string{"realm": "r"}}, {Scheme: "Bearer", Params: map[string]string{"realm": "api", "error": "invalid_token"}}}},
		{`Negotiate abc123==, DPoP algs="ES256"`,
			[]Challenge{{Scheme: "Negotiate", Params: map[string]string{}, Token68: "abc123=="}, {Scheme: "DPoP", Params: map[string]string{"algs": "ES256"}}}},
		{`Bearer`, []Challenge{{Scheme: "Bearer", Params: map[string]string{}}}},
		{`Bearer Scope = "x"`, []Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "x"}}}},
		{``, nil},
	}
	for _, tt := range tests {
		got := ParseChallenge(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseChallenge(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="r"`)
	h.Add("WWW-Authenticate", `Bearer scope="s"`)
	ch, _ := bearerChallenge(ParseChallenges(h))
	if ch.Scheme != "Bearer" || !slices.Equal(ch.Scopes(), []string{"s"}) {
		t.Errorf("bearerChallenge = %+v", ch)
	}
}

func TestWellKnownURLs(t *testing.T) {
	prm := []struct {
		in   string
		want []string
	}{
		{"https://example.com/public/mcp", []string{"https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com", []string{"https://example.com/.well-known/oauth-protected-resource"}},
		{"https://example.com/", []string{"https://example.com/.well-known/oauth-protected-resource"}},
	}
	for _, tt := range prm {
		if got, err := ResourceMetadataURLs(tt.in); err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ResourceMetadataURLs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	as := []struct {
		in   string
		want []string
	}{
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
		{"https://auth.example.com", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
	}
	for _, tt := range as {
		if got, err := AuthServerMetadataURLs(tt.in); err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("AuthServerMetadataURLs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := AuthServerMetadataURLs("https://a.example?x=1"); err == nil {
		t.Error("an issuer with a query was accepted")
	}
}

func TestResourceMatches(t *testing.T) {
	tests := []struct {
		resource, server string
		want             bool
	}{
		{"https://example.com/mcp", "https://example.com/mcp", true},
		{"https://example.com", "https://example.com/mcp", true},
		{"https://example.com/", "https://example.com/mcp", true},
		{"HTTPS://EXAMPLE.com:443/mcp", "https://example.com/mcp", true},
		{"https://example.com/mcp", "https://example.com/mcp2", false},
		{"https://example.com/mc", "https://example.com/mcp", false},
		{"https://example.com/other", "https://example.com/mcp", false},
		{"https://evil.example.com/mcp", "https://example.com/mcp", false},
		{"http://example.com/mcp", "https://example.com/mcp", false},
		{"https://example.com:8443/mcp", "https://example.com/mcp", false},
		{"https://example.com/mcp#frag", "https://example.com/mcp", false},
		{"example.com/mcp", "https://example.com/mcp", false},
	}
	for _, tt := range tests {
		if got := ResourceMatches(tt.resource, tt.server); got != tt.want {
			t.Errorf("ResourceMatches(%q, %q) = %v", tt.resource, tt.server, got)
		}
	}
}

// TestDiscovery covers where the resource metadata and the authorization
// server metadata are found (the metadata-* conformance scenarios).
func TestDiscovery(t *testing.T) {
	tests := []struct {
		name         string
		prmPath      string
		noHeader     bool
		prefix       string
		metadataPath string
		wantRS       []string // the requests the RS sees before the retried POST
		wantAS       string   // the metadata request that answered
	}{
		{name: "path-based PRM in header, RFC 8414", prmPath: "/.well-known/oauth-protected-resource/mcp",
			wantRS: []string{"POST /mcp", "GET /.well-known/oauth-protected-resource/mcp", "POST /mcp"},
			wantAS: "GET /.well-known/oauth-authorization-server"},
		{name: "path-based PRM not in header, OIDC", prmPath: "/.well-known/oauth-protected-resource/mcp", noHeader: true,
			metadataPath: "/.well-known/openid-configuration",
			wantRS:       []string{"POST /mcp", "GET /.well-known/oauth-protected-resource/mcp", "POST /mcp"},
			wantAS:       "GET /.well-known/openid-configuration"},
		{name: "root PRM not in header, RFC 8414 path insertion", prmPath: "/.well-known/oauth-protected-resource", noHeader: true,
			prefix: "/tenant1",
			wantRS: []string{"POST /mcp", "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource", "POST /mcp"},
			wantAS: "GET /.well-known/oauth-authorization-server/tenant1"},
		{name: "custom PRM in header, OIDC path appending", prmPath: "/custom/metadata/location.json",
			prefix: "/tenant1", metadataPath: "/tenant1/.well-known/openid-configuration",
			wantRS: []string{"POST /mcp", "GET /custom/metadata/location.json", "POST /mcp"},
			wantAS: "GET /tenant1/.well-known/openid-configuration"},
		{name: "OIDC path insertion", prmPath: "/.well-known/oauth-protected-resource/mcp",
			prefix: "/tenant1", metadataPath: "/.well-known/openid-configuration/tenant1",
			wantRS: []string{"POST /mcp", "GET /.well-known/oauth-protected-resource/mcp", "POST /mcp"},
			wantAS: "GET /.well-known/openid-configuration/tenant1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newAS(t, &fakeAS{prefix: tt.prefix, metadataPath: tt.metadataPath})
			rs := newRS(t, &fakeRS{as: as, prmPath: tt.prmPath, noHeader: tt.noHeader})
			c := (&Config{ClientName: "test"}).Client(nil)
			if status, err := post(t, c, rs.URL(), `{"n":1}`); err != nil || status != 200 {
				t.Fatalf("POST = %d, %v", status, err)
			}
			if got := rs.requests(); !slices.Equal(got, tt.wantRS) {
				t.Errorf("RS requests %q, want %q", got, tt.wantRS)
			}
			reqs := as.requests()
			i := slices.Index(reqs, tt.wantAS)
			if i < 0 {
				t.Fatalf("AS requests %q lack %q", reqs, tt.wantAS)
			}
			if want := []string{"POST " + tt.prefix + "/register", "GET " + tt.prefix + "/authorize", "POST " + tt.prefix + "/token"}; !slices.Equal(reqs[i+1:], want) {
				t.Errorf("AS requests after metadata %q, want %q", reqs[i+1:], want)
			}
			if slices.Contains(reqs, "GET /.well-known/oauth-authorization-server") && tt.prefix != "" {
				t.Error("the root metadata was requested for an issuer with a path")
			}
			// The resource indicator is the metadata's resource, verbatim.
			wantRes := rs.URL()
			if tt.prmPath == "/.well-known/oauth-protected-resource" {
				wantRes = rs.srv.URL
			}
			if got := as.auths[0].Get("resource"); got != wantRes {
				t.Errorf("authorization resource %q, want %q", got, wantRes)
			}
			if got := as.forms[0].Get("resource"); got != wantRes {
				t.Errorf("token resource %q, want %q", got, wantRes)
			}
			q := as.auths[0]
			if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" || q.Get("response_type") != "code" {
				t.Errorf("authorization request %v lacks PKCE or state", q)
			}
			if as.forms[0].Get("code_verifier") == "" {
				t.Error("no code_verifier")
			}
			reg := as.regs[0]
			if reg["application_type"] != "native" || reg["client_name"] != "test" || !slices.Contains(toStrings(reg["grant_types"]), "refresh_token") {
				t.Errorf("registration %v", reg)
			}
			// A second request reuses the token.
			if status, _ := post(t, c, rs.URL(), `{"n":2}`); status != 200 || len(as.forms) != 1 {
				t.Errorf("second request: %d, %d token requests", status, len(as.forms))
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			s, _ := x.(string)
			out = append(out, s)
		}
	}
	return out
}

func TestScopeSelection(t *testing.T) {
	tests := []struct {
		name      string
		challenge string
		prm       []string
		asScopes  []string
		cfg       []string
		want      string
		has       bool
	}{
		{name: "from WWW-Authenticate", challenge: "mcp:basic", prm: []string{"mcp:basic", "mcp:read"}, want: "mcp:basic", has: true},
		{name: "from scopes_supported", prm: []string{"mcp:basic", "mcp:read", "mcp:write"}, want: "mcp:basic mcp:read mcp:write", has: true},
		{name: "omitted", has: false},
		{name: "configured", challenge: "mcp:basic", cfg: []string{"x", "y"}, want: "x y", has: true},
		{name: "offline_access added", prm: []string{"mcp:basic"}, asScopes: []string{"mcp:basic", "offline_access"}, want: "mcp:basic offline_access", has: true},
		{name: "offline_access unsupported", prm: []string{"mcp:basic", "mcp:read"}, asScopes: []string{"mcp:basic", "mcp:read"}, want: "mcp:basic mcp:read", has: true},
		{name: "offline_access not alone", asScopes: []string{"offline_access"}, has: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newAS(t, &fakeAS{scopes: tt.asScopes})
			rs := newRS(t, &fakeRS{as: as, challenge: tt.challenge, scopes: tt.prm})
			c := (&Config{Scopes: tt.cfg}).Client(nil)
			if status, err := post(t, c, rs.URL(), `{}`); err != nil || status != 200 {
				t.Fatalf("POST = %d, %v", status, err)
			}
			q := as.auths[0]
			if q.Has("scope") != tt.has || q.Get("scope") != tt.want {
				t.Errorf("scope = %q (present %v), want %q (present %v)", q.Get("scope"), q.Has("scope"), tt.want, tt.has)
			}
		})
	}
}

func TestTokenEndpointAuth(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post", "none"} {
		t.Run(method, func(t *testing.T) {
			as := newAS(t, &fakeAS{authMethods: []string{method}})
			rs := newRS(t, &fakeRS{as: as})
			if status, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
				t.Fatalf("POST = %d, %v", status, err)
			}
			if got := as.regs[0]["token_endpoint_auth_method"]; got != method {
				t.Errorf("registered with %v", got)
			}
			form, hdr := as.forms[0], as.hdrs[0]
			user, pass, basic := (&http.Request{Header: hdr}).BasicAuth()
			switch method {
			case "client_secret_basic":
				if !basic || user != "client-1" || pass != "secret-1" || form.Has("client_secret") {
					t.Errorf("basic: %q %q %v, form %v", user, pass, basic, form)
				}
			case "client_secret_post":
				if basic || form.Get("client_id") != "client-1" || form.Get("client_secret") != "secret-1" {
					t.Errorf("post: form %v", form)
				}
			case "none":
				if basic || form.Get("client_id") != "client-1" || form.Has("client_secret") {
					t.Errorf("none: form %v", form)
				}
			}
		})
	}
}

func TestPreRegistration(t *testing.T) {
	as := newAS(t, &fakeAS{noRegistration: true, authMethods: []string{"client_secret_basic"}})
	rs := newRS(t, &fakeRS{as: as})
	cfg := &Config{ClientID: "pre id", ClientSecret: "s:cret", Issuer: as.URL()}
	if status, err := post(t, cfg.Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.regs) != 0 {
		t.Error("registered although pre-registered")
	}
	if as.auths[0].Get("client_id") != "pre id" {
		t.Errorf("client_id %q", as.auths[0].Get("client_id"))
	}
	// RFC 6749 §2.3.1: form-encoded before Basic.
	if got := as.hdrs[0].Get("Authorization"); got != "Basic "+base64.StdEncoding.EncodeToString([]byte("pre+id:s%3Acret")) {
		t.Errorf("Authorization %q", got)
	}

	// Credentials for another issuer are not used.
	as2 := newAS(t, &fakeAS{noRegistration: true})
	rs2 := newRS(t, &fakeRS{as: as2})
	_, err := post(t, cfg.Client(nil), rs2.URL(), `{}`)
	if !errors.Is(err, ErrNoClientID) {
		t.Errorf("err = %v, want ErrNoClientID", err)
	}
	if len(as2.auths) != 0 {
		t.Error("authorized with another server's credentials")
	}
}

func TestClientIDMetadataDocument(t *testing.T) {
	const doc = "https://client.example.com/metadata.json"
	for _, supported := range []bool{true, false} {
		as := newAS(t, &fakeAS{cimd: supported})
		rs := newRS(t, &fakeRS{as: as})
		if status, err := post(t, (&Config{ClientMetadataURL: doc}).Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		got := as.auths[0].Get("client_id")
		if supported && (got != doc || len(as.regs) != 0 || as.forms[0].Get("client_id") != doc) {
			t.Errorf("supported: client_id %q, %d registrations", got, len(as.regs))
		}
		if !supported && (got != "client-1" || len(as.regs) != 1) {
			t.Errorf("unsupported: client_id %q, %d registrations", got, len(as.regs))
		}
	}
}

func TestIssuerValidation(t *testing.T) {
	tests := []struct {
		name        string
		iss         string
		unsupported bool
		want        error // nil: success
	}{
		{name: "advertised and correct", iss: ""},
		{name: "not advertised, absent", iss: "omit", unsupported: true},
		{name: "advertised, absent", iss: "omit", want: ErrMissingIssuer},
		{name: "advertised, wrong", iss: "wrong", want: &IssuerMismatchError{}},
		{name: "not advertised, wrong", iss: "wrong", unsupported: true, want: &IssuerMismatchError{}},
		{name: "trailing slash", iss: "normalized", want: &IssuerMismatchError{}},
		{name: "not advertised, correct", iss: "", unsupported: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newAS(t, &fakeAS{iss: tt.iss, issUnsupported: tt.unsupported})
			rs := newRS(t, &fakeRS{as: as})
			status, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`)
			if tt.want == nil {
				if err != nil || status != 200 {
					t.Fatalf("POST = %d, %v", status, err)
				}
				return
			}
			var im *IssuerMismatchError
			if _, isMismatch := tt.want.(*IssuerMismatchError); isMismatch && !errors.As(err, &im) || !isMismatch && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %T %v", err, tt.want, tt.want)
			}
			if n := as.count("POST /token"); n != 0 {
				t.Errorf("%d token requests after a rejected authorization response", n)
			}
		})
	}
}

func TestMetadataIssuerMismatch(t *testing.T) {
	as := newAS(t, &fakeAS{issuer: "https://attacker.example.com"})
	rs := newRS(t, &fakeRS{as: as})
	_, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`)
	var im *IssuerMismatchError
	if !errors.As(err, &im) || im.Got != "https://attacker.example.com" || im.Expected != as.URL() {
		t.Fatalf("err = %v", err)
	}
	if got := as.requests(); !slices.Equal(got, []string{"GET /.well-known/oauth-authorization-server", "GET /.well-known/openid-configuration"}) {
		t.Errorf("AS requests %q: the poisoned metadata's endpoints were used", got)
	}
}

func TestResourceMismatch(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as, resource: "https://evil.example.com/mcp"})
	_, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`)
	var rm *ResourceMismatchError
	if !errors.As(err, &rm) || rm.Resource != "https://evil.example.com/mcp" {
		t.Fatalf("err = %v", err)
	}
	if len(as.requests()) != 0 {
		t.Errorf("went on to the authorization server: %q", as.requests())
	}
}

// scopeCheck makes the RS require scopes per request body.
func scopeCheck(need func(body string) []string) func(rs *fakeRS, r *http.Request, tok string) (int, string) {
	return func(rs *fakeRS, r *http.Request, tok string) (int, string) {
		b, _ := r.GetBody()
		var sb strings.Builder
		buf := make([]byte, 512)
		for {
			n, err := b.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		have, _ := rs.as.scopesOf(tok)
		req := need(sb.String())
		if !containsAll(have, req) {
			return 403, fmt.Sprintf(`error="insufficient_scope", scope=%q`, strings.Join(req, " "))
		}
		return 0, ""
	}
}

func TestStepUp(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as, challenge: "mcp:basic"})
	rs.check = scopeCheck(func(body string) []string {
		if strings.Contains(body, "write") {
			return []string{"mcp:write"}
		}
		return []string{"mcp:basic"}
	})
	c := (&Config{}).Client(nil)
	for _, body := range []string{`{"op":"read"}`, `{"op":"write"}`, `{"op":"read"}`} {
		if status, err := post(t, c, rs.URL(), body); err != nil || status != 200 {
			t.Fatalf("%s: %d, %v", body, status, err)
		}
	}
	if len(as.auths) != 2 {
		t.Fatalf("%d authorizations, want 2", len(as.auths))
	}
	if got := as.auths[0].Get("scope"); got != "mcp:basic" {
		t.Errorf("first scope %q", got)
	}
	if got := as.auths[1].Get("scope"); got != "mcp:basic mcp:write" {
		t.Errorf("step-up scope %q, want the union", got)
	}
}

func TestRetryLimit(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as, challenge: "mcp:admin"})
	rs.check = func(*fakeRS, *http.Request, string) (int, string) {
		return 403, `error="insufficient_scope", scope="mcp:admin"`
	}
	_, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`)
	var ise *InsufficientScopeError
	if !errors.As(err, &ise) || !errors.Is(err, ErrRetryLimit) {
		t.Fatalf("err = %v", err)
	}
	if n := len(as.auths); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}

	// A server that demands ever new scopes is cut off by MaxAuthorizations.
	as2 := newAS(t, &fakeAS{})
	rs2 := newRS(t, &fakeRS{as: as2})
	var mu sync.Mutex
	n := 0
	rs2.check = func(*fakeRS, *http.Request, string) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return 403, fmt.Sprintf(`error="insufficient_scope", scope="s%d"`, n)
	}
	_, err = post(t, (&Config{MaxAuthorizations: 3}).Client(nil), rs2.URL(), `{}`)
	if !errors.Is(err, ErrRetryLimit) {
		t.Fatalf("err = %v", err)
	}
	if n := len(as2.auths); n != 3 {
		t.Errorf("%d authorizations, want 3", n)
	}

	// A fresh token that is refused at once is not retried forever.
	as3 := newAS(t, &fakeAS{})
	rs3 := newRS(t, &fakeRS{as: as3})
	rs3.check = func(*fakeRS, *http.Request, string) (int, string) { return 401, `error="invalid_token"` }
	_, err = post(t, (&Config{}).Client(nil), rs3.URL(), `{}`)
	if !errors.Is(err, ErrTokenRejected) || len(as3.auths) != 1 {
		t.Fatalf("err = %v after %d authorizations", err, len(as3.auths))
	}
}

func TestRefresh(t *testing.T) {
	as := newAS(t, &fakeAS{refresh: true, scopes: []string{"mcp", "offline_access"}})
	rs := newRS(t, &fakeRS{as: as, scopes: []string{"mcp"}})
	store := NewMemoryStore()
	tr := (&Config{Store: store}).NewTransport(nil)
	c := &http.Client{Transport: tr}
	if status, err := post(t, c, rs.URL(), "1"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if got := as.auths[0].Get("scope"); got != "mcp offline_access" {
		t.Errorf("scope %q", got)
	}
	// Let the token expire: the next request refreshes it first.
	tok := store.Token(rs.URL(), as.URL())
	if tok == nil || tok.RefreshToken != "rt-3" {
		t.Fatalf("stored token %+v", tok)
	}
	tok.Expiry = time.Now().Add(-time.Minute)
	store.SetToken(rs.URL(), as.URL(), tok)
	if status, err := post(t, c, rs.URL(), "2"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.auths) != 1 || len(as.forms) != 2 {
		t.Fatalf("%d authorizations, %d token requests", len(as.auths), len(as.forms))
	}
	f := as.forms[1]
	if f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != "rt-3" || f.Get("resource") != rs.URL() || f.Get("client_id") != "client-1" {
		t.Errorf("refresh request %v", f)
	}
	if tok := tr.Token(rs.URL()); tok == nil || tok.AccessToken != "tok-4" || tok.RefreshToken != "rt-4" {
		t.Errorf("token %+v", tok)
	}

	// A revoked token: the 401 is answered with the refresh token.
	as.revoke("tok-4")
	if status, err := post(t, c, rs.URL(), "3"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.auths) != 1 || as.forms[len(as.forms)-1].Get("grant_type") != "refresh_token" {
		t.Errorf("%d authorizations; last grant %q", len(as.auths), as.forms[len(as.forms)-1].Get("grant_type"))
	}

	// A refreshed token that is refused too: authorize afresh.
	as.mu.Lock()
	as.rts = map[string][]string{"rt-5": nil} // refreshes, but ...
	as.mu.Unlock()
	as.revoke("tok-5")
	rs.check = func(_ *fakeRS, _ *http.Request, tok string) (int, string) {
		if tok == "tok-6" { // ... the refreshed token is refused
			return 401, `error="invalid_token"`
		}
		return 0, ""
	}
	if status, err := post(t, c, rs.URL(), "4"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.auths) != 2 {
		t.Errorf("%d authorizations, want a new one", len(as.auths))
	}
}

func TestAuthorizationServerMigration(t *testing.T) {
	as1 := newAS(t, &fakeAS{})
	as2 := newAS(t, &fakeAS{clientPrefix: "as2-client-"})
	var mu sync.Mutex
	current := as1
	rs := newRS(t, &fakeRS{as: as1})
	rs.servers = func() []string { mu.Lock(); defer mu.Unlock(); return []string{current.URL()} }
	rs.check = func(_ *fakeRS, _ *http.Request, tok string) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := current.scopesOf(tok); !ok {
			return 401, `error="invalid_token"`
		}
		return 0, ""
	}
	c := (&Config{}).Client(nil)
	if status, err := post(t, c, rs.URL(), "1"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	// The resource moves to as2: its metadata names as2, and it takes
	// only as2's tokens.
	mu.Lock()
	current = as2
	rs.as = as2
	mu.Unlock()
	if status, err := post(t, c, rs.URL(), "2"); err != nil || status != 200 {
		t.Fatalf("POST after migration = %d, %v", status, err)
	}
	if len(as2.regs) != 1 {
		t.Errorf("%d registrations at the new server", len(as2.regs))
	}
	as1Client := as1.auths[0].Get("client_id")
	if got := as2.auths[0].Get("client_id"); got == as1Client && got != "" {
		t.Errorf("reused client %q at the new server", got)
	}
	for _, f := range as2.forms {
		if f.Get("client_id") == as1Client {
			t.Error("the old client_id reached the new token endpoint")
		}
	}
}

func TestLegacyFallback(t *testing.T) {
	t.Run("metadata at origin", func(t *testing.T) {
		as := newAS(t, &fakeAS{prefix: "/oauth", metadataPath: "/.well-known/oauth-authorization-server"})
		// The RS and AS share an origin: the AS's handler serves both.
		rs := &fakeRS{as: as, prmPath: "-"}
		mux := http.NewServeMux()
		mux.HandleFunc("/mcp", rs.serve)
		mux.HandleFunc("/", as.serve)
		as.srv.Config.Handler = mux
		rs.srv = as.srv
		as.issuer = as.srv.URL
		if status, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		if as.count("POST /oauth/token") != 1 || as.count("POST /oauth/register") != 1 {
			t.Errorf("requests %q", as.requests())
		}
	})
	t.Run("default endpoints", func(t *testing.T) {
		as := newAS(t, &fakeAS{metadataPath: "/none", iss: "omit"})
		rs := &fakeRS{as: as, prmPath: "-"}
		mux := http.NewServeMux()
		mux.HandleFunc("/mcp", rs.serve)
		mux.HandleFunc("/", as.serve)
		as.srv.Config.Handler = mux
		rs.srv = as.srv
		if status, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		for _, r := range []string{"POST /register", "GET /authorize", "POST /token"} {
			if as.count(r) != 1 {
				t.Errorf("no %s in %q", r, as.requests())
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		as := newAS(t, &fakeAS{})
		rs := newRS(t, &fakeRS{as: as, prmPath: "-"})
		_, err := post(t, (&Config{NoLegacyFallback: true}).Client(nil), rs.URL(), `{}`)
		if !errors.Is(err, ErrNoResourceMetadata) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestRefusals(t *testing.T) {
	t.Run("no PKCE", func(t *testing.T) {
		as := newAS(t, &fakeAS{noPKCE: true})
		rs := newRS(t, &fakeRS{as: as})
		if _, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`); !errors.Is(err, ErrPKCEUnsupported) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("state", func(t *testing.T) {
		as := newAS(t, &fakeAS{})
		rs := newRS(t, &fakeRS{as: as})
		cfg := &Config{Authorize: func(ctx context.Context, authURL string) (*url.URL, error) {
			cb, err := Headless(nil)(ctx, authURL)
			if err != nil {
				return nil, err
			}
			q := cb.Query()
			q.Set("state", "forged")
			cb.RawQuery = q.Encode()
			return cb, nil
		}}
		if _, err := post(t, cfg.Client(nil), rs.URL(), `{}`); !errors.Is(err, ErrStateMismatch) {
			t.Errorf("err = %v", err)
		}
		if as.count("POST /token") != 0 {
			t.Error("the code was redeemed")
		}
	})
	t.Run("access denied", func(t *testing.T) {
		as := newAS(t, &fakeAS{})
		rs := newRS(t, &fakeRS{as: as})
		cfg := &Config{Authorize: func(_ context.Context, authURL string) (*url.URL, error) {
			u, _ := url.Parse(authURL)
			return url.Parse("http://127.0.0.1/callback?error=access_denied&error_description=no&iss=" + url.QueryEscape(as.URL()) + "&state=" + u.Query().Get("state"))
		}}
		_, err := post(t, cfg.Client(nil), rs.URL(), `{}`)
		var oe *Error
		if !errors.As(err, &oe) || oe.Code != "access_denied" || oe.Endpoint != "authorization" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("insecure authorization server", func(t *testing.T) {
		as := newAS(t, &fakeAS{})
		rs := newRS(t, &fakeRS{as: as, servers: func() []string { return []string{"http://auth.example.com"} }})
		if _, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`); !errors.Is(err, ErrInsecureEndpoint) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("token error", func(t *testing.T) {
		as := newAS(t, &fakeAS{})
		rs := newRS(t, &fakeRS{as: as})
		cfg := &Config{Authorize: func(ctx context.Context, authURL string) (*url.URL, error) {
			cb, err := Headless(nil)(ctx, authURL)
			if err != nil {
				return nil, err
			}
			q := cb.Query()
			q.Set("code", "bogus")
			cb.RawQuery = q.Encode()
			return cb, nil
		}}
		_, err := post(t, cfg.Client(nil), rs.URL(), `{}`)
		var oe *Error
		if !errors.As(err, &oe) || oe.Code != "invalid_grant" || oe.Status != 400 || oe.Endpoint != "token" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("other scheme", func(t *testing.T) {
		as := newAS(t, &fakeAS{})
		rs := newRS(t, &fakeRS{as: as, plainUnauth: true})
		status, err := post(t, (&Config{}).Client(nil), rs.URL(), `{}`)
		if err != nil || status != 401 || len(as.requests()) != 0 {
			t.Errorf("POST = %d, %v; AS requests %q", status, err, as.requests())
		}
	})
}

func TestConcurrentRequests(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as})
	c := (&Config{}).Client(nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if status, err := post(t, c, rs.URL(), fmt.Sprint(i)); err != nil || status != 200 {
				t.Errorf("POST = %d, %v", status, err)
			}
		})
	}
	wg.Wait()
	if n := len(as.auths); n != 1 {
		t.Errorf("%d authorizations for concurrent requests, want 1", n)
	}
}

func TestBodyWithoutGetBody(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as})
	req, _ := http.NewRequest(http.MethodPost, rs.URL(), strings.NewReader("payload"))
	req.GetBody = nil
	req.Body = nopCloser("payload")
	resp, err := (&Config{}).Client(nil).Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	if got := rs.bodies; !slices.Equal(got, []string{"payload"}) {
		t.Errorf("bodies %q", got)
	}
}

func TestClientCredentials(t *testing.T) {
	t.Run("secret", func(t *testing.T) {
		as := newAS(t, &fakeAS{authMethods: []string{"client_secret_basic"}})
		rs := newRS(t, &fakeRS{as: as, scopes: []string{"a"}})
		cfg := &Config{ClientID: "cc", ClientSecret: "sec", Grant: ClientCredentials{}}
		if status, err := post(t, cfg.Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		f := as.forms[0]
		if u, p, _ := (&http.Request{Header: as.hdrs[0]}).BasicAuth(); u != "cc" || p != "sec" || f.Get("grant_type") != "client_credentials" || f.Get("scope") != "a" || f.Get("resource") != rs.URL() {
			t.Errorf("form %v, basic %q:%q", f, u, p)
		}
		if len(as.auths) != 0 {
			t.Error("a client credentials client visited the authorization endpoint")
		}
	})
	t.Run("private_key_jwt", func(t *testing.T) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		der, _ := x509.MarshalPKCS8PrivateKey(key)
		parsed, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		if err != nil {
			t.Fatal(err)
		}
		as := newAS(t, &fakeAS{authMethods: []string{"private_key_jwt"}})
		rs := newRS(t, &fakeRS{as: as})
		cfg := &Config{ClientID: "cc", PrivateKey: parsed, Grant: ClientCredentials{}}
		if status, err := post(t, cfg.Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		f := as.forms[0]
		if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			t.Errorf("form %v", f)
		}
		header, claims := verifyJWT(t, f.Get("client_assertion"), &key.PublicKey)
		if header["alg"] != "ES256" || claims["iss"] != "cc" || claims["sub"] != "cc" || claims["aud"] != as.URL() || claims["jti"] == nil {
			t.Errorf("assertion %v %v", header, claims)
		}
	})
}

// verifyJWT checks an ES256 JWS and returns its header and claims.
func verifyJWT(t *testing.T, jws string, pub *ecdsa.PublicKey) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %q", jws)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("bad signature")
	}
	var h, c map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(hb, &h)
	json.Unmarshal(cb, &c)
	return h, c
}

func TestJWTBearerAndEnterprise(t *testing.T) {
	t.Run("jwt bearer", func(t *testing.T) {
		as := newAS(t, &fakeAS{noRegistration: true})
		rs := newRS(t, &fakeRS{as: as})
		var aud string
		cfg := &Config{ClientID: "wl", Grant: JWTBearer{Assertion: func(_ context.Context, a string) (string, error) { aud = a; return "the.jwt.x", nil }}}
		if status, err := post(t, cfg.Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		f := as.forms[0]
		if aud != as.URL() || f.Get("grant_type") != GrantJWTBearer || f.Get("assertion") != "the.jwt.x" || f.Get("client_id") != "wl" {
			t.Errorf("aud %q form %v", aud, f)
		}
	})
	t.Run("enterprise managed", func(t *testing.T) {
		idp := newAS(t, &fakeAS{})
		// The IdP answers token exchange with an ID-JAG.
		var got url.Values
		idp.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			got = r.PostForm
			writeJSON(w, 200, map[string]string{"access_token": "id-jag", "issued_token_type": TokenTypeIDJAG, "token_type": "N_A"})
		})
		as := newAS(t, &fakeAS{authMethods: []string{"client_secret_basic"}, noRegistration: true})
		rs := newRS(t, &fakeRS{as: as})
		cfg := &Config{ClientID: "c", ClientSecret: "s", Grant: EnterpriseManaged{
			IDPTokenEndpoint: idp.srv.URL + "/token", IDPClientID: "idp-c",
			IDToken: func(context.Context) (string, error) { return "id-token", nil },
		}}
		if status, err := post(t, cfg.Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
		want := url.Values{"grant_type": {GrantTokenExchange}, "requested_token_type": {TokenTypeIDJAG}, "audience": {as.URL()},
			"resource": {rs.URL()}, "subject_token": {"id-token"}, "subject_token_type": {TokenTypeIDToken}, "client_id": {"idp-c"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("token exchange %v, want %v", got, want)
		}
		f := as.forms[0]
		if u, _, _ := (&http.Request{Header: as.hdrs[0]}).BasicAuth(); u != "c" || f.Get("grant_type") != GrantJWTBearer || f.Get("assertion") != "id-jag" {
			t.Errorf("jwt bearer %v (basic %q)", f, u)
		}
	})
}

func TestDPoP(t *testing.T) {
	key, _ := GenerateDPoPKey()
	as := newAS(t, &fakeAS{dpopNonce: "as-nonce"})
	rs := newRS(t, &fakeRS{as: as})
	var mu sync.Mutex
	var jtis []string
	rs.check = func(_ *fakeRS, r *http.Request, tok string) (int, string) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "DPoP ") {
			return 401, `error="invalid_token"`
		}
		h, c := verifyJWT(t, r.Header.Get("DPoP"), &key.PublicKey)
		sum := sha256.Sum256([]byte(tok))
		if h["typ"] != "dpop+jwt" || c["htm"] != r.Method || c["htu"] != rs.URL() || c["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
			t.Errorf("proof %v %v", h, c)
		}
		if jwk, _ := h["jwk"].(map[string]any); jwk["d"] != nil || jwk["kty"] != "EC" {
			t.Errorf("jwk %v", jwk)
		}
		mu.Lock()
		defer mu.Unlock()
		if slices.Contains(jtis, c["jti"].(string)) {
			t.Error("proof replayed")
		}
		jtis = append(jtis, c["jti"].(string))
		return 0, ""
	}
	c := (&Config{DPoP: key}).Client(nil)
	for i := range 2 {
		if status, err := post(t, c, rs.URL(), fmt.Sprint(i)); err != nil || status != 200 {
			t.Fatalf("POST = %d, %v", status, err)
		}
	}
	// The first token request was refused for want of the nonce.
	if len(as.forms) != 2 || as.hdrs[0].Get("DPoP") == "" {
		t.Fatalf("%d token requests", len(as.forms))
	}
	_, claims := verifyJWT(t, as.hdrs[1].Get("DPoP"), &key.PublicKey)
	if claims["nonce"] != "as-nonce" || claims["htu"] != as.URL()+"/token" || claims["htm"] != "POST" {
		t.Errorf("token request proof %v", claims)
	}
	if len(jtis) != 2 {
		t.Errorf("%d proofs at the resource server", len(jtis))
	}
}

func TestJWKThumbprint(t *testing.T) {
	// RFC 7638 §3.1 example (RSA) computes the same thumbprint.
	n, _ := base64.RawURLEncoding.DecodeString("0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw")
	key := &rsaTestKey{n: new(big.Int).SetBytes(n), e: 65537}
	_, jkt, err := publicJWK(key)
	if err != nil || jkt != "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs" {
		t.Errorf("thumbprint %q, %v", jkt, err)
	}
}

func TestStoredToken(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as})
	store := NewMemoryStore()
	if status, err := post(t, (&Config{Store: store}).Client(nil), rs.URL(), "1"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	// A new client with the same store (a restarted program) learns where
	// the token is from the 401, and uses it without authorizing again.
	if status, err := post(t, (&Config{Store: store}).Client(nil), rs.URL(), "2"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.auths) != 1 || len(as.regs) != 1 {
		t.Errorf("%d authorizations, %d registrations; want the stored ones reused", len(as.auths), len(as.regs))
	}
	// A stored token the server no longer takes: authorize afresh.
	as.revoke("tok-3")
	if status, err := post(t, (&Config{Store: store}).Client(nil), rs.URL(), "3"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if len(as.auths) != 2 || len(as.regs) != 1 {
		t.Errorf("%d authorizations, %d registrations", len(as.auths), len(as.regs))
	}
}

func TestOfflineAccessNotCarriedOver(t *testing.T) {
	// The first server offers offline_access, the second does not: a
	// re-authorization with the second must not ask for it.
	as1 := newAS(t, &fakeAS{scopes: []string{"mcp", "offline_access"}})
	as2 := newAS(t, &fakeAS{scopes: []string{"mcp"}, clientPrefix: "as2-"})
	var mu sync.Mutex
	current := as1
	rs := newRS(t, &fakeRS{as: as1, challenge: "mcp"})
	rs.servers = func() []string { mu.Lock(); defer mu.Unlock(); return []string{current.URL()} }
	c := (&Config{}).Client(nil)
	if status, err := post(t, c, rs.URL(), "1"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	mu.Lock()
	current, rs.as = as2, as2
	mu.Unlock()
	if status, err := post(t, c, rs.URL(), "2"); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if a, b := as1.auths[0].Get("scope"), as2.auths[0].Get("scope"); a != "mcp offline_access" || b != "mcp" {
		t.Errorf("scopes %q then %q", a, b)
	}
}

func TestLoopback(t *testing.T) {
	lb, err := NewLoopback("callback")
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	if u, _ := url.Parse(lb.RedirectURL()); u.Hostname() != "127.0.0.1" || u.Path != "/callback" {
		t.Fatalf("RedirectURL %q", lb.RedirectURL())
	}
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as})
	browser := func(authURL string) error {
		// The browser follows the authorization server's redirect to the
		// loopback endpoint.
		go func() {
			resp, err := http.Get(authURL)
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	cfg := &Config{RedirectURL: lb.RedirectURL(), Authorize: lb.Authorize(browser)}
	if status, err := post(t, cfg.Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	if got := as.auths[0].Get("redirect_uri"); got != lb.RedirectURL() {
		t.Errorf("redirect_uri %q", got)
	}
	// A callback nobody waits for is refused.
	resp, err := http.Get(lb.RedirectURL() + "?code=x")
	if err != nil || resp.StatusCode != 400 {
		t.Errorf("stray callback: %v %v", resp, err)
	}
	resp.Body.Close()
	// Cancellation ends the wait.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lb.Authorize(func(string) error { return nil })(ctx, "http://x"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// staticGrant is a Grant written against the exported Flow API.
type staticGrant struct{ seen *Flow }

func (g *staticGrant) Token(ctx context.Context, f *Flow) (*Token, error) {
	g.seen = f
	return f.TokenRequest(ctx, nil, url.Values{"grant_type": {"urn:example:static"}, "resource": {f.Resource()}})
}

func TestCustomGrant(t *testing.T) {
	as := newAS(t, &fakeAS{})
	rs := newRS(t, &fakeRS{as: as, scopes: []string{"s"}})
	g := &staticGrant{}
	if status, err := post(t, (&Config{Grant: g}).Client(nil), rs.URL(), `{}`); err != nil || status != 200 {
		t.Fatalf("POST = %d, %v", status, err)
	}
	f := g.seen
	if f.ServerURL() != rs.URL() || f.Resource() != rs.URL() || f.Issuer() != as.URL() || f.AuthServer().TokenEndpoint != as.URL()+"/token" ||
		f.ResourceMetadata() == nil || !slices.Equal(f.Scopes(), []string{"s"}) {
		t.Errorf("flow %+v", f)
	}
	if got := as.forms[0].Get("grant_type"); got != "urn:example:static" {
		t.Errorf("grant_type %q", got)
	}
}
