package streamhttp_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/sessionstoretest"
)

// TestMemoryEventStoreContract holds the in-memory store to the contract
// every EventStore meets.
func TestMemoryEventStoreContract(t *testing.T) {
	eventstoretest.Run(t, func(*testing.T) (streamhttp.EventStore, streamhttp.EventStore) {
		return streamhttp.NewMemoryEventStore(0, 0), nil
	})
}

// TestMemorySessionStoreContract holds the in-memory session store to the
// contract every SessionStore meets.
func TestMemorySessionStoreContract(t *testing.T) {
	sessionstoretest.Run(t, func(*testing.T) streamhttp.SessionStore { return streamhttp.NewMemorySessionStore() })
}
