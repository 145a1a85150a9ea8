// Package rrproxy is a round-robin reverse proxy without stickiness, as a
// load balancer in front of several instances is: each request goes to
// the next backend in turn, and to the one after when a backend does not
// answer (it died). Streams (SSE) are passed through as they come.
package rrproxy

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Proxy is the proxy; its zero value is not usable: see New.
type Proxy struct {
	backends []string
	client   *http.Client
	log      *slog.Logger

	mu      sync.Mutex
	next    int
	served  map[string]int
	session string
}

// New returns a proxy to the backend URLs; log (may be nil) gets a line
// per request naming the backend that answered.
func New(backends []string, log *slog.Logger) *Proxy {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Proxy{backends: backends, client: &http.Client{}, log: log, served: map[string]int{}}
}

// Served returns how many requests each backend answered.
func (p *Proxy) Served() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.served))
	for k, v := range p.served {
		out[k] = v
	}
	return out
}

// LastSession is the last Mcp-Session-Id a backend answered with.
func (p *Proxy) LastSession() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.session
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	start := p.next
	p.next = (p.next + 1) % len(p.backends)
	p.mu.Unlock()
	for i := range p.backends {
		backend := p.backends[(start+i)%len(p.backends)]
		out, err := http.NewRequestWithContext(r.Context(), r.Method, backend, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out.Header = r.Header.Clone()
		forwardFor(out.Header, r.RemoteAddr)
		resp, err := p.client.Do(out)
		if err != nil {
			p.log.Warn("rrproxy: backend down, trying the next", "backend", backend, "err", err)
			continue
		}
		p.mu.Lock()
		p.served[backend]++
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			p.session = sid
		}
		p.mu.Unlock()
		p.log.Info("rrproxy", "method", r.Method, "backend", backend, "session", r.Header.Get("Mcp-Session-Id"), "status", resp.StatusCode)
		copyResponse(w, resp)
		return
	}
	http.Error(w, "no backend answers", http.StatusBadGateway)
}

// forwardFor appends the address of the client, remote, to the
// X-Forwarded-For of a request the proxy sends on, as reverse proxies do:
// a backend that trusts the proxy (streamhttp.Options.TrustedProxies)
// keys its per-client limits by it.
func forwardFor(hd http.Header, remote string) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	if prior := hd.Values("X-Forwarded-For"); len(prior) > 0 {
		host = strings.Join(prior, ", ") + ", " + host
	}
	hd.Set("X-Forwarded-For", host)
}

// copyResponse writes resp to w, flushing as it comes (SSE).
func copyResponse(w http.ResponseWriter, resp *http.Response) {
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
