package streamhttp

import (
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// The endpoint serves each request with the handler of the era the engine
// picked for it (mcp.Server.Accept), as connect-go serves each request
// with one protocol handler: the stateful era keeps sessions (POSTs in a
// session, the GET stream, DELETE, the batches of 2025-03-26), the
// stateless era answers POSTs only.

// eraHandler is how the endpoint serves the requests of one era.
type eraHandler interface {
	// post serves one POSTed message, accepted as x.
	post(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept)
	// get and del serve a GET and a DELETE (x has no message).
	get(w http.ResponseWriter, r *http.Request, x *mcp.Exchange)
	del(w http.ResponseWriter, r *http.Request, x *mcp.Exchange)
	// batch serves a POSTed batch, each element accepted in xs.
	batch(w http.ResponseWriter, r *http.Request, msgs []*jsonrpc.Message, xs []*mcp.Exchange, acc accept)
}

var (
	_ eraHandler = sessionHTTP{}
	_ eraHandler = statelessHTTP{}
)

// eraHandlers are the endpoint's handlers, by protocol.Era.
func eraHandlers(h *Handler) [protocol.Stateless + 1]eraHandler {
	var eh [protocol.Stateless + 1]eraHandler
	eh[protocol.Stateful], eh[protocol.Stateless] = sessionHTTP{h}, statelessHTTP{h}
	return eh
}

// sessionHTTP serves the stateful era (session.go, batch.go).
type sessionHTTP struct{ h *Handler }

func (e sessionHTTP) post(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	e.h.serveStateful(w, r, msg, x, acc)
}

func (e sessionHTTP) get(w http.ResponseWriter, r *http.Request, x *mcp.Exchange) {
	e.h.serveGet(w, r, x)
}

func (e sessionHTTP) del(w http.ResponseWriter, r *http.Request, x *mcp.Exchange) {
	e.h.serveDelete(w, r, x)
}

func (e sessionHTTP) batch(w http.ResponseWriter, r *http.Request, msgs []*jsonrpc.Message, xs []*mcp.Exchange, acc accept) {
	e.h.serveSessionBatch(w, r, msgs, xs, acc)
}

// statelessHTTP serves the stateless era (stateless.go).
type statelessHTTP struct{ h *Handler }

func (e statelessHTTP) post(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, x *mcp.Exchange, acc accept) {
	e.h.serveStateless(w, r, msg, x, acc)
}

func (e statelessHTTP) get(w http.ResponseWriter, r *http.Request, _ *mcp.Exchange) {
	e.postOnly(w, r)
}

func (e statelessHTTP) del(w http.ResponseWriter, r *http.Request, _ *mcp.Exchange) {
	e.postOnly(w, r)
}

// postOnly answers a GET or DELETE: no GET stream, no session to delete.
func (e statelessHTTP) postOnly(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	e.h.writeError(w, r, http.StatusMethodNotAllowed, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method not allowed: the stateless protocol uses POST only"))
}

func (e statelessHTTP) batch(w http.ResponseWriter, r *http.Request, _ []*jsonrpc.Message, _ []*mcp.Exchange, _ accept) {
	e.h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, errBatchesUnsupported("the stateless protocol has no batches"))
}
