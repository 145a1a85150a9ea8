package redis

import "time"

// Options configures the stores. The zero value uses the defaults.
type Options struct {
	// Prefix starts every key (default "mcpgen:").
	Prefix string
	// PerStream is about how many events of one SSE stream are kept
	// (default 1000; Redis trims approximately).
	PerStream int64
	// TTL is how long a session's events are kept after its last event
	// (default 1 hour).
	TTL time.Duration
}

func (o Options) prefix() string {
	if o.Prefix == "" {
		return "mcpgen:"
	}
	return o.Prefix
}

func (o Options) perStream() int64 {
	if o.PerStream <= 0 {
		return 1000
	}
	return o.PerStream
}

func (o Options) ttl() time.Duration {
	if o.TTL <= 0 {
		return time.Hour
	}
	return o.TTL
}
