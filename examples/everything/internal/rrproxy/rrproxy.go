// Package rrproxy is a round-robin reverse proxy without stickiness, as a
// load balancer in front of several instances is: each request goes to
// the next backend in turn, and to the one after when a backend cannot be
// reached (it is down). A request that reached a backend is never sent to
// another: the backend may have acted on it before it failed, and
// running it twice could double its effects; the client gets 502 and
// decides (a request sent again with the same session and id runs at most
// once: see streamhttp.RequestLedger). Streams (SSE) are passed through as
// they come.
//
// Every request goes to its backend on a connection of its own, so that
// "reached" means a live process took the request: a connection kept from
// an earlier request to a backend that has died since may still look open,
// and a request written on it fails after the write although no backend
// ever read it — the client would get 502 for a request that could have
// gone to the next backend.
package rrproxy

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
)

// Proxy is the proxy; its zero value is not usable: see New.
type Proxy struct {
	backends []string
	client   *http.Client
	log      *slog.Logger

	mu      sync.Mutex
	next    int
	sent    map[string]int
	served  map[string]int
	session string
}

// New returns a proxy to the backend URLs; log (may be nil) gets a line
// per request naming the backend that answered.
func New(backends []string, log *slog.Logger) *Proxy {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return &Proxy{backends: backends, client: client, log: log, sent: map[string]int{}, served: map[string]int{}}
}

// Sent returns how many requests were sent to each backend, answered or
// not.
func (p *Proxy) Sent() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.sent)
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
		// Whether the whole request was written: until then the backend
		// cannot have acted on it (a partial body is not served).
		var wrote atomic.Bool
		out = out.WithContext(httptrace.WithClientTrace(out.Context(), &httptrace.ClientTrace{
			WroteRequest: func(info httptrace.WroteRequestInfo) { wrote.Store(info.Err == nil) },
		}))
		p.mu.Lock()
		p.sent[backend]++
		p.mu.Unlock()
		resp, err := p.client.Do(out)
		if err != nil {
			if !wrote.Load() || unreached(err) {
				p.log.Warn("rrproxy: backend down, trying the next", "backend", backend, "err", err)
				continue
			}
			p.log.Warn("rrproxy: backend failed after the request reached it; not sent again", "backend", backend, "err", err)
			http.Error(w, "the backend failed while serving the request: "+err.Error(), http.StatusBadGateway)
			return
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

// unreached reports an error of a request that never reached the
// backend: its connection could not be made (a write that was not
// known to fail may still have reached it).
func unreached(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// forwardFor writes the address of the client, remote, into the
// X-Forwarded-For and Forwarded headers of a request the proxy sends on,
// replacing whatever the client sent in them: the proxy faces the
// clients (it is the first hop a backend trusts), so what came before it
// is only the client's claim, and a backend that trusts the proxy
// (streamhttp.Options.TrustedProxies) keys its per-client limits by what
// the proxy vouches for. A proxy behind another trusted one appends
// instead (see docs/security.md).
func forwardFor(hd http.Header, remote string) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	hd.Set("X-Forwarded-For", host)
	node := host
	if strings.Contains(host, ":") {
		node = `"[` + host + `]"` // RFC 7239: an IPv6 node is quoted and bracketed
	}
	hd.Set("Forwarded", "for="+node)
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
