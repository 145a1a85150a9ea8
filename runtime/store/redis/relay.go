package redis

import (
	"bytes"
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Relay is a streamhttp.Relay on Redis pub/sub: one channel for all
// instances; each message is the session id, a newline and the response,
// delivered by the instance whose session waits for it. Pub/sub keeps
// nothing: a response published while no instance listens is lost, and
// the request waiting for it times out as a lost response would.
type Relay struct {
	c goredis.UniversalClient
	o Options
}

var _ streamhttp.Relay = (*Relay)(nil)

// NewRelay returns a Relay on c.
func NewRelay(c goredis.UniversalClient, o Options) *Relay { return &Relay{c: c, o: o} }

func (r *Relay) channel() string { return r.o.prefix() + "relay" }

// Publish implements streamhttp.Relay.
func (r *Relay) Publish(ctx context.Context, session string, msg []byte) error {
	payload := make([]byte, 0, len(session)+1+len(msg))
	payload = append(append(append(payload, session...), '\n'), msg...)
	if err := r.c.Publish(ctx, r.channel(), payload).Err(); err != nil {
		return fmt.Errorf("redis relay: %w", err)
	}
	return nil
}

// Subscribe implements streamhttp.Relay: it returns once Redis confirmed
// the subscription, and delivers from a goroutine until ctx ends (go-redis
// resubscribes after a reconnection).
func (r *Relay) Subscribe(ctx context.Context, deliver func(session string, msg []byte)) error {
	sub := r.c.Subscribe(ctx, r.channel())
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return fmt.Errorf("redis relay: %w", err)
	}
	go func() {
		defer sub.Close()
		ch := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				sid, msg, found := bytes.Cut([]byte(m.Payload), []byte{'\n'})
				if found {
					deliver(string(sid), msg)
				}
			}
		}
	}()
	return nil
}
