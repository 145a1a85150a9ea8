package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Broadcast shares a server's announcements — list changes and resource
// updates — with the other instances of the same server, so that a client
// attached to one instance (a stateful session's GET stream, a listen
// stream) hears of a change announced on another. Implementations must be
// safe for concurrent use (runtime/store/redis has one, on pub/sub).
type Broadcast interface {
	// Publish hands msg to every instance (the publisher's own copy is
	// dropped by the server).
	Publish(ctx context.Context, msg []byte) error
	// Subscribe calls deliver with every message published until ctx
	// ends; it returns once it receives.
	Subscribe(ctx context.Context, deliver func(msg []byte)) error
}

// The announcements on a Broadcast: "<instance>\n<kind>\n<argument>",
// kind "list" (argument tools, prompts or resources), "resource" (the
// URI), or the task kinds (the task id and what to hand its instance).
const (
	announceList       = "list"
	announceListTo     = "list-to"
	announceResource   = "resource"
	announceTaskCancel = "task-cancel"
	announceTaskUpdate = "task-update"
)

var listNames = map[ListKind]string{ToolsList: "tools", PromptsList: "prompts", ResourcesList: "resources"}

// startBroadcast subscribes to the other instances' announcements.
func (s *Server) startBroadcast() error {
	b := s.opts.Broadcast
	if b == nil {
		return nil
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	s.instance = hex.EncodeToString(id[:])
	ctx, cancel := context.WithCancel(context.Background())
	s.stopBroadcast = cancel
	return b.Subscribe(ctx, func(msg []byte) {
		from, rest, _ := strings.Cut(string(msg), "\n")
		kind, arg, _ := strings.Cut(rest, "\n")
		if from == s.instance {
			return
		}
		switch kind {
		case announceList:
			for k, name := range listNames {
				if name == arg {
					s.announceList(ctx, k)
				}
			}
		case announceListTo:
			parts := strings.Split(arg, "\x00")
			for k, name := range listNames {
				if name == parts[0] && len(parts) > 1 {
					s.announceListTo(ctx, k, parts[1:])
				}
			}
		case announceResource:
			s.announceResource(ctx, arg)
		case announceTaskCancel, announceTaskUpdate:
			s.applyTaskAnnouncement(ctx, kind, arg)
		}
	})
}

// broadcast tells the other instances of an announcement made here.
func (s *Server) broadcast(ctx context.Context, kind, arg string) {
	b := s.opts.Broadcast
	if b == nil {
		return
	}
	if err := b.Publish(context.WithoutCancel(ctx), []byte(s.instance+"\n"+kind+"\n"+arg)); err != nil {
		s.log.Error("mcp: broadcasting an announcement failed", "kind", kind, "arg", arg, "err", err)
	}
}

// Close stops what the server runs in the background (its subscription
// to the other instances' announcements). Sessions are the transports'.
func (s *Server) Close() {
	if s.stopBroadcast != nil {
		s.stopBroadcast()
	}
}
