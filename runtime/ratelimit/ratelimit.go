// Package ratelimit limits the requests a server serves per client: a
// token bucket per principal (or, for unauthenticated clients, per
// address), installed as one middleware (ServerOptions.Middleware), with
// an optional cost per tool. A request over the limit is refused with
// Code (-32010, in the range MCP leaves to
// implementations) and the time to wait in its data; over Streamable HTTP
// it is a 429 with Retry-After.
//
// Memory limits in this process; instances behind a load balancer share a
// Limiter in Redis (runtime/store/redis: NewRateLimiter), so that more
// instances do not multiply a client's quota.
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Limit is a token bucket: Rate tokens a second refill it, up to Burst.
// A request spends its cost (1 unless Options.Cost says otherwise).
type Limit struct {
	Rate  float64
	Burst float64
}

// String describes the limit: "10 requests/s, burst 20".
func (l Limit) String() string {
	return strconv.FormatFloat(l.Rate, 'g', -1, 64) + " requests/s, burst " + strconv.FormatFloat(l.Burst, 'g', -1, 64)
}

// Limiter decides whether a client may spend cost now.
type Limiter interface {
	// Take spends cost from key's bucket and returns 0, or, when the
	// bucket does not hold enough, spends nothing and returns how long
	// until it will.
	Take(ctx context.Context, key string, cost float64) (retryAfter time.Duration, err error)
}

// Options configure the middleware.
type Options struct {
	// Limit is the bucket of each client.
	Limit Limit
	// Limiter keeps the buckets (default: NewMemory(Limit), this process).
	Limiter Limiter
	// Key names the client of a request (default: "principal " and its
	// principal when it has one, else "address " and the address its
	// transport sees, else "connection": stdio, whose one client is the
	// connection).
	Key func(m *mcp.Message) string
	// Cost is what a request spends (default 1); see ToolCosts.
	Cost func(m *mcp.Message) float64
	// Logger gets a line when the Limiter fails; the request is then
	// served (failing open: a store outage does not stop the service).
	Logger *slog.Logger
}

// ToolCosts is an Options.Cost charging tools/call of the tools named in
// costs their cost, and every other request 1.
func ToolCosts(costs map[string]float64) func(m *mcp.Message) float64 {
	return func(m *mcp.Message) float64 {
		if c, ok := costs[m.Name()]; ok && m.Role() == protocol.RoleToolsCall {
			return c
		}
		return 1
	}
}

// Middleware limits the incoming requests of each client (notifications
// and the server's own messages are not counted).
func Middleware(o Options) mcp.Middleware {
	if o.Limiter == nil {
		o.Limiter = NewMemory(o.Limit)
	}
	if o.Key == nil {
		o.Key = DefaultKey
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	desc := o.Limit.String()
	return func(next mcp.MessageHandler) mcp.MessageHandler {
		return func(ctx context.Context, m *mcp.Message) (wire.Marshaler, error) {
			if m.Outgoing() || m.IsNotification() {
				return next(ctx, m)
			}
			cost := 1.0
			if o.Cost != nil {
				cost = o.Cost(m)
			}
			wait, err := o.Limiter.Take(ctx, o.Key(m), cost)
			if err != nil {
				o.Logger.Warn("ratelimit: the limiter failed; serving the request", "err", err)
			} else if wait > 0 {
				return nil, Refused(desc, wait)
			}
			return next(ctx, m)
		}
	}
}

// DefaultKey is the default Options.Key.
func DefaultKey(m *mcp.Message) string {
	if p := m.Principal(); p != "" {
		return "principal " + p
	}
	if c := m.Client(); c != "" {
		return "address " + c
	}
	return "connection"
}

// Memory is a Limiter in this process: a bucket per key, the full ones
// forgotten (a full bucket is no different from none) once there are
// MaxKeys.
type Memory struct {
	limit   Limit
	maxKeys int
	now     func() time.Time

	mu      sync.Mutex
	buckets map[string]bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// DefaultMaxKeys bounds the buckets NewMemory keeps before it forgets the
// full ones.
const DefaultMaxKeys = 100_000

// NewMemory returns a Memory limiter with limit for each key.
func NewMemory(limit Limit) *Memory {
	return &Memory{limit: limit, maxKeys: DefaultMaxKeys, now: time.Now, buckets: map[string]bucket{}}
}

// Take implements Limiter.
func (l *Memory) Take(_ context.Context, key string, cost float64) (time.Duration, error) {
	if l.limit.Rate <= 0 {
		return 0, fmt.Errorf("ratelimit: the limit's rate is %v", l.limit.Rate)
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = bucket{tokens: l.limit.Burst, at: now}
		if len(l.buckets) >= l.maxKeys {
			l.forgetFullLocked(now)
		}
	}
	tokens, wait := Refill(l.limit, b.tokens, now.Sub(b.at), cost)
	if wait > 0 {
		l.buckets[key] = bucket{tokens: tokens, at: now}
		return wait, nil
	}
	l.buckets[key] = bucket{tokens: tokens - cost, at: now}
	return 0, nil
}

// forgetFullLocked drops the buckets that have refilled.
func (l *Memory) forgetFullLocked(now time.Time) {
	for k, b := range l.buckets {
		if t, _ := Refill(l.limit, b.tokens, now.Sub(b.at), 0); t >= l.limit.Burst {
			delete(l.buckets, k)
		}
	}
}

// Refill is the token bucket's arithmetic, shared by the limiters: the
// tokens a bucket of limit holds elapsed after it held tokens, and, when
// they are fewer than cost, how long until they will not be (a cost over
// the burst can never be paid: it waits for a full bucket).
func Refill(limit Limit, tokens float64, elapsed time.Duration, cost float64) (float64, time.Duration) {
	tokens = math.Min(limit.Burst, tokens+elapsed.Seconds()*limit.Rate)
	need := math.Min(cost, limit.Burst)
	if tokens >= need {
		return tokens, 0
	}
	return tokens, time.Duration(math.Ceil((need - tokens) / limit.Rate * float64(time.Second)))
}
