package lazyctx

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type key struct{}

var errWhy = errors.New("why")

// closed reports whether ch is closed now.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestCtx(t *testing.T) {
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		watch     bool
		deadline  time.Time
		askDone   bool // Done asked before the end
		parentEnd bool // the parent ends, rather than Cancel
		wantEnd   bool
		wantErr   error
		wantCause error
	}{
		{name: "Cancel, Done asked after", wantEnd: true, wantErr: context.Canceled, wantCause: errWhy},
		{name: "Cancel, Done asked before", askDone: true, wantEnd: true, wantErr: context.Canceled, wantCause: errWhy},
		{name: "Cancel of a watching context", watch: true, askDone: true, wantEnd: true, wantErr: context.Canceled, wantCause: errWhy},
		{name: "the parent's end, watched and asked", watch: true, askDone: true, parentEnd: true, wantEnd: true, wantErr: context.Canceled, wantCause: errWhy},
		{name: "the parent's end, watched, asked only after", watch: true, parentEnd: true, wantEnd: true, wantErr: context.Canceled, wantCause: errWhy},
		{name: "the parent's end, not watched", askDone: true, parentEnd: true},
		{name: "own deadline", deadline: deadline, wantEnd: true, wantErr: context.Canceled, wantCause: errWhy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent, cancelParent := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
			defer cancelParent(nil)
			var c Ctx
			c.Init(parent, tc.deadline, tc.watch)
			if got := c.Value(key{}); got != "v" {
				t.Errorf("Value = %v, want the parent's v", got)
			}
			if d, ok := c.Deadline(); ok != !tc.deadline.IsZero() || !d.Equal(tc.deadline) {
				t.Errorf("Deadline = %v, %v; want %v", d, ok, tc.deadline)
			}
			if c.Err() != nil || context.Cause(&c) != nil {
				t.Fatalf("before the end: Err %v, Cause %v", c.Err(), context.Cause(&c))
			}
			var done <-chan struct{}
			if tc.askDone {
				done = c.Done()
				if closed(done) {
					t.Fatal("Done closed before the end")
				}
			}
			if tc.parentEnd {
				cancelParent(errWhy)
			} else {
				c.Cancel(context.Canceled, errWhy)
			}
			if !tc.wantEnd {
				if c.Err() != nil || closed(done) {
					t.Fatalf("ended by a parent it does not watch: Err %v", c.Err())
				}
				return
			}
			// Err follows at once; Done closes once the parent's end
			// reaches it (at once, when Cancel ended it).
			if err := c.Err(); err != tc.wantErr {
				t.Errorf("Err = %v, want %v", err, tc.wantErr)
			}
			if done == nil {
				done = c.Done()
			}
			<-done
			if !closed(c.Done()) {
				t.Error("a later Done is not closed")
			}
			if err := c.Err(); err != tc.wantErr {
				t.Errorf("Err after Done = %v, want %v", err, tc.wantErr)
			}
			if got := context.Cause(&c); got != tc.wantCause {
				t.Errorf("Cause = %v, want %v", got, tc.wantCause)
			}
			if got := c.Value(key{}); got != "v" {
				t.Errorf("Value after the end = %v, want the parent's v", got)
			}
			// A context derived after the end ends at once, with c's cause.
			d, stop := context.WithCancel(&c)
			defer stop()
			if !closed(d.Done()) || context.Cause(d) != tc.wantCause {
				t.Errorf("derived after the end: done %v, cause %v", closed(d.Done()), context.Cause(d))
			}
		})
	}
}

// TestDerived: contexts derived from a Ctx follow its end (through
// AfterFunc, the hook the context package looks for), and their
// functions' stop works.
func TestDerived(t *testing.T) {
	for _, watch := range []bool{false, true} {
		parent, cancelParent := context.WithCancel(context.Background())
		var c Ctx
		c.Init(parent, time.Time{}, watch)
		d, stopD := context.WithTimeout(&c, time.Hour)
		ran := make(chan struct{})
		context.AfterFunc(&c, func() { close(ran) })
		never := context.AfterFunc(&c, func() { t.Error("a stopped function ran") })
		if !never() {
			t.Fatal("stop of a registered function = false")
		}
		if closed(d.Done()) {
			t.Fatal("derived context ended early")
		}
		if watch {
			cancelParent()
		} else {
			c.Cancel(context.Canceled, errWhy)
		}
		<-d.Done()
		<-ran
		if d.Err() != context.Canceled {
			t.Errorf("watch %v: derived Err = %v", watch, d.Err())
		}
		if !watch && context.Cause(d) != errWhy {
			t.Errorf("derived Cause = %v, want %v", context.Cause(d), errWhy)
		}
		if never() {
			t.Error("stop after the end = true")
		}
		stopD()
		cancelParent()
	}
}

// TestParentEndedFirst: a watching context whose parent ended before it
// was made is ended as soon as anything asks.
func TestParentEndedFirst(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	cancelParent()
	var c Ctx
	c.Init(parent, time.Time{}, true)
	if c.Err() != context.Canceled {
		t.Errorf("Err = %v", c.Err())
	}
	if !closed(c.Done()) {
		t.Error("Done of a context whose parent ended is open")
	}
	var b Ctx
	b.Init(parent, time.Time{}, true)
	ran := make(chan struct{})
	b.AfterFunc(func() { close(ran) })
	<-ran
}

// TestFree: a request that asks for nothing but its values costs nothing
// beyond the Ctx itself, even under a cancelable parent.
func TestFree(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	defer cancelParent()
	c := new(Ctx)
	allocs := testing.AllocsPerRun(100, func() {
		*c = Ctx{}
		c.Init(parent, time.Time{}, true)
		_ = c.Value(key{})
		_ = c.Err()
		c.Cancel(context.Canceled, nil)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per request, want 0", allocs)
	}
}

// TestConcurrent runs Done, AfterFunc, Value, Err and both ends at once
// (for -race): one end wins, and every registered function runs once.
func TestConcurrent(t *testing.T) {
	for range 50 {
		parent, cancelParent := context.WithCancel(context.Background())
		var c Ctx
		c.Init(parent, time.Time{}, true)
		var wg, ran sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			ran.Add(1)
			go func() {
				defer wg.Done()
				switch i % 4 {
				case 0:
					<-c.Done()
					ran.Done()
				case 1:
					c.AfterFunc(ran.Done)
				case 2:
					_ = c.Value(key{})
					_ = c.Err()
					ran.Done()
				case 3:
					cancelParent()
					ran.Done()
				}
			}()
		}
		c.Cancel(context.Canceled, nil)
		wg.Wait()
		ran.Wait()
		cancelParent()
		if err := c.Err(); err != context.Canceled {
			t.Fatalf("Err = %v", err)
		}
	}
}
