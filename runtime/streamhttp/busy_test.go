package streamhttp

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPerClientCount enters and leaves from many goroutines at once, on
// few clients (counted without the lock) and on clients whose first
// request begins as their last ends (the entry removed and made again):
// no client ever has more than the limit in progress and no entry
// outlives its client's last request; then, in one goroutine, refusal is
// exactly at the limit.
func TestPerClientCount(t *testing.T) {
	for _, tc := range []struct {
		name           string
		clients, limit int
	}{
		{"shared", 2, 3},
		{"churn", 64, 1},
		{"beyond the idle entries kept", 3 * idleClientEntries, 1},
		{"one", 1, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Handler{o: Options{MaxRequestsPerClient: tc.limit}, perClient: map[requesterKey]*busyCount{}}
			held := make([]atomic.Int32, tc.clients)
			var wg sync.WaitGroup
			var over atomic.Int32
			for g := range 16 {
				wg.Go(func() {
					for i := range 2000 {
						c := (g + i) % tc.clients
						key := requesterKey{'a', fmt.Sprint(c)}
						if !h.enter(key) {
							continue
						}
						if held[c].Add(1) > int32(tc.limit) {
							over.Add(1)
						}
						held[c].Add(-1)
						h.leave(key)
					}
				})
			}
			wg.Wait()
			if n := over.Load(); n > 0 {
				t.Errorf("%d times a client had more than %d requests in progress", n, tc.limit)
			}
			if n := h.busyClients(); n != 0 {
				t.Errorf("%d clients hold requests with none in progress", n)
			}
			// Each of the 16 goroutines may keep one entry on a count of
			// the entries it read just before another came.
			if n := len(h.perClient); n > idleClientEntries+16 {
				t.Errorf("%d entries left for %d idle clients: more than the %d kept", n, tc.clients, idleClientEntries)
			}
		})
	}
	h := &Handler{o: Options{MaxRequestsPerClient: 2}, perClient: map[requesterKey]*busyCount{}}
	key := requesterKey{'p', "alice"}
	if !h.enter(key) || !h.enter(key) || h.enter(key) {
		t.Fatal("the third request of a client limited to 2 was let in, or one of the first two refused")
	}
	if h.enter(requesterKey{'p', "bob"}) != true {
		t.Fatal("another client was refused")
	}
	h.leave(key)
	if !h.enter(key) {
		t.Fatal("a request after one ended was refused")
	}
}
