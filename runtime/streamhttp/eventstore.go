package streamhttp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Event is one SSE event of a stateful session's stream.
type Event struct {
	// ID is the event id; it names its stream (see EventStore).
	ID string
	// Data is one JSON-RPC message (one line of compact JSON), or empty
	// for the priming event that opens a stream.
	Data []byte
}

// EventStore keeps the SSE events of stateful sessions so that a client
// whose stream broke can resume it with GET and Last-Event-ID (2025-03-26
// … 2025-11-25: Resumability and Redelivery). Event ids are unique within
// a session and encode the stream they belong to. Implementations must be
// safe for concurrent use; they may forget old events to bound memory. A
// store shared by several instances (runtime/store/redis) lets a stream
// be resumed wherever the session is served.
type EventStore interface {
	// Append stores data as the next event of stream in session and
	// returns its id.
	Append(ctx context.Context, session, stream string, data []byte) (id string, err error)
	// Replay returns the events of the stream afterID belongs to that
	// came after it, in order, and that stream. It fails with
	// ErrUnknownEvent when afterID is not an event of session, or when
	// events after it were forgotten.
	Replay(ctx context.Context, session, afterID string) (events []Event, stream string, err error)
	// Forget drops every event of session (it ended).
	Forget(ctx context.Context, session string) error
}

// ErrUnknownEvent is returned by EventStore.Replay for an event id it
// cannot resume from.
var ErrUnknownEvent = errors.New("streamhttp: unknown or expired Last-Event-ID")

// MemoryEventStore is the default EventStore: bounded, in memory. Event
// ids are "<stream>_<n>" with n counting the events of the stream from 1.
type MemoryEventStore struct {
	perStream, perSession int

	mu       sync.Mutex
	sessions map[string]*memSession
}

type memSession struct {
	streams map[string]*memStream
	order   []string // stream names, oldest first
}

type memStream struct {
	first  uint64 // number of events[0]
	events [][]byte
}

// NewMemoryEventStore returns a store that keeps the last perStream events
// of each stream and the last perSession streams of each session (defaults
// 1000 and 100 when not positive).
func NewMemoryEventStore(perStream, perSession int) *MemoryEventStore {
	if perStream <= 0 {
		perStream = 1000
	}
	if perSession <= 0 {
		perSession = 100
	}
	return &MemoryEventStore{perStream: perStream, perSession: perSession, sessions: map[string]*memSession{}}
}

// Append implements EventStore.
func (s *MemoryEventStore) Append(_ context.Context, session, stream string, data []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.sessions[session]
	if ms == nil {
		ms = &memSession{streams: map[string]*memStream{}}
		s.sessions[session] = ms
	}
	st := ms.streams[stream]
	if st == nil {
		st = &memStream{first: 1}
		ms.streams[stream] = st
		ms.order = append(ms.order, stream)
		for len(ms.order) > s.perSession {
			delete(ms.streams, ms.order[0])
			ms.order = ms.order[1:]
		}
	}
	st.events = append(st.events, append([]byte(nil), data...))
	if over := len(st.events) - s.perStream; over > 0 {
		clear(st.events[:over])
		st.events = st.events[over:]
		st.first += uint64(over)
	}
	n := st.first + uint64(len(st.events)) - 1
	return stream + "_" + strconv.FormatUint(n, 10), nil
}

// Replay implements EventStore.
func (s *MemoryEventStore) Replay(_ context.Context, session, afterID string) ([]Event, string, error) {
	i := strings.LastIndexByte(afterID, '_')
	if i < 0 {
		return nil, "", ErrUnknownEvent
	}
	stream := afterID[:i]
	n, err := strconv.ParseUint(afterID[i+1:], 10, 64)
	if err != nil || n == 0 {
		return nil, "", ErrUnknownEvent
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.sessions[session]
	if ms == nil {
		return nil, "", ErrUnknownEvent
	}
	st := ms.streams[stream]
	last := st.lastLocked()
	// The event after n must still be kept: n+1 >= first.
	if st == nil || n > last || n+1 < st.first {
		return nil, "", ErrUnknownEvent
	}
	var out []Event
	for k := n + 1; k <= last; k++ {
		out = append(out, Event{ID: stream + "_" + strconv.FormatUint(k, 10), Data: st.events[k-st.first]})
	}
	return out, stream, nil
}

func (st *memStream) lastLocked() uint64 {
	if st == nil {
		return 0
	}
	return st.first + uint64(len(st.events)) - 1
}

// Forget implements EventStore.
func (s *MemoryEventStore) Forget(_ context.Context, session string) error {
	s.mu.Lock()
	delete(s.sessions, session)
	s.mu.Unlock()
	return nil
}

// sessions reports how many sessions have events (for tests).
func (s *MemoryEventStore) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
