package streamhttp

import "sync/atomic"

// workers runs the handlers of stateful requests that cannot run on their
// POST's goroutine — those of a batch, which run side by side, and those
// of the HTTP+SSE transport, whose POST is answered at once — on parked
// goroutines rather than on a new goroutine each, as jsonrpc.Conn does for
// stdio: a parked goroutine keeps the stack the previous request grew (loop
// keeps a garbage collection from shrinking it), where a new one grows its
// stack again on every request (runtime.newstack under the tools of
// examples/everything).
type workers struct {
	idle chan func()     // hands a function to a parked worker
	n    atomic.Int32    // parked workers
	quit <-chan struct{} // closed by Handler.Close: parked workers exit
}

// maxIdleWorkers is how many finished workers a Handler keeps parked: as
// many requests in flight at once start no goroutine; a few hundred KB of
// stacks at most.
const maxIdleWorkers = 64

func newWorkers(quit <-chan struct{}) *workers {
	return &workers{idle: make(chan func()), quit: quit}
}

// run runs f on a parked worker, or on a new one.
func (w *workers) run(f func()) {
	select {
	case w.idle <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then parks for the next function unless enough workers are
// parked already.
//
// A parked worker keeps its stack only if it uses a quarter of it: a
// garbage collection halves the stack of a goroutine that uses less, and
// the next request then grows it again, copying it (runtime.newstack and
// copystack, some percent of a stateful request's CPU). So the worker
// parks under a reserve of stack (workerReserve), which keeps an 8 KiB
// stack, the size a request's handling grows it to, from being halved.
func (w *workers) loop(f func()) {
	var reserve [workerReserve]byte
	keepStack(&reserve)
	for {
		f()
		if w.n.Add(1) > maxIdleWorkers {
			w.n.Add(-1)
			return
		}
		select {
		case f = <-w.idle:
			w.n.Add(-1)
		case <-w.quit:
			w.n.Add(-1)
			return
		}
	}
}

// workerReserve is the stack a parked worker holds under it: with the
// runtime's frames of a parked goroutine, above a quarter of 8 KiB, and
// small enough that the handling of a request (the engine, a generated
// decoder and a handler: about 3.5 KiB for an echo tool) still fits in
// 8 KiB beside it.
const workerReserve = 2 << 10

// keepStack keeps the reserve a frame of the caller (an array nobody
// reads would be left out).
//
//go:noinline
func keepStack(*[workerReserve]byte) {}
