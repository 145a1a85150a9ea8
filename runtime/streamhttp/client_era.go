package streamhttp

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// clientEra is how a client conn speaks the era of its session, learned
// once from the session's revision (mcp.Negotiator): what its POSTs carry,
// what it does when the session opens and ends, and what the server's
// answers mean.
type clientEra interface {
	// headers adds the era's headers to a POST of body (a message with
	// method; "" for a response, and for a GET).
	headers(c *clientConn, hd http.Header, method string, body []byte)
	// opened starts what a session keeps open once it is opened.
	opened(ctx context.Context, c *clientConn)
	// abortCancels reports that a call is cancelled by aborting its POST.
	abortCancels() bool
	// vetsTools reports that tools with invalid x-mcp-header annotations
	// are left out of tools/list.
	vetsTools() bool
	// sessionOver reports a status that says the session is gone.
	sessionOver(c *clientConn, status int) bool
	// resumes reports that a broken response stream is resumed.
	resumes() bool
	// takesRequests reports that the server may send the client requests.
	takesRequests() bool
	// close ends the session at the server.
	close(c *clientConn)
}

var (
	_ clientEra = sessionClient{}
	_ clientEra = statelessClient{}
)

// clientEras are the implementations, by protocol.Era.
var clientEras = [...]clientEra{protocol.Stateful: sessionClient{}, protocol.Stateless: statelessClient{}}

// sessionClient speaks the stateful era: initialize opens a session the
// server names with Mcp-Session-Id, which every later request carries;
// the server's messages outside requests come on the GET stream; broken
// SSE streams resume; Close deletes the session. It is also the conn's
// era before negotiation (initialize).
type sessionClient struct{}

func (sessionClient) headers(c *clientConn, hd http.Header, _ string, _ []byte) {
	c.mu.Lock()
	sid := c.sessionID
	c.mu.Unlock()
	if sid != "" {
		hd.Set(hdrSessionID, sid)
	}
}

// opened opens the GET stream, and waits until it is open (or refused), so
// that the server knows it before the session's first request.
func (sessionClient) opened(ctx context.Context, c *clientConn) {
	c.mu.Lock()
	// The HTTP+SSE transport has its one stream already.
	start := !c.listening && !c.closed && c.httpSSE.endpoint == ""
	if start {
		c.listening = true
		c.wg.Add(1)
	}
	c.mu.Unlock()
	if !start {
		return
	}
	ready := make(chan struct{})
	go c.listen(ready)
	t := time.NewTimer(2 * time.Second)
	select {
	case <-ready:
	case <-ctx.Done():
	case <-t.C:
	}
	t.Stop()
}

func (sessionClient) abortCancels() bool  { return false }
func (sessionClient) vetsTools() bool     { return false }
func (sessionClient) resumes() bool       { return true }
func (sessionClient) takesRequests() bool { return true }

func (sessionClient) sessionOver(c *clientConn, status int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return status == http.StatusNotFound && c.sessionID != ""
}

// close DELETEs the session.
func (sessionClient) close(c *clientConn) {
	c.mu.Lock()
	sid, version := c.sessionID, c.version
	c.mu.Unlock()
	if sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hd := c.header.Clone()
	if hd == nil {
		hd = http.Header{}
	}
	hd.Set(hdrSessionID, sid)
	if version != "" {
		hd.Set(hdrProtocolVersion, version)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header = hd
	if resp, err := c.client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
	}
}

// statelessClient speaks the stateless era: every POST carries
// MCP-Protocol-Version, Mcp-Method, Mcp-Name and the Mcp-Param-* headers
// of the tool's x-mcp-header annotations; a call is cancelled by aborting
// its POST; the server sends no requests (it asks for input with
// InputRequiredResult).
type statelessClient struct{}

func (statelessClient) headers(c *clientConn, hd http.Header, method string, body []byte) {
	c.mu.Lock()
	p := c.proto
	c.mu.Unlock()
	if method == "" || p == nil {
		return
	}
	var params []byte
	if m, err := jsonrpc.Parse(body); err == nil {
		params = m.Params
	}
	mcpheader.Set(p, method, params, c.paramHeaders, hd.Set)
}

func (statelessClient) opened(context.Context, *clientConn) {}
func (statelessClient) abortCancels() bool                  { return true }
func (statelessClient) vetsTools() bool                     { return true }
func (statelessClient) sessionOver(*clientConn, int) bool   { return false }
func (statelessClient) resumes() bool                       { return false }
func (statelessClient) takesRequests() bool                 { return false }
func (statelessClient) close(*clientConn)                   {}
