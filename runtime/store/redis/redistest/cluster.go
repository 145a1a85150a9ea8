package redistest

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Cluster is a running Redis Cluster of masters without replicas.
type Cluster struct {
	// Nodes are its servers.
	Nodes []*Server
	t     *testing.T
}

// StartCluster starts a Redis Cluster of n masters (each a redis-server
// on 127.0.0.1, a free port and a temporary directory, without
// persistence), assigns them the 16384 slots in equal ranges, joins them
// and waits until the cluster is ok; the servers stop when t ends.
func StartCluster(t *testing.T, n int) *Cluster {
	t.Helper()
	requireRedis(t)
	c := &Cluster{t: t}
	for range n {
		c.Nodes = append(c.Nodes, startWith(t, append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"}, noPersistence...)))
	}
	ctx := context.Background()
	for i, node := range c.Nodes {
		cl := goredis.NewClient(&goredis.Options{Addr: node.Addr})
		lo, hi := i*16384/n, (i+1)*16384/n-1
		if err := cl.ClusterAddSlotsRange(ctx, lo, hi).Err(); err != nil {
			t.Fatalf("redis cluster: slots %d-%d on %s: %v", lo, hi, node.Addr, err)
		}
		if i > 0 {
			host, port, _ := net.SplitHostPort(node.Addr)
			first := goredis.NewClient(&goredis.Options{Addr: c.Nodes[0].Addr})
			if err := first.ClusterMeet(ctx, host, port).Err(); err != nil {
				t.Fatalf("redis cluster: meeting %s: %v", node.Addr, err)
			}
			first.Close()
		}
		cl.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, node := range c.Nodes {
		cl := goredis.NewClient(&goredis.Options{Addr: node.Addr})
		for {
			info, err := cl.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(n)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redis cluster: %s is not ok: %s %v", node.Addr, info, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cl.Close()
	}
	return c
}

// Addrs are the addresses of its nodes.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr
	}
	return out
}

// Client returns a cluster client of it, closed when the test ends.
func (c *Cluster) Client() *goredis.ClusterClient {
	cl := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), DialTimeout: time.Second})
	c.t.Cleanup(func() { cl.Close() })
	return cl
}
