package redis_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/store/redis"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
)

// TestMain starts the redis-server the examples use ($REDIS_URL).
func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }

// Several instances of a server share their rate limits through Redis:
// each principal's bucket is one key, whichever instance serves it. (The
// session, event, resume and task stores plug in the same way, through
// ServerOptions and streamhttp.Options.)
func ExampleNewRateLimiter() {
	ctx := context.Background()
	opt, err := goredis.ParseURL(os.Getenv("REDIS_URL"))
	if err != nil {
		panic(err)
	}
	client := goredis.NewClient(opt)
	defer client.Close()

	limit := ratelimit.Limit{Rate: 1, Burst: 2} // 1 call a second, 2 at once
	limiter := redis.NewRateLimiter(client, redis.Options{Prefix: "example:"}, limit)
	var opts mcp.ServerOptions
	opts.Middleware = append(opts.Middleware, ratelimit.Middleware(ratelimit.Options{Limit: limit, Limiter: limiter}))

	for i := range 3 {
		wait, err := limiter.Take(ctx, "alice", 1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("call %d: refused %v\n", i+1, wait > 0)
	}
	// Output:
	// call 1: refused false
	// call 2: refused false
	// call 3: refused true
}
