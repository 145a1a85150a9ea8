package jsonrpc

import (
	"context"
	"time"
)

// detached is a context with the values of its parent but none of its
// cancellation or deadline, like context.WithoutCancel. Unlike the value
// that returns, it is a pointer, made once per Conn: a Value lookup that
// misses every handler context and reaches it (a principal, a logger, a
// trace span looked for by a handler) does not box it anew each time.
type detached struct{ parent context.Context }

func (*detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*detached) Done() <-chan struct{}       { return nil }
func (*detached) Err() error                  { return nil }
func (d *detached) Value(key any) any         { return d.parent.Value(key) }
