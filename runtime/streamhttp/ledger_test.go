package streamhttp_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/sessionstoretest"
)

func TestMemoryRequestLedger(t *testing.T) {
	sessionstoretest.RunLedger(t, func(t *testing.T) streamhttp.RequestLedger { return streamhttp.NewMemoryRequestLedger() })
}
