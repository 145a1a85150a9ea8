package streamhttp

import "sync/atomic"

// workers runs the handlers of stateful requests on parked goroutines
// rather than on a new goroutine each, as jsonrpc.Conn does for stdio: a
// parked goroutine keeps the stack the previous request grew (until a
// garbage collection shrinks it), where a new one grows its stack again on
// every request (runtime.newstack under the tools of examples/everything).
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
func (w *workers) loop(f func()) {
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
