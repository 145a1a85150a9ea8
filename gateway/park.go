package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// Calls to a backend of the stateful era ask the client for input with
// requests of their own, in the middle of the call (sampling, elicitation,
// roots); the gateway, written in 2026-07-28, asks its front client with
// input rounds instead. So such a call runs on its own, and when the
// backend asks, the front request ends with an InputRequiredResult whose
// requestState names the call, sealed (Request.SealState); the call waits,
// parked, until the client's retry brings the answer, which goes to the
// backend, and the call goes on — to its result or the next question. A
// front client of the stateful era never sees the rounds: its bridge asks
// it with requests and retries at once.

// parkedCall is one call to the backend that may ask for input.
type parkedCall struct {
	id        string
	principal string
	sl        *slot           // whose backend the call is to
	ctx       context.Context // the backend call's
	cancel    context.CancelFunc
	done      chan outcome // its result, once
	asks      chan *ask    // what the backend asks, one at a time

	mu      sync.Mutex
	front   *rt.Request // the front request waiting for it now (progress)
	pending *ask        // the question the front client was asked
	expiry  *time.Timer
}

type outcome struct {
	reply any
	err   error
}

// ask is one question of the backend's.
type ask struct {
	key     string
	request v26.InputRequest
	answer  chan v26.InputResponse // buffered: the front client's answer
}

// parking holds the calls parked between rounds, bounded in number and
// time.
type parking struct {
	max int
	ttl time.Duration

	mu     sync.Mutex
	calls  map[string]*parkedCall // every call, running or parked
	by     map[string]int         // calls by principal
	closed bool
}

func newParking(max int, ttl time.Duration) *parking {
	return &parking{max: max, ttl: ttl, calls: map[string]*parkedCall{}, by: map[string]int{}}
}

// callKey carries the parkedCall a backend call runs for.
type callKey struct{}

// errGone answers a retry whose call is no longer parked here.
var errGone = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState names a call this gateway no longer holds: it expired, was cancelled, or another gateway instance holds it; send the request again without requestState")

// parkCall serves a request that may ask the front client for input:
// a first request starts call on its own; a retry (state, the
// requestState of the InputRequiredResult this gateway answered) hands
// its answer to the call it parked. asInput turns an
// InputRequiredResult into the method's reply.
func parkCall[R any](g *Gateway, b *backend, ctx context.Context, state wire.Opt[string], responses v26.InputResponses, call func(ctx context.Context) (R, error), asInput func(*v26.InputRequiredResult) R) (R, error) {
	var zero R
	req := rt.RequestFrom(ctx)
	if req == nil {
		return call(ctx)
	}
	p := g.parked
	var pc *parkedCall
	if s, ok := state.Get(); ok {
		id, err := req.OpenState(s)
		if err != nil {
			return zero, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState: %v", err)
		}
		if pc = p.resume(string(id), req.Principal()); pc == nil {
			return zero, errGone
		}
		pc.mu.Lock()
		a := pc.pending
		pc.pending, pc.front = nil, req
		pc.mu.Unlock()
		resp, ok := responses.Get(a.key)
		if !ok {
			// Asked again: the call stays parked.
			p.park(pc)
			return zero, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "inputResponses lacks %q, the answer to what the server asked", a.key)
		}
		a.answer <- resp
	} else {
		var err error
		if pc, err = p.start(ctx, req, b.in.sl, func(ctx context.Context) outcome {
			r, err := call(ctx)
			return outcome{r, err}
		}); err != nil {
			return zero, err
		}
	}
	select {
	case o := <-pc.done:
		p.finish(pc)
		if o.err != nil {
			return zero, o.err
		}
		return o.reply.(R), nil
	case a := <-pc.asks:
		pc.mu.Lock()
		pc.pending, pc.front = a, nil
		pc.mu.Unlock()
		p.park(pc)
		irr := &v26.InputRequiredResult{RequestState: wire.Some(req.SealState([]byte(pc.id)))}
		irr.InputRequests.Set(a.key, a.request)
		return asInput(irr), nil
	case <-ctx.Done():
		pc.cancel()
		p.finish(pc)
		return zero, ctx.Err()
	}
}

// inputRequired is an InputRequiredResult as the reply of a method that
// may ask for input.
func inputRequired[R any](irr *v26.InputRequiredResult) R { return any(irr).(R) }

// start runs call for the front request req on its own goroutine, with a
// context of its own (it outlives req when the backend asks for input).
func (p *parking) start(ctx context.Context, req *rt.Request, sl *slot, call func(context.Context) outcome) (*parkedCall, error) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	pc := &parkedCall{id: hex.EncodeToString(b[:]), principal: req.Principal(), sl: sl, done: make(chan outcome, 1), asks: make(chan *ask), front: req}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway is shutting down")
	}
	if len(p.calls) >= p.max {
		p.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway holds %d calls that may ask for input (its bound): try again later", p.max)
	}
	if per := max(p.max/4, 1); p.by[pc.principal] >= per {
		p.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway holds %d calls of this client's that may ask for input (its bound per principal, a quarter of MaxParked): finish or cancel one first", per)
	}
	p.calls[pc.id] = pc
	p.by[pc.principal]++
	p.mu.Unlock()
	cctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), callKey{}, pc))
	pc.ctx, pc.cancel = cctx, cancel
	if _, ok := req.ProgressToken(); ok {
		cctx = rt.WithProgress(cctx, func(u rt.ProgressUpdate) {
			pc.mu.Lock()
			front := pc.front
			pc.mu.Unlock()
			if front != nil {
				_ = front.Progress(ctx, u.Progress, u.Total, u.Message)
			}
		})
	}
	pc.ctx = cctx
	sl.busy.Add(1) // while the backend call runs, parked or not
	go func() {
		defer sl.busy.Add(-1)
		pc.done <- call(cctx)
	}()
	return pc, nil
}

// park keeps pc until its front client answers, for the TTL at most.
func (p *parking) park(pc *parkedCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls[pc.id] != pc {
		return
	}
	pc.mu.Lock()
	pc.expiry = time.AfterFunc(p.ttl, func() {
		if p.resume(pc.id, pc.principal) == pc {
			pc.cancel()
			p.finish(pc)
		}
	})
	pc.mu.Unlock()
}

// resume takes the parked call id of principal back (nil: none).
func (p *parking) resume(id, principal string) *parkedCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.calls[id]
	if pc == nil || pc.principal != principal {
		return nil
	}
	pc.mu.Lock()
	parked := pc.expiry != nil
	if parked {
		pc.expiry.Stop()
		pc.expiry = nil
	}
	pc.mu.Unlock()
	if !parked {
		return nil // running: another retry took it
	}
	return pc
}

// finish forgets pc.
func (p *parking) finish(pc *parkedCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls[pc.id] == pc {
		delete(p.calls, pc.id)
		if p.by[pc.principal]--; p.by[pc.principal] == 0 {
			delete(p.by, pc.principal)
		}
	}
}

// only is the one call to sl's backend running (not parked) when there
// is exactly one: the call a question of a stateful backend, which says
// no more, belongs to.
func (p *parking) only(sl *slot) *parkedCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	var one *parkedCall
	for _, pc := range p.calls {
		if pc.sl != sl {
			continue
		}
		pc.mu.Lock()
		parked := pc.expiry != nil
		pc.mu.Unlock()
		if !parked {
			if one != nil {
				return nil
			}
			one = pc
		}
	}
	return one
}

// closeAll cancels every call.
func (p *parking) closeAll() {
	p.mu.Lock()
	p.closed = true
	calls := make([]*parkedCall, 0, len(p.calls))
	for _, pc := range p.calls {
		calls = append(calls, pc)
	}
	p.mu.Unlock()
	for _, pc := range calls {
		pc.cancel()
	}
}

// ask hands what the backend asks (method, request) to the call it
// belongs to and waits for the front client's answer.
func (g *Gateway) ask(ctx context.Context, sl *slot, method string, request v26.InputRequest) (v26.InputResponse, error) {
	pc, _ := ctx.Value(callKey{}).(*parkedCall)
	if pc == nil {
		pc = g.parked.only(sl)
	}
	if pc == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the gateway cannot tell which of its clients this %s is for: no call, or several, is in progress on its backend session", method)
	}
	a := &ask{key: method + "#" + strconv.FormatUint(g.asked.Add(1), 10), request: request, answer: make(chan v26.InputResponse, 1)}
	select {
	case pc.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-pc.ctx.Done():
		return nil, pc.ctx.Err()
	}
	select {
	case resp := <-a.answer:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-pc.ctx.Done():
		return nil, pc.ctx.Err()
	}
}
