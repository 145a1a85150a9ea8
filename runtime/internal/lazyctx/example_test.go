package lazyctx_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/lazyctx"
)

// request is the record a server keeps of one request; its handler's
// context lives in it, so the request costs one allocation.
type request struct {
	id  int
	ctx lazyctx.Ctx
}

// Example embeds the context of a request's handler in the request's own
// record: it watches the connection's context (the client going away) only
// once the handler asks for Done, and the server ends it when the handler
// returns or the server shuts down.
func Example() {
	conn, closeConn := context.WithCancel(context.Background())
	defer closeConn()

	r := &request{id: 1}
	r.ctx.Init(conn, time.Time{}, true)
	result := make(chan error)
	go func(ctx context.Context) { // the handler: waits for its end
		<-ctx.Done() // the first Done starts watching conn
		result <- ctx.Err()
	}(&r.ctx)
	fmt.Println("before:", r.ctx.Err())
	closeConn() // the client went away
	fmt.Println("after:", <-result)
	r.ctx.Cancel(context.Canceled, nil) // the handler returned: ended already
	// Output:
	// before: <nil>
	// after: context canceled
}
