package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
)

// Loopback is the redirect endpoint of a native application (RFC 8252
// §7.3): an HTTP server on 127.0.0.1 that takes the authorization
// response the user's browser brings back. Use its RedirectURL and
// Authorize in a Config:
//
//	lb, err := oauth.NewLoopback("/callback")
//	...
//	defer lb.Close()
//	cfg := &oauth.Config{RedirectURL: lb.RedirectURL(), Authorize: lb.Authorize(openBrowser)}
type Loopback struct {
	ln   net.Listener
	srv  *http.Server
	path string

	mu      sync.Mutex
	waiting chan *url.URL // the callback of the authorization under way
}

// NewLoopback listens on 127.0.0.1 (a free port) for redirects to path.
func NewLoopback(path string) (*Loopback, error) {
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback redirect endpoint: %w", err)
	}
	l := &Loopback{ln: ln, path: path}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serve)}
	go l.srv.Serve(ln)
	return l, nil
}

// RedirectURL is the redirect_uri to register: http://127.0.0.1:<port><path>.
func (l *Loopback) RedirectURL() string { return "http://" + l.ln.Addr().String() + l.path }

// Close stops the server.
func (l *Loopback) Close() error { return l.srv.Close() }

func (l *Loopback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != l.path || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	cb := *r.URL
	cb.Scheme, cb.Host = "http", l.ln.Addr().String()
	l.mu.Lock()
	ch := l.waiting
	l.waiting = nil
	l.mu.Unlock()
	if ch == nil {
		http.Error(w, "No authorization is under way.", http.StatusBadRequest)
		return
	}
	ch <- &cb
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><title>Authorized</title><p>You can close this window and return to the application.</p>")
}

// Authorize returns a Config.Authorize function: it has open take the
// user's browser to the authorization URL, then waits for the redirect.
func (l *Loopback) Authorize(open func(authURL string) error) func(ctx context.Context, authURL string) (*url.URL, error) {
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		if open == nil {
			return nil, errors.New("oauth: Loopback.Authorize needs a function to open the browser")
		}
		ch := make(chan *url.URL, 1)
		l.mu.Lock()
		l.waiting = ch
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			if l.waiting == ch {
				l.waiting = nil
			}
			l.mu.Unlock()
		}()
		if err := open(authURL); err != nil {
			return nil, fmt.Errorf("oauth: opening the browser: %w", err)
		}
		select {
		case cb := <-ch:
			return cb, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
