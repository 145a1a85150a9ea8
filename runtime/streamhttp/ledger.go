package streamhttp

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// RequestLedger records the requests of stateful sessions where every
// instance sharing a SessionStore sees them: which stream carries each
// one's response, until when its instance holds it (a lease it renews
// while the request runs), and, once answered, its response. With one
// (Options.Requests):
//
//   - a request sent again — the same session and id, which MCP forbids
//     reusing within a session, so a client retrying after a lost answer,
//     or a proxy re-sending after an instance died — runs at most once
//     over all the instances: one already answered is answered again with
//     the recorded response, one still running elsewhere gets -32600, one
//     whose instance stopped before answering gets -32603 saying it was
//     lost (it may have run: the client decides whether to run it again);
//   - a response stream resumed (GET with Last-Event-ID) on an instance
//     other than the one that served it ends with the responses of its
//     requests: replayed from the EventStore, taken from the ledger, or,
//     for a request whose instance stopped, the same "lost" error — never
//     with silence.
//
// Implementations must be safe for concurrent use; runtime/store/redis
// has one, and streamhttp/sessionstoretest.RunLedger is the contract.
type RequestLedger interface {
	// Begin records rec for request id (its JSON-RPC id's key) of
	// session, to expire ttl after, unless the request has a record: it
	// then returns that record and false.
	Begin(ctx context.Context, session, id string, rec RequestRecord, ttl time.Duration) (prior RequestRecord, fresh bool, err error)
	// Update replaces the record of request id of session (a renewed
	// lease, or the response), to expire ttl after.
	Update(ctx context.Context, session, id string, rec RequestRecord, ttl time.Duration) error
	// Stream returns the records of the requests whose responses stream
	// carries, by request id.
	Stream(ctx context.Context, session, stream string) (map[string]RequestRecord, error)
}

// SessionLedger is a RequestLedger kept beside the SessionStore (the same
// Redis, the same key prefix) that reads, in Begin's round trip, the
// session's entry there too. A request of a shared session this instance
// holds must learn whether another instance ended the session before it
// runs, and must Begin: with a SessionLedger that is one round trip to
// the store instead of two.
type SessionLedger interface {
	RequestLedger
	// BeginInSession is Begin preceded by a look at session in the
	// SessionStore: for a session ended it records nothing and returns
	// ErrSessionEnded; stored is false when the store has no entry for
	// the session (the request is recorded all the same).
	BeginInSession(ctx context.Context, session, id string, rec RequestRecord, ttl time.Duration) (prior RequestRecord, fresh, stored bool, err error)
}

// RequestRecord is what a RequestLedger keeps of one request.
type RequestRecord struct {
	// ID is the request's JSON-RPC id, as JSON.
	ID wire.Raw `json:"id"`
	// Stream names the stream carrying its response.
	Stream string `json:"stream"`
	// Lease is when its instance stops holding it unless it renews.
	Lease time.Time `json:"lease"`
	// Done reports a request answered, or cancelled (no Response).
	Done bool `json:"done,omitempty"`
	// Response is the JSON-RPC response sent, once Done.
	Response wire.Raw `json:"response,omitempty"`
}

// The ledger's timings.
const (
	// defaultRequestLease is Options.RequestLease's default.
	defaultRequestLease = 10 * time.Second
	// requestRecordTTL is how long the record of an answered request
	// stays, for retries and resumed streams.
	requestRecordTTL = 10 * time.Minute
	// followEvery is how often a stream resumed away from its instance
	// looks for what that instance added.
	followEvery = 250 * time.Millisecond
)

// errInProgressElsewhere answers a request sent again while another
// instance serves it.
func errInProgressElsewhere(id jsonrpc.ID) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "duplicate request id %s: another instance is serving it", id.String())
}

// errLost answers a request whose instance stopped before answering it.
var errLost = jsonrpc.NewError(jsonrpc.CodeInternalError, "the request was lost: the server instance serving it stopped before answering; it may have run in part or in full")

// MemoryRequestLedger is a RequestLedger in memory: Handlers of one
// process share it (tests); across processes use a shared one.
type MemoryRequestLedger struct {
	now func() time.Time

	mu   sync.Mutex
	recs map[[2]string]memRecord
}

type memRecord struct {
	rec     RequestRecord
	expires time.Time
}

// NewMemoryRequestLedger returns an empty ledger.
func NewMemoryRequestLedger() *MemoryRequestLedger {
	return &MemoryRequestLedger{now: time.Now, recs: map[[2]string]memRecord{}}
}

// Begin implements RequestLedger.
func (m *MemoryRequestLedger) Begin(_ context.Context, session, id string, rec RequestRecord, ttl time.Duration) (RequestRecord, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if r, ok := m.recs[[2]string{session, id}]; ok && now.Before(r.expires) {
		return r.rec, false, nil
	}
	m.sweepLocked(now)
	m.recs[[2]string{session, id}] = memRecord{rec, now.Add(ttl)}
	return RequestRecord{}, true, nil
}

// Update implements RequestLedger.
func (m *MemoryRequestLedger) Update(_ context.Context, session, id string, rec RequestRecord, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[[2]string{session, id}] = memRecord{rec, m.now().Add(ttl)}
	return nil
}

// Stream implements RequestLedger.
func (m *MemoryRequestLedger) Stream(_ context.Context, session, stream string) (map[string]RequestRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]RequestRecord{}
	now := m.now()
	for k, r := range m.recs {
		if k[0] == session && r.rec.Stream == stream && now.Before(r.expires) {
			out[k[1]] = r.rec
		}
	}
	return out, nil
}

// sweepLocked drops the expired records (the map stays bounded).
func (m *MemoryRequestLedger) sweepLocked(now time.Time) {
	if len(m.recs)%256 != 0 {
		return
	}
	for k, r := range m.recs {
		if !now.Before(r.expires) {
			delete(m.recs, k)
		}
	}
}

// ledgerEntry is the record of one request this instance serves, kept
// in the ledger while it runs.
type ledgerEntry struct {
	s     *session
	key   string
	rec   RequestRecord
	renew *time.Timer
	mu    sync.Mutex
	done  bool
}

// begin records a request this instance is about to serve on st. It
// returns nil and no error when the handler has no ledger; the recorded
// response (replay) of a request answered before; or the error to answer
// a request that must not run (in progress elsewhere, lost). When the
// ledger cannot be reached the request runs without it (logged).
//
// With check (the caller's lookup left it to begin: sessionLedger), begin
// also learns whether another instance ended the session, in the same
// round trip; it then closes the session and refuses the request with
// errSessionNotFound (ended true).
func (s *session) begin(ctx context.Context, id jsonrpc.ID, key string, st *stream, check bool) (e *ledgerEntry, replay []byte, refusal *jsonrpc.Error, ended bool) {
	l := s.h.o.Requests
	if l == nil || !s.shared {
		return nil, nil, nil, false
	}
	idJSON, _ := wire.Marshal(id)
	e = &ledgerEntry{s: s, key: key, rec: RequestRecord{ID: idJSON, Stream: st.name, Lease: time.Now().Add(s.h.o.RequestLease)}}
	var (
		prior  RequestRecord
		fresh  bool
		stored = true
		err    error
	)
	if check {
		prior, fresh, stored, err = l.(SessionLedger).BeginInSession(ctx, s.id, key, e.rec, requestRecordTTL)
	} else {
		prior, fresh, err = l.Begin(ctx, s.id, key, e.rec, requestRecordTTL)
	}
	switch {
	case check && errors.Is(err, ErrSessionEnded):
		s.ended()
		return nil, nil, errSessionNotFound, true
	case err != nil:
		// Served without it: a request sent again meanwhile may run twice.
		s.h.storeDown(err)
		if check {
			s.markUnsynced()
		}
		return nil, nil, nil, false
	case check && !stored:
		s.lostByStore()
	case check:
		s.h.storeUp()
	}
	switch {
	case fresh:
		e.renew = time.AfterFunc(s.h.o.RequestLease/3, e.renewLease)
		return e, nil, nil, false
	case prior.Done && prior.Response != nil:
		return nil, prior.Response, nil, false
	case prior.Done:
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "duplicate request id %s: it was cancelled", id.String()), false
	case time.Now().Before(prior.Lease):
		return nil, nil, errInProgressElsewhere(id), false
	}
	return nil, nil, errLost, false
}

// renewLease extends the lease of a request still running.
func (e *ledgerEntry) renewLease() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return
	}
	lease := e.s.h.o.RequestLease
	e.rec.Lease = time.Now().Add(lease)
	ctx, cancel := context.WithTimeout(e.s.ctx, lease/3)
	defer cancel()
	if err := e.s.h.o.Requests.Update(ctx, e.s.id, e.key, e.rec, requestRecordTTL); err != nil {
		e.s.h.log.Warn("streamhttp: renewing a request's lease failed", "session", e.s.id, "err", err)
	}
	e.renew.Reset(lease / 3)
}

// finish records the request's response (nil: cancelled).
func (e *ledgerEntry) finish(response []byte) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done = true
	e.renew.Stop()
	e.rec.Done, e.rec.Response = true, response
	ctx, cancel := context.WithTimeout(context.WithoutCancel(e.s.ctx), e.s.h.o.RequestLease/3)
	defer cancel()
	if err := e.s.h.o.Requests.Update(ctx, e.s.id, e.key, e.rec, requestRecordTTL); err != nil {
		e.s.h.log.Warn("streamhttp: recording a response in the request ledger failed", "session", e.s.id, "err", err)
	}
}

// settleRemote ends, on c, a stream resumed away from the instance that
// served it, once the events replayed (after which last is the id of the
// last one written) are followed by the responses its requests owe: the
// events that instance adds while it still holds them, the responses the
// ledger recorded, or errLost for a request whose instance stopped. It
// returns when every request is settled, or the client leaves.
func (s *session) settleRemote(ctx context.Context, c *sseConn, name, last string, answered map[string]bool) {
	l := s.h.o.Requests
	if l == nil {
		return
	}
	for {
		recs, err := l.Stream(ctx, s.id, name)
		if err != nil {
			s.h.log.Warn("streamhttp: the request ledger is unreachable: a resumed stream ends without its responses", "session", s.id, "err", err)
			return
		}
		waiting := false
		keys := make([]string, 0, len(recs))
		for k := range recs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			rec := recs[k]
			if answered[k] {
				continue
			}
			var body []byte
			switch {
			case rec.Done && rec.Response == nil:
				answered[k] = true // cancelled: nothing to send
				continue
			case rec.Done:
				body = rec.Response
			case time.Now().Before(rec.Lease):
				waiting = true
				continue
			default:
				var id jsonrpc.ID
				if wire.UnmarshalWith(rec.ID, id.DecodeJSON) != nil {
					answered[k] = true
					continue
				}
				body = errorBody(id, true, s.noID(), errLost)
			}
			evID, err := s.h.store.Append(ctx, s.id, name, body)
			if err != nil {
				s.h.log.Warn("streamhttp: storing an event failed", "session", s.id, "err", err)
			}
			if c.writeEvent(evID, body) != nil {
				return
			}
			answered[k] = true
			last = evID
		}
		if !waiting {
			return
		}
		// The instance serving it still holds a request: follow what it
		// adds to the stream.
		select {
		case <-ctx.Done():
			return
		case <-time.After(followEvery):
		}
		if last == "" {
			continue
		}
		events, _, err := s.h.store.Replay(ctx, s.id, last)
		if err != nil {
			continue
		}
		for _, ev := range events {
			if c.writeEvent(ev.ID, ev.Data) != nil {
				return
			}
			last = ev.ID
			markAnswered(answered, ev.Data)
		}
	}
}

// markAnswered notes in answered the request a response event answers.
func markAnswered(answered map[string]bool, data []byte) {
	msg, err := jsonrpc.Parse(data)
	if err != nil || msg.Kind != jsonrpc.KindResponse || !msg.HasID {
		return
	}
	answered[idKey(msg.ID)] = true
}
