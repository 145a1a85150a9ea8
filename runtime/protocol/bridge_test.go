package protocol

import (
	"reflect"
	"testing"
)

// TestBridgeCopiesProtocol: NewBridge copies the client's Protocol field
// by field (it holds a sync.Once, so not by value); a field added to
// Protocol must be added there too, and here (Converter is the bridge's
// own).
func TestBridgeCopiesProtocol(t *testing.T) {
	copied := []string{"Revision", "Era", "Batches", "RetryOnClose", "Methods", "Stamp", "ServerCapabilities", "ClientCapabilities",
		"InputRequired", "NoID", "MissingCapabilityCode", "Tasks", "ResourceNotFoundCode", "ToolError", "Converter", "Side", "MemberTable", "Members"}
	var exported []string
	for f := range reflect.TypeFor[Protocol]().Fields() {
		if f.IsExported() {
			exported = append(exported, f.Name)
		}
	}
	if !reflect.DeepEqual(exported, copied) {
		t.Errorf("Protocol's exported fields are %v; NewBridge copies %v", exported, copied)
	}
}
