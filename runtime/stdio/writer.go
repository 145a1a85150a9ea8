package stdio

import (
	"io"
	"sync"
)

// maxPending is how much output may wait behind a write under way before
// writers of more wait for it: a peer that does not read holds them up
// instead of making the buffer grow without bound.
const maxPending = 1 << 20

// lineWriter writes lines to w from any number of goroutines, coalescing:
// a message is appended to a buffer under a short lock, and one goroutine
// at a time (the flusher) writes out what is buffered with the lock
// released, then whatever was appended meanwhile, until nothing is left.
// So a goroutine adding a message while a write is under way does not wait
// for the write (the system call) when it posts, and a burst of messages
// costs one system call per round instead of one each.
//
// The first write error is kept: every later operation returns it, as a
// stream that failed in the middle of a line cannot carry another.
type lineWriter struct {
	w io.Writer

	mu       sync.Mutex
	cond     sync.Cond // signalled when a flush ends a round
	buf      []byte    // appended, not yet being written
	spare    []byte    // the other buffer, reused (made by the first round written)
	flushing bool      // a goroutine is writing (rounds go on while buf fills)
	waiters  int       // goroutines waiting on cond
	added    uint64    // bytes appended so far
	written  uint64    // bytes written (or given up on after an error) so far
	err      error     // the first write error
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: w, buf: make([]byte, 0, writeBufSize)}
	lw.cond.L = &lw.mu
	return lw
}

// add appends msg and a newline (under mu) and returns the position the
// output reaches with it; a writer posting while a full buffer waits behind
// a write waits for that write first.
func (lw *lineWriter) add(msg []byte) (uint64, error) {
	for lw.flushing && len(lw.buf) >= maxPending && lw.err == nil {
		lw.wait()
	}
	if lw.err != nil {
		return 0, lw.err
	}
	lw.buf = append(lw.buf, msg...)
	lw.buf = append(lw.buf, '\n')
	lw.added += uint64(len(msg)) + 1
	return lw.added, nil
}

func (lw *lineWriter) wait() {
	lw.waiters++
	lw.cond.Wait()
	lw.waiters--
}

// post appends msg and a newline and sees it written: by this goroutine,
// or, when a write is under way, by the goroutine writing, which goes on
// until nothing is buffered. It does not wait for a write under way, so it
// returns only the error of writes it made itself or of earlier ones.
func (lw *lineWriter) post(msg []byte) error {
	lw.mu.Lock()
	if _, err := lw.add(msg); err != nil {
		lw.mu.Unlock()
		return err
	}
	if lw.flushing {
		lw.mu.Unlock()
		return nil
	}
	return lw.flushLocked()
}

// write appends msg and a newline and returns once they are written,
// with the error of the write that carried them.
func (lw *lineWriter) write(msg []byte) error {
	lw.mu.Lock()
	end, err := lw.add(msg)
	if err != nil {
		lw.mu.Unlock()
		return err
	}
	return lw.syncLocked(end)
}

// flush returns once everything buffered before it is written.
func (lw *lineWriter) flush() error {
	lw.mu.Lock()
	return lw.syncLocked(lw.added)
}

// syncLocked sees the output written up to end, waiting for a write under
// way rather than starting one; it unlocks mu.
func (lw *lineWriter) syncLocked(end uint64) error {
	for lw.flushing && lw.written < end && lw.err == nil {
		lw.wait()
	}
	if lw.written >= end || lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	return lw.flushLocked()
}

// flushLocked writes out rounds of what is buffered until nothing is,
// releasing mu during each write; it unlocks mu.
func (lw *lineWriter) flushLocked() error {
	lw.flushing = true
	for len(lw.buf) > 0 && lw.err == nil {
		out := lw.buf
		lw.buf = lw.spare[:0]
		lw.mu.Unlock()
		_, err := lw.w.Write(out)
		lw.mu.Lock()
		if cap(out) <= keepBuf {
			lw.spare = out[:0]
		} else {
			lw.spare = nil
		}
		lw.written += uint64(len(out))
		if err != nil {
			lw.err = err
			lw.written = lw.added // nothing more is written
			lw.buf = lw.buf[:0]
		}
		if lw.waiters > 0 {
			lw.cond.Broadcast()
		}
	}
	lw.flushing = false
	if lw.waiters > 0 {
		lw.cond.Broadcast()
	}
	err := lw.err
	lw.mu.Unlock()
	return err
}
