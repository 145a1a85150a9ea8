package redis

import (
	"bytes"
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/mcp"
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
	return subscribe(ctx, r.c, r.channel(), func(payload []byte) {
		if sid, msg, found := bytes.Cut(payload, []byte{'\n'}); found {
			deliver(string(sid), msg)
		}
	})
}

// Broadcast is an mcp.Broadcast on Redis pub/sub: every instance's list
// changes and resource updates on one channel. Like the Relay it keeps
// nothing: an instance that is down when an announcement goes out does
// not hear of it.
type Broadcast struct {
	c goredis.UniversalClient
	o Options
}

var _ mcp.Broadcast = (*Broadcast)(nil)

// NewBroadcast returns a Broadcast on c.
func NewBroadcast(c goredis.UniversalClient, o Options) *Broadcast { return &Broadcast{c: c, o: o} }

func (b *Broadcast) channel() string { return b.o.prefix() + "announce" }

// Publish implements mcp.Broadcast.
func (b *Broadcast) Publish(ctx context.Context, msg []byte) error {
	if err := b.c.Publish(ctx, b.channel(), msg).Err(); err != nil {
		return fmt.Errorf("redis broadcast: %w", err)
	}
	return nil
}

// Subscribe implements mcp.Broadcast.
func (b *Broadcast) Subscribe(ctx context.Context, deliver func(msg []byte)) error {
	return subscribe(ctx, b.c, b.channel(), deliver)
}

// subscribe subscribes to channel and calls deliver with each payload
// from a goroutine until ctx ends; it returns once Redis confirmed.
func subscribe(ctx context.Context, c goredis.UniversalClient, channel string, deliver func(payload []byte)) error {
	sub := c.Subscribe(ctx, channel)
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return fmt.Errorf("redis subscribe %s: %w", channel, err)
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
				deliver([]byte(m.Payload))
			}
		}
	}()
	return nil
}
