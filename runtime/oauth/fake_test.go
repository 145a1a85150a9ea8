package oauth

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeAS is an authorization server for tests, on 127.0.0.1.
type fakeAS struct {
	prefix         string   // the issuer's path ("/tenant1")
	metadataPath   string   // where the metadata is (default RFC 8414 with path insertion)
	issuer         string   // the metadata's issuer (default: the real one)
	iss            string   // iss in redirects: "" (correct), "omit", "wrong", "normalized"
	issUnsupported bool     // do not advertise authorization_response_iss_parameter_supported
	authMethods    []string // token_endpoint_auth_methods_supported (default [none])
	scopes         []string // scopes_supported
	cimd           bool
	noRegistration bool
	noPKCE         bool
	refresh        bool // issue refresh tokens
	expiresIn      int  // default 3600; <0: omit
	dpopNonce      string
	regMethod      string // token_endpoint_auth_method the registration returns (default: the one asked)
	clientPrefix   string // of client ids (default "client-")

	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []string // "METHOD path"
	auths []url.Values
	forms []url.Values
	hdrs  []http.Header // token request headers
	regs  []map[string]any
	codes map[string]url.Values // code → its authorization request
	toks  map[string][]string   // access token → scopes
	rts   map[string][]string   // refresh token → scopes
	n     int
}

func newAS(t *testing.T, as *fakeAS) *fakeAS {
	as.codes, as.toks, as.rts = map[string]url.Values{}, map[string][]string{}, map[string][]string{}
	if as.clientPrefix == "" {
		as.clientPrefix = "client-"
	}
	if as.authMethods == nil {
		as.authMethods = []string{"none"}
	}
	as.srv = httptest.NewServer(http.HandlerFunc(as.serve))
	t.Cleanup(as.srv.Close)
	if as.metadataPath == "" {
		as.metadataPath = "/.well-known/oauth-authorization-server" + as.prefix
	}
	return as
}

// URL is the issuer identifier.
func (as *fakeAS) URL() string { return as.srv.URL + as.prefix }

func (as *fakeAS) count(req string) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	n := 0
	for _, r := range as.reqs {
		if r == req {
			n++
		}
	}
	return n
}

func (as *fakeAS) requests() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.reqs)
}

func (as *fakeAS) scopesOf(tok string) ([]string, bool) {
	as.mu.Lock()
	defer as.mu.Unlock()
	s, ok := as.toks[tok]
	return s, ok
}

func (as *fakeAS) revoke(tok string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	delete(as.toks, tok)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (as *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.reqs = append(as.reqs, r.Method+" "+r.URL.Path)
	base := as.srv.URL + as.prefix
	issuer := as.issuer
	if issuer == "" {
		issuer = base
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == as.metadataPath:
		md := map[string]any{
			"issuer":                                issuer,
			"authorization_endpoint":                base + "/authorize",
			"token_endpoint":                        base + "/token",
			"response_types_supported":              []string{"code"},
			"token_endpoint_auth_methods_supported": as.authMethods,
		}
		if !as.noRegistration {
			md["registration_endpoint"] = base + "/register"
		}
		if !as.noPKCE {
			md["code_challenge_methods_supported"] = []string{"S256"}
		}
		if !as.issUnsupported {
			md["authorization_response_iss_parameter_supported"] = true
		}
		if as.scopes != nil {
			md["scopes_supported"] = as.scopes
		}
		if as.cimd {
			md["client_id_metadata_document_supported"] = true
		}
		if as.dpopNonce != "" {
			md["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		writeJSON(w, 200, md)
	case r.Method == http.MethodGet && r.URL.Path == as.prefix+"/authorize":
		q := r.URL.Query()
		as.auths = append(as.auths, q)
		as.n++
		code := fmt.Sprintf("code-%d", as.n)
		as.codes[code] = q
		cb, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", 400)
			return
		}
		v := cb.Query()
		v.Set("code", code)
		if s := q.Get("state"); s != "" {
			v.Set("state", s)
		}
		switch as.iss {
		case "":
			v.Set("iss", issuer)
		case "wrong":
			v.Set("iss", "https://evil.example.com")
		case "normalized":
			v.Set("iss", issuer+"/")
		}
		cb.RawQuery = v.Encode()
		http.Redirect(w, r, cb.String(), http.StatusFound)
	case r.Method == http.MethodPost && r.URL.Path == as.prefix+"/register":
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		as.regs = append(as.regs, body)
		as.n++
		method, _ := body["token_endpoint_auth_method"].(string)
		if as.regMethod != "" {
			method = as.regMethod
		}
		resp := map[string]any{"client_id": fmt.Sprintf("%s%d", as.clientPrefix, as.n), "token_endpoint_auth_method": method}
		if method != "none" {
			resp["client_secret"] = fmt.Sprintf("secret-%d", as.n)
		}
		writeJSON(w, 201, resp)
	case r.Method == http.MethodPost && r.URL.Path == as.prefix+"/token":
		r.ParseForm()
		as.forms = append(as.forms, r.PostForm)
		as.hdrs = append(as.hdrs, r.Header.Clone())
		if as.dpopNonce != "" {
			var claims map[string]any
			if p := strings.Split(r.Header.Get("DPoP"), "."); len(p) == 3 {
				b, _ := base64.RawURLEncoding.DecodeString(p[1])
				json.Unmarshal(b, &claims)
			}
			if claims["nonce"] != as.dpopNonce {
				w.Header().Set("DPoP-Nonce", as.dpopNonce)
				writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
				return
			}
		}
		var scopes []string
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			q, ok := as.codes[r.PostForm.Get("code")]
			delete(as.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge") {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "bad code or verifier"})
				return
			}
			scopes = strings.Fields(q.Get("scope"))
		case "refresh_token":
			s, ok := as.rts[r.PostForm.Get("refresh_token")]
			if !ok {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			scopes = s
		default:
			scopes = strings.Fields(r.PostForm.Get("scope"))
		}
		as.n++
		tok := fmt.Sprintf("tok-%d", as.n)
		as.toks[tok] = scopes
		resp := map[string]any{"access_token": tok, "token_type": "Bearer"}
		if as.dpopNonce != "" && r.Header.Get("DPoP") != "" {
			resp["token_type"] = "DPoP"
		}
		switch {
		case as.expiresIn == 0:
			resp["expires_in"] = 3600
		case as.expiresIn > 0:
			resp["expires_in"] = as.expiresIn
		}
		if as.refresh {
			rt := fmt.Sprintf("rt-%d", as.n)
			as.rts[rt] = scopes
			resp["refresh_token"] = rt
		}
		if len(scopes) > 0 {
			resp["scope"] = strings.Join(scopes, " ")
		}
		writeJSON(w, 200, resp)
	default:
		http.NotFound(w, r)
	}
}

// fakeRS is a protected MCP endpoint at /mcp for tests.
type fakeRS struct {
	prmPath     string   // default path-based; "-": no metadata
	noHeader    bool     // no resource_metadata in challenges
	resource    string   // the metadata's resource (default the endpoint URL)
	scopes      []string // scopes_supported
	challenge   string   // scope of the 401 challenge
	servers     func() []string
	as          *fakeAS
	check       func(rs *fakeRS, r *http.Request, token string) (int, string) // extra check after the token is valid
	plainUnauth bool                                                          // 401 with a Basic challenge

	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []string
	bodies []string
}

func newRS(t *testing.T, rs *fakeRS) *fakeRS {
	if rs.prmPath == "" {
		rs.prmPath = "/.well-known/oauth-protected-resource/mcp"
	}
	rs.srv = httptest.NewServer(http.HandlerFunc(rs.serve))
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *fakeRS) URL() string { return rs.srv.URL + "/mcp" }

func (rs *fakeRS) requests() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.reqs)
}

func (rs *fakeRS) serve(w http.ResponseWriter, r *http.Request) {
	rs.mu.Lock()
	rs.reqs = append(rs.reqs, r.Method+" "+r.URL.Path)
	rs.mu.Unlock()
	if r.Method == http.MethodGet && r.URL.Path == rs.prmPath {
		res := rs.resource
		if res == "" {
			res = rs.URL()
			if rs.prmPath == "/.well-known/oauth-protected-resource" {
				res = rs.srv.URL
			}
		}
		servers := []string{rs.as.URL()}
		if rs.servers != nil {
			servers = rs.servers()
		}
		md := map[string]any{"resource": res, "authorization_servers": servers}
		if rs.scopes != nil {
			md["scopes_supported"] = rs.scopes
		}
		writeJSON(w, 200, md)
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = nopCloser(string(body))
	r.GetBody = func() (io.ReadCloser, error) { return nopCloser(string(body)), nil }
	unauth := func(status int, params string) {
		if rs.plainUnauth {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		} else {
			h := "Bearer " + params
			if !rs.noHeader && rs.prmPath != "-" {
				if params != "" {
					h += ", "
				}
				h += fmt.Sprintf("resource_metadata=%q", rs.srv.URL+rs.prmPath)
			}
			w.Header().Set("WWW-Authenticate", strings.TrimSpace(h))
		}
		writeJSON(w, status, map[string]string{"error": "invalid_token"})
	}
	authz := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(authz, "Bearer ")
	if !ok {
		tok, ok = strings.CutPrefix(authz, "DPoP ")
	}
	if !ok || tok == "" {
		params := ""
		if rs.challenge != "" {
			params = fmt.Sprintf("scope=%q", rs.challenge)
		}
		unauth(401, params)
		return
	}
	if _, valid := rs.as.scopesOf(tok); !valid {
		unauth(401, `error="invalid_token"`)
		return
	}
	if rs.check != nil {
		if status, params := rs.check(rs, r, tok); status != 0 {
			unauth(status, params)
			return
		}
	}
	rs.mu.Lock()
	rs.bodies = append(rs.bodies, string(body))
	rs.mu.Unlock()
	writeJSON(w, 200, map[string]any{"ok": true, "echo": string(body)})
}

// post sends body to the endpoint with c and returns the status.
func post(t *testing.T, c *http.Client, u, body string) (int, error) {
	t.Helper()
	resp, err := c.Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct{ Echo string }
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode == 200 && out.Echo != body {
		t.Errorf("the server got body %q, want %q", out.Echo, body)
	}
	return resp.StatusCode, nil
}

func nopCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

// rsaTestKey is a crypto.Signer with only a public key.
type rsaTestKey struct {
	n *big.Int
	e int
}

func (k *rsaTestKey) Public() crypto.PublicKey { return &rsa.PublicKey{N: k.n, E: k.e} }
func (k *rsaTestKey) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("no private key")
}
