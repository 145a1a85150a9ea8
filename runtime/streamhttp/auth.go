package streamhttp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// AuthError is what Options.Auth returns to refuse a request: 401 (or
// Status, e.g. 403 for insufficient_scope) with a WWW-Authenticate Bearer
// challenge (RFC 6750) that points to the protected resource metadata
// (RFC 9728) when Options.ResourceMetadata is set.
type AuthError struct {
	// Status is the HTTP status (default 401).
	Status int
	// Code is the RFC 6750 error code: "invalid_request", "invalid_token",
	// "insufficient_scope", or "" (no token was presented).
	Code string
	// Description is the error_description.
	Description string
	// Scope lists the scopes the request needs (space separated).
	Scope string
}

// Error implements error.
func (e *AuthError) Error() string {
	msg := "unauthorized"
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata
// of the MCP endpoint (RFC 9728), served at
// /.well-known/oauth-protected-resource plus the endpoint's path. When its
// Resource is empty it is derived from the request.
type ProtectedResourceMetadata = oauth.ProtectedResourceMetadata

const wellKnownPRM = "/.well-known/oauth-protected-resource"

// resourceURL is the resource identifier of the endpoint at path: the
// configured one, else one derived from r's Host when the allow-list
// names it (a vetted value); "" when there is none to give.
func (h *Handler) resourceURL(r *http.Request, path string) string {
	if m := h.o.ResourceMetadata; m != nil && m.Resource != "" {
		return m.Resource
	}
	if !h.hostNamed(r.Host) {
		return ""
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}

// metadataURL is where the metadata of resource is served (RFC 9728 §3:
// the well-known segment goes between the host and the path).
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return resource
	}
	path := strings.TrimSuffix(u.Path, "/")
	return u.Scheme + "://" + u.Host + wellKnownPRM + path
}

// ResourceMetadataPath is the path the protected resource metadata is
// served at for an endpoint mounted at endpointPath ("/mcp" gives
// "/.well-known/oauth-protected-resource/mcp"); route it to the Handler
// too.
func ResourceMetadataPath(endpointPath string) string {
	return wellKnownPRM + strings.TrimSuffix(endpointPath, "/")
}

// serveMetadata answers a GET of the metadata document.
func (h *Handler) serveMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	md := *h.o.ResourceMetadata
	if md.Resource == "" {
		md.Resource = h.resourceURL(r, strings.TrimPrefix(r.URL.Path, wellKnownPRM))
		if md.Resource == "" {
			http.Error(w, "the protected resource metadata has no resource identifier: set ResourceMetadata.Resource", http.StatusNotFound)
			return
		}
	}
	b, err := json.Marshal(md)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	// Readable cross-origin by the origins the endpoint accepts.
	switch origin := r.Header.Get("Origin"); {
	case slices.Contains(h.o.AllowedOrigins, "*"):
		hd.Set("Access-Control-Allow-Origin", "*")
	case origin != "":
		hd.Set("Access-Control-Allow-Origin", origin)
		hd.Add("Vary", "Origin")
	}
	hd.Set("Cache-Control", "max-age=300")
	if h.o.ResourceMetadata.Resource == "" {
		// Derived from Host: a cache must not hand it to another Host.
		hd.Add("Vary", "Host")
	}
	_, _ = w.Write(b)
}

// challenge writes the refusal of a request Options.Auth did not accept.
func (h *Handler) challenge(w http.ResponseWriter, r *http.Request, err error) {
	ae, _ := err.(*AuthError)
	if ae == nil {
		ae = &AuthError{Code: "invalid_token"}
	}
	status := ae.Status
	if status == 0 {
		status = http.StatusUnauthorized
	}
	var params []string
	if h.o.ResourceMetadata != nil {
		if res := h.resourceURL(r, r.URL.Path); res != "" {
			params = append(params, `resource_metadata="`+quoteParam(metadataURL(res))+`"`)
		}
	}
	if ae.Code != "" {
		params = append(params, `error="`+quoteParam(ae.Code)+`"`)
	}
	if ae.Description != "" {
		params = append(params, `error_description="`+quoteParam(ae.Description)+`"`)
	}
	if ae.Scope != "" {
		params = append(params, `scope="`+quoteParam(ae.Scope)+`"`)
	}
	v := "Bearer"
	if len(params) > 0 {
		v += " " + strings.Join(params, ", ")
	}
	w.Header().Set("WWW-Authenticate", v)
	msg := "unauthorized"
	if status == http.StatusForbidden {
		msg = "forbidden"
	}
	h.writeError(w, r, status, jsonrpc.ID{}, false, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg + ": " + ae.Error()})
}

// quoteParam makes s safe inside a quoted auth-param.
func quoteParam(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "", "\n", "").Replace(s)
}
