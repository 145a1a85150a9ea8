package redis

import (
	"context"
	"errors"
	"net"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// NewClient is a client for the stores from a URL, as programs take it
// on their command line: url names one node (redis://[user:pass@]host:port/db,
// rediss:// for TLS), or, with cluster set, any nodes of a Redis Cluster
// (redis://host:port?addr=host2:port2&addr=…; the others are
// discovered) — the other must be "". Unless the URL says max_retries, a
// command is retried once and a connection dialled once: a store fails
// fast (the server answers its client with an error) rather than
// waiting through go-redis's default retries. A Cluster client follows
// failovers (FollowFailovers).
func NewClient(url string, cluster bool) (goredis.UniversalClient, error) {
	if cluster {
		opt, err := goredis.ParseClusterURL(url)
		if err != nil {
			return nil, err
		}
		opt.DialerRetries = 1
		if !strings.Contains(url, "max_retries") {
			opt.MaxRetries = 1
		}
		c := goredis.NewClusterClient(opt)
		FollowFailovers(c)
		return c, nil
	}
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.DialerRetries = 1
	if !strings.Contains(url, "max_retries") {
		opt.MaxRetries = 1
	}
	return goredis.NewClient(opt), nil
}

// FollowFailovers makes c reload the Cluster's map of slots as soon as a
// command fails for anything but a missing key, instead of waiting for a
// MOVED reply or its periodic reload (go-redis reloads every 10 s): when
// a master dies and its replica takes over, the stores reach the new
// master within a second of the promotion rather than failing, for up to
// 10 s, against the address of the dead one. Reloads are coalesced
// (go-redis runs at most one at a time); a client of a healthy cluster
// never reloads because of it.
func FollowFailovers(c *goredis.ClusterClient) { c.AddHook(failoverHook{c}) }

type failoverHook struct{ c *goredis.ClusterClient }

func (h failoverHook) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		h.check(ctx, err)
		return conn, err
	}
}

func (h failoverHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		err := next(ctx, cmd)
		h.check(ctx, err)
		return err
	}
}

func (h failoverHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		err := next(ctx, cmds)
		h.check(ctx, err)
		return err
	}
}

// check asks for a reload after a failure that may mean the map changed:
// a network error, or the cluster saying it is down or moved.
func (h failoverHook) check(ctx context.Context, err error) {
	if err == nil || errors.Is(err, goredis.Nil) || ctx.Err() != nil {
		return
	}
	h.c.ReloadState(context.WithoutCancel(ctx))
}
