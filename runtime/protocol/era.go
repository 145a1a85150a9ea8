package protocol

// Era is the way a revision holds a conversation; every revision belongs
// to one, and the runtime serves each era with one implementation.
type Era uint8

// The eras.
const (
	// Stateful revisions (2024-11-05 … 2025-11-25) open a session with
	// initialize, which fixes the revision and both sides' capabilities
	// for every later message.
	Stateful Era = iota + 1
	// Stateless revisions (2026-07-28 on) carry the protocol version and
	// the client's capabilities in every request's _meta; there is no
	// session.
	Stateless
)

// String returns "stateful" or "stateless".
func (e Era) String() string {
	switch e {
	case Stateful:
		return "stateful"
	case Stateless:
		return "stateless"
	}
	return "era(?)"
}
