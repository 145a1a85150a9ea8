package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The client of the HTTP+SSE transport of 2024-11-05 (ssetransport.go has the
// server), as the backwards compatibility of the 2025-03-26 transports
// says: POST initialize to the URL; when that fails with 400, 404 or 405,
// GET the URL, wait for the endpoint event, and go on over the old
// transport — messages POSTed to the endpoint, everything the server
// sends read from the stream.

// SSEMode says when a ClientTransport speaks the HTTP+SSE transport.
type SSEMode int

const (
	// SSEFallback speaks Streamable HTTP, and the HTTP+SSE transport
	// when the server answers initialize with 400, 404 or 405.
	SSEFallback SSEMode = iota
	// SSENever speaks Streamable HTTP only.
	SSENever
	// SSEOnly speaks the HTTP+SSE transport only: the URL is its SSE
	// endpoint.
	SSEOnly
)

// sseState is a conn's use of the HTTP+SSE transport.
type sseState struct {
	mode SSEMode
	// endpoint is where messages are POSTed, once the stream named it;
	// "" while the conn speaks Streamable HTTP. Guarded by clientConn.mu.
	endpoint string
}

// sseEndpointWait bounds the wait for the endpoint event.
const sseEndpointWait = 30 * time.Second

// sseFallback is a refused initialize that the HTTP+SSE transport may
// carry instead.
type sseFallback struct{ err error }

func (e *sseFallback) Error() string { return e.err.Error() }
func (e *sseFallback) Unwrap() error { return e.err }

// speaksSSE reports a conn that speaks the HTTP+SSE transport.
func (c *clientConn) speaksSSE() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.httpSSE.endpoint != ""
}

// sseRefusal reports the answer to a POSTed initialize that sends the
// conn to the HTTP+SSE transport.
func (c *clientConn) sseRefusal(method string, status int) bool {
	return c.httpSSE.mode == SSEFallback && method == "initialize" &&
		(status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed)
}

// send sends a request: POSTed with its answer read from the response
// (Streamable HTTP), or POSTed to the endpoint with its answer to come on
// the stream (HTTP+SSE), which it opens first when the mode or the
// server's refusal of initialize says so.
func (c *clientConn) send(ctx context.Context, method string, body []byte, pc *jsonrpc.Pending) error {
	if !c.speaksSSE() && c.httpSSE.mode == SSEOnly {
		if err := c.openSSE(ctx); err != nil {
			return err
		}
	}
	if c.speaksSSE() {
		return c.postSSE(ctx, method, body)
	}
	err := c.exchange(ctx, method, body, pc)
	fb, ok := err.(*sseFallback) // exchange returns it as it is (no errors.As: the hot path stays allocation-free)
	if !ok {
		return err
	}
	if lerr := c.openSSE(ctx); lerr != nil {
		return fmt.Errorf("%w (and the HTTP+SSE transport of 2024-11-05, tried next: %w)", fb.err, lerr)
	}
	c.log.Debug("streamhttp: the server refused initialize; speaking the HTTP+SSE transport", "url", c.url, "refusal", fb.err)
	return c.postSSE(ctx, method, body)
}

// openSSE opens the SSE stream at the URL and waits for its endpoint
// event; the stream is then read until the conn closes.
func (c *clientConn) openSSE(ctx context.Context) error {
	hd := c.header.Clone()
	if hd == nil {
		hd = http.Header{}
	}
	hd.Set("Accept", "text/event-stream")
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return err
	}
	req.Header = hd
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !isSSE(resp) {
		defer resp.Body.Close()
		if err := c.checkStatus(resp); err != nil {
			return err
		}
		return fmt.Errorf("streamhttp: GET %s is not an event stream (%s)", c.url, resp.Header.Get("Content-Type"))
	}
	endpoint := make(chan string, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		resp.Body.Close()
		return jsonrpc.ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go c.readSSE(resp.Body, endpoint)
	timer := time.NewTimer(sseEndpointWait)
	defer timer.Stop()
	select {
	case ep, ok := <-endpoint:
		if !ok {
			return errors.New("streamhttp: the SSE stream ended before its endpoint event")
		}
		u, err := url.Parse(c.url)
		if err != nil {
			return err
		}
		to, err := u.Parse(ep)
		if err != nil {
			return fmt.Errorf("streamhttp: the endpoint event names %q: %w", ep, err)
		}
		if to.Scheme != u.Scheme || to.Host != u.Host {
			// The old transport's endpoint is on the server's own origin
			// (2024-11-05 transports); another would get the messages,
			// and the credentials with them.
			return fmt.Errorf("streamhttp: the endpoint event names another origin (%s)", to.Redacted())
		}
		c.mu.Lock()
		c.httpSSE.endpoint = to.String()
		c.mu.Unlock()
		return nil
	case <-timer.C:
		return errors.New("streamhttp: no endpoint event on the SSE stream within " + sseEndpointWait.String())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readSSE reads the stream: the endpoint event first (sent on
// endpoint, closed if the stream ends before it), then message events,
// routed like Streamable HTTP's. When the stream ends, the calls waiting
// for answers fail: nothing else can bring them.
func (c *clientConn) readSSE(body io.ReadCloser, endpoint chan<- string) {
	defer c.wg.Done()
	defer body.Close()
	rd := newSSEReader(body, maxMessage)
	announced := false
	defer func() {
		if !announced {
			close(endpoint)
		}
		c.calls.Close(errSSEStreamEnded)
	}()
	for {
		ev, err := rd.next()
		if err != nil {
			return
		}
		switch {
		case ev.event == "endpoint" && !announced:
			announced = true
			endpoint <- string(bytes.TrimSpace(ev.data))
		case (ev.event == "" || ev.event == "message") && len(bytes.TrimSpace(ev.data)) > 0:
			msgs, _ := jsonrpc.ParseMessages(ev.data)
			for _, m := range msgs {
				if m.Kind != jsonrpc.KindInvalid {
					c.dispatch(m)
				}
			}
		}
	}
}

// errSSEStreamEnded fails the calls waiting when the HTTP+SSE stream
// ends (the session ends with it).
var errSSEStreamEnded = errors.New("streamhttp: the HTTP+SSE stream ended: the session is over")

// postSSE POSTs a message to the endpoint; the server accepts it (202)
// and answers on the stream.
func (c *clientConn) postSSE(ctx context.Context, method string, body []byte) error {
	c.mu.Lock()
	endpoint := c.httpSSE.endpoint
	c.mu.Unlock()
	rctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(c.ctx, cancel)()
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = c.headers(method, body)
	resp, err := c.client.Do(req)
	if err != nil {
		if c.ctx.Err() != nil {
			return jsonrpc.ErrClosed
		}
		return err
	}
	defer resp.Body.Close()
	if err := c.checkStatus(resp); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return nil
}
