package redis

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/ratelimit"
)

// RateLimiter is a ratelimit.Limiter in Redis: a token bucket per client
// in a hash (its tokens and when it last changed), updated by one script
// on Redis's clock, so that instances sharing it share each client's
// quota: more instances do not multiply it. A bucket's key expires once
// it would be full again.
type RateLimiter struct {
	c     goredis.UniversalClient
	o     Options
	limit ratelimit.Limit
}

var _ ratelimit.Limiter = (*RateLimiter)(nil)

// NewRateLimiter returns a RateLimiter on c with limit for each client.
func NewRateLimiter(c goredis.UniversalClient, o Options, limit ratelimit.Limit) *RateLimiter {
	return &RateLimiter{c: c, o: o, limit: limit}
}

// takeScript spends ARGV[3] tokens of the bucket KEYS[1] (rate ARGV[1],
// burst ARGV[2]) and returns "0", or spends nothing and returns the
// seconds to wait.
var takeScript = goredis.NewScript(`
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local need = math.min(cost, burst)
local wait = 0
if tokens < need then wait = (need - tokens) / rate else tokens = tokens - cost end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return tostring(wait)`)

// Take implements ratelimit.Limiter.
func (l *RateLimiter) Take(ctx context.Context, key string, cost float64) (time.Duration, error) {
	if l.limit.Rate <= 0 {
		return 0, fmt.Errorf("redis rate limiter: the limit's rate is %v", l.limit.Rate)
	}
	k := l.o.prefix() + "rl:{" + key + "}"
	s, err := takeScript.Run(ctx, l.c, []string{k}, l.limit.Rate, l.limit.Burst, cost).Text()
	if err != nil {
		return 0, fmt.Errorf("redis rate limiter: %w", err)
	}
	wait, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("redis rate limiter: %q: %w", s, err)
	}
	if wait <= 0 {
		return 0, nil
	}
	return time.Duration(math.Ceil(wait * float64(time.Second))), nil
}
