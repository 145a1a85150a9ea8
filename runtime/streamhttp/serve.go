package streamhttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// The timeouts of the http.Server that ListenAndServe runs. Handler lifts
// the read and write deadlines of a request once its body is read, so long
// calls and SSE streams are not cut short; each SSE write then has
// Options.StallTimeout.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 60 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	// flushGrace is how long the http.Server gets, after the Handlers have
	// drained, to finish writing their last answers.
	flushGrace = 2 * time.Second
)

// ListenAndServe serves h on addr until ctx is done. An empty addr means
// "127.0.0.1:0": loopback only, on a port the system picks (logged by the
// Handler's logger when h is a *Handler; use Serve with your own listener
// to learn it). Bind loopback unless the server must be reached from
// elsewhere, and then set Options.AllowedHosts and AllowedOrigins.
//
// The http.Server has read-header, read, write and idle timeouts. When ctx
// is done it shuts down gracefully: every Handler it served drains
// (Handler.Shutdown, bounded by its Options.DrainTimeout): new requests
// get 503 while the listener stays open for the answers clients still owe
// the requests in progress, listen streams end with their result and GET
// streams with a retry hint, the requests in progress finish and are
// answered (or, past the timeout, are answered with an error), then the
// sessions end, the listener closes and the connections close once their
// last answer is written. It returns nil after a shutdown, else the error
// that stopped the server.
func ListenAndServe(ctx context.Context, addr string, h http.Handler) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if hh, ok := h.(*Handler); ok {
		hh.log.Info("streamhttp: listening", "addr", ln.Addr().String())
	}
	return Serve(ctx, ln, h)
}

// Serve is ListenAndServe on a listener.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hooks := &serverHooks{handlers: map[*Handler]struct{}{}}
	if hh, ok := h.(*Handler); ok {
		hooks.add(hh)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    1 << 20,
		BaseContext: func(net.Listener) context.Context {
			return context.WithValue(context.Background(), hooksKey{}, hooks)
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	// Connections close after their current response from now on.
	srv.SetKeepAlivesEnabled(false)
	var wg sync.WaitGroup
	for _, hh := range hooks.list() {
		wg.Go(func() {
			dctx, cancel := context.WithTimeout(context.Background(), hh.o.DrainTimeout)
			defer cancel()
			if err := hh.Shutdown(dctx); err != nil {
				hh.log.Warn("streamhttp: drain timed out; the requests left were answered with an error", "timeout", hh.o.DrainTimeout)
			}
		})
	}
	wg.Wait()
	fctx, cancel := context.WithTimeout(context.Background(), flushGrace)
	defer cancel()
	if err := srv.Shutdown(fctx); err != nil {
		_ = srv.Close()
	}
	<-errc
	return nil
}

// serverHooks lets Serve find the Handlers it serves, even behind a mux:
// a Handler registers itself when it sees a request carrying them.
type serverHooks struct {
	mu       sync.Mutex
	handlers map[*Handler]struct{}
}

type hooksKey struct{}

func (s *serverHooks) add(h *Handler) {
	s.mu.Lock()
	s.handlers[h] = struct{}{}
	s.mu.Unlock()
}

func (s *serverHooks) list() []*Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Handler, 0, len(s.handlers))
	for h := range s.handlers {
		out = append(out, h)
	}
	return out
}
