package streamhttp_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
)

// TestMemoryEventStoreContract holds the in-memory store to the contract
// every EventStore meets.
func TestMemoryEventStoreContract(t *testing.T) {
	eventstoretest.Run(t, func(*testing.T) (streamhttp.EventStore, streamhttp.EventStore) {
		return streamhttp.NewMemoryEventStore(0, 0), nil
	})
}
