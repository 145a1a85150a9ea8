package streamhttp

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
)

// JSON-RPC batches on Streamable HTTP (2025-03-26 only: 2025-06-18 removed
// them, and the stateless protocol has none). A POST body may batch
// requests and notifications, or responses. The session's negotiated
// revision decides whether it may (mcp.Protocol.Batches); other sessions
// and stateless requests get 400 and -32600, as does a batch that is
// empty, holds more than Options.MaxBatchMessages elements, or holds
// initialize (which MUST NOT be batched).
//
// A batch of responses and notifications only is dispatched element by
// element and answered 202. A batch with requests serves each of them as a
// single request is served (validation, dispatch, duplicate ids, cancellation
// by notifications/cancelled, no cancellation on disconnect) and
// concurrently; its responses all go on one stream of the session:
//
//   - to a client that takes SSE, as SSE events from the first event on
//     (the related messages of every request in the batch and each
//     response as it is ready), with ids from the EventStore so that the
//     stream resumes with Last-Event-ID; the stream ends after the last
//     response;
//   - to a client that takes only JSON, as one JSON array of the responses
//     once every request is answered (the related messages go on the GET
//     stream, if any); 202 when none has a response (all cancelled).
//
// Invalid elements get their own error responses (-32600, with their id
// when it is usable, else without id: the MCP schemas refuse a null id)
// in the batch's answer, and the valid elements are still served; a batch
// with invalid elements is answered as one with requests.

// errBatchesUnsupported is the -32600 that refuses a batch.
func errBatchesUnsupported(why string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "batch requests are not supported: %s", why)
}

// serveBatch serves a POST whose body is a JSON array.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte, acc accept, addr string) {
	msgs, err := h.parseBatch(body)
	var pe *jsonrpc.ParseError
	switch {
	case errors.As(err, &pe):
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err))
		return
	case errors.Is(err, jsonrpc.ErrBatchTooLarge):
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: a batch holds at most %d messages", h.o.MaxBatchMessages))
		return
	case err != nil:
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %v", err))
		return
	case len(msgs) == 0:
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: empty batch"))
		return
	}
	// The engine reads each element once and picks its era: a batch with
	// an element of the stateless era is one.
	xs := make([]*mcp.Exchange, len(msgs))
	era := protocol.Stateful
	for i, m := range msgs {
		xs[i] = h.accept(m, via(r, addr))
		if xs[i].Era() == protocol.Stateless {
			era = protocol.Stateless
		}
	}
	h.eras[era].batch(w, r, msgs, xs, acc)
}

// serveSessionBatch serves a batch of the stateful era: one of a session
// whose revision has batches.
func (h *Handler) serveSessionBatch(w http.ResponseWriter, r *http.Request, msgs []*jsonrpc.Message, xs []*mcp.Exchange, acc accept) {
	for _, x := range xs {
		if x.OpensSession() {
			h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: initialize must not be batched"))
			return
		}
	}
	s := h.lookup(w, r, xs[0], jsonrpc.ID{}, false, false) // every element: the same era and headers
	if s == nil {
		return
	}
	defer s.leave()
	if p := s.ms.Protocol(); p == nil || !p.Batches {
		rev := "this session's revision"
		if p != nil {
			rev = "protocol revision " + p.Revision
		}
		h.writeError(w, r, http.StatusBadRequest, jsonrpc.ID{}, false, errBatchesUnsupported(rev+" has no JSON-RPC batches"))
		return
	}
	s.serveBatch(w, r, msgs, xs, acc)
}

// serveBatch serves the elements of a batch in order: responses and
// notifications at once, requests on their own goroutines, every answer
// on one stream (see the comment at the top of the file).
func (s *session) serveBatch(w http.ResponseWriter, r *http.Request, msgs []*jsonrpc.Message, xs []*mcp.Exchange, acc accept) {
	owed := false
	for _, m := range msgs {
		if m.Kind == jsonrpc.KindRequest || m.Kind == jsonrpc.KindInvalid {
			owed = true
			break
		}
	}
	if !owed {
		for i, m := range msgs {
			s.oneWay(r.Context(), m, xs[i])
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st, c, err := s.postStream(w, acc, true)
	if err != nil {
		s.h.writeError(w, r, http.StatusNotFound, jsonrpc.ID{}, false, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found"))
		return
	}
	c.post(r, jsonrpc.ID{}, false, http.StatusAccepted)
	// One more response is owed until every element is dispatched: the
	// stream cannot end before.
	st.owe()
	noID := s.noID()
	for i, m := range msgs {
		switch m.Kind {
		case jsonrpc.KindRequest:
			st.owe()
			if _, replay, je := s.start(r, m, xs[i], st, nil, nil, false); replay != nil {
				st.answer(replay)
			} else if je != nil {
				st.answer(errorBody(m.ID, true, noID, je))
			}
		case jsonrpc.KindInvalid:
			st.owe()
			st.answer(errorBody(m.ID, m.HasID, noID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %s", m.Problem)))
		default:
			s.oneWay(r.Context(), m, xs[i])
		}
	}
	st.answer(nil)
	s.await(r, st, c)
}

// oneWay dispatches a message that gets no answer: a response goes to the
// call waiting for it, a notification to the session.
func (s *session) oneWay(ctx context.Context, m *jsonrpc.Message, x *mcp.Exchange) {
	switch m.Kind {
	case jsonrpc.KindResponse:
		if !s.calls.Deliver(m, nil, false) && s.shared {
			// Another instance's request, maybe.
			s.relayResponse(ctx, m)
		}
	case jsonrpc.KindNotification:
		_, _ = x.Serve(ctx, s.ms, discardOut{})
	}
}
