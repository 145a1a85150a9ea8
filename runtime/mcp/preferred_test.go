package mcp

import (
	"context"
	"slices"
	"testing"
)

func TestPreferred(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"2025-11-25", "2025-06-18", true},
		{"2025-06-18", "2025-11-25", false},
		{"2025-11-25", "DRAFT-2026-v1", true}, // published before drafts
		{"DRAFT-2026-v1", "2025-11-25", false},
		{"DRAFT-2026-v2", "DRAFT-2026-v1", true},
		{"2026-7-28", "2025-11-25", false}, // not a date
	}
	for _, tt := range tests {
		if got := Preferred(tt.a, tt.b); got != tt.want {
			t.Errorf("Preferred(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

// A draft that declares a published revision's version, generated with
// its own (mcpgen --protocol-version), mounts beside it; the published one
// stays the default and the draft is spoken when asked for.
func TestDraftBesidePublished(t *testing.T) {
	_, published := testProtocols()
	_, draft := testProtocols()
	draft.Revision = "DRAFT-2026-v1"
	srv, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: draft, Handler: echoHandler{}}, Mount{Protocol: published, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.StatelessVersions(); !slices.Equal(got, []string{"2026-07-28", "DRAFT-2026-v1"}) {
		t.Errorf("versions %v, want the published one first", got)
	}
	for _, pin := range []string{"", "DRAFT-2026-v1"} {
		cs, err := Connect(context.Background(), &InProcessTransport{Server: srv}, ClientOptions{Era: Modern, ProtocolVersion: pin},
			Mount{Protocol: draft, Handler: struct{}{}}, Mount{Protocol: published, Handler: struct{}{}})
		if err != nil {
			t.Fatalf("pin %q: %v", pin, err)
		}
		want := pin
		if want == "" {
			want = "2026-07-28"
		}
		if cs.ProtocolVersion() != want {
			t.Errorf("pin %q: negotiated %s, want %s", pin, cs.ProtocolVersion(), want)
		}
		cs.Close()
	}
}
