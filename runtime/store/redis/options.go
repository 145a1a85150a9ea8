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
	// ResumePerOwner bounds the resumable operations whose tokens live
	// (in progress, or completed and still remembered) of one owner
	// (resume.Owner: a principal, else a client address) in a ResumeStore
	// (default 262,144: about 440 operations a second per client with the
	// default 10-minute token TTL, some 25 MB of Redis at worst).
	ResumePerOwner int
}

// defaultResumePerOwner is ResumePerOwner's default.
const defaultResumePerOwner = 1 << 18

func (o Options) resumePerOwner() int {
	if o.ResumePerOwner <= 0 {
		return defaultResumePerOwner
	}
	return o.ResumePerOwner
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
