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

// Cluster is a running Redis Cluster: masters, and replicas when
// StartClusterWithReplicas started it.
type Cluster struct {
	// Nodes are its servers: the masters first, then their replicas
	// (replica i of master m is Nodes[masters+m*perMaster+i]).
	Nodes []*Server
	t     *testing.T
	// masters is how many of Nodes began as masters.
	masters int
}

// StartCluster starts a Redis Cluster of n masters (each a redis-server
// on 127.0.0.1, a free port and a temporary directory, without
// persistence), assigns them the 16384 slots in equal ranges, joins them
// and waits until the cluster is ok; the servers stop when t ends.
func StartCluster(t *testing.T, n int) *Cluster {
	return StartClusterWithReplicas(t, n, 0)
}

// clusterArgs are the arguments of a cluster node: a failover begins 1 s
// after a master stops answering.
var clusterArgs = append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000"}, noPersistence...)

// StartClusterWithReplicas starts a Redis Cluster of n masters, as
// StartCluster does, each with perMaster replicas (redis-servers of their
// own) that take over when it fails; it waits until every replica is in
// sync with its master.
func StartClusterWithReplicas(t *testing.T, n, perMaster int) *Cluster {
	t.Helper()
	requireRedis(t)
	c := &Cluster{t: t, masters: n}
	for range n {
		c.Nodes = append(c.Nodes, startWith(t, clusterArgs))
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
	c.await(n)
	if perMaster == 0 {
		return c
	}
	for m := range n {
		id := c.nodeID(c.Nodes[m])
		for range perMaster {
			r := startWith(t, clusterArgs)
			c.Nodes = append(c.Nodes, r)
			host, port, _ := net.SplitHostPort(r.Addr)
			first := goredis.NewClient(&goredis.Options{Addr: c.Nodes[0].Addr})
			if err := first.ClusterMeet(ctx, host, port).Err(); err != nil {
				t.Fatalf("redis cluster: meeting %s: %v", r.Addr, err)
			}
			first.Close()
			rc := goredis.NewClient(&goredis.Options{Addr: r.Addr})
			// The replica must know its master before it may follow it.
			deadline := time.Now().Add(20 * time.Second)
			for {
				err := rc.Do(ctx, "CLUSTER", "REPLICATE", id).Err()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("redis cluster: %s replicating %s: %v", r.Addr, c.Nodes[m].Addr, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
			rc.Close()
		}
	}
	c.await(len(c.Nodes))
	for _, r := range c.Nodes[n:] {
		rc := goredis.NewClient(&goredis.Options{Addr: r.Addr})
		deadline := time.Now().Add(20 * time.Second)
		for {
			info, err := rc.Info(ctx, "replication").Result()
			if err == nil && strings.Contains(info, "master_link_status:up") && !strings.Contains(info, "master_sync_in_progress:1") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redis cluster: replica %s not in sync: %s %v", r.Addr, info, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		rc.Close()
	}
	return c
}

// await waits until every node says the cluster is ok and knows n nodes.
func (c *Cluster) await(n int) {
	c.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for _, node := range c.Nodes {
		cl := goredis.NewClient(&goredis.Options{Addr: node.Addr})
		for {
			info, err := cl.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(n)) {
				break
			}
			if time.Now().After(deadline) {
				c.t.Fatalf("redis cluster: %s is not ok: %s %v", node.Addr, info, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cl.Close()
	}
}

// nodeID is the cluster id of node.
func (c *Cluster) nodeID(node *Server) string {
	c.t.Helper()
	cl := goredis.NewClient(&goredis.Options{Addr: node.Addr})
	defer cl.Close()
	id, err := cl.Do(context.Background(), "CLUSTER", "MYID").Text()
	if err != nil {
		c.t.Fatalf("redis cluster: CLUSTER MYID of %s: %v", node.Addr, err)
	}
	return id
}

// MasterOf is the node serving key's slot now, as the live nodes say.
func (c *Cluster) MasterOf(key string) *Server {
	c.t.Helper()
	ctx := context.Background()
	for _, node := range c.Nodes {
		if node.cmd == nil {
			continue
		}
		cl := goredis.NewClient(&goredis.Options{Addr: node.Addr})
		slot, err := cl.ClusterKeySlot(ctx, key).Result()
		var slots []goredis.ClusterSlot
		if err == nil {
			slots, err = cl.ClusterSlots(ctx).Result()
		}
		cl.Close()
		if err != nil {
			continue
		}
		for _, s := range slots {
			if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 0 {
				for _, n := range c.Nodes {
					if n.Addr == s.Nodes[0].Addr {
						return n
					}
				}
			}
		}
	}
	c.t.Fatalf("redis cluster: no live node serves the slot of %q", key)
	return nil
}

// Sync waits until every replica has what its master acknowledged so far
// (WAIT on each live master), so that a failover after it loses nothing.
func (c *Cluster) Sync() {
	c.t.Helper()
	ctx := context.Background()
	for _, node := range c.Nodes {
		if node.cmd == nil {
			continue
		}
		cl := goredis.NewClient(&goredis.Options{Addr: node.Addr})
		info, err := cl.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "role:master") && !strings.Contains(info, "connected_slaves:0") {
			err = cl.Wait(ctx, 1, 5*time.Second).Err()
		}
		cl.Close()
		if err != nil {
			c.t.Fatalf("redis cluster: syncing %s: %v", node.Addr, err)
		}
	}
}

// AwaitFailover waits until the cluster is ok again without node (a
// master killed: one of its replicas took over).
func (c *Cluster) AwaitFailover(node *Server) {
	c.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for _, n := range c.Nodes {
		if n == node || n.cmd == nil {
			continue
		}
		cl := goredis.NewClient(&goredis.Options{Addr: n.Addr})
		for {
			info, err := cl.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && !servesSlots(ctx, cl, node.Addr) {
				break
			}
			if time.Now().After(deadline) {
				c.t.Fatalf("redis cluster: no failover of %s within 30 s: %s says %s %v", node.Addr, n.Addr, info, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cl.Close()
	}
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

// servesSlots reports whether cl's node still names addr the master of
// some slots.
func servesSlots(ctx context.Context, cl *goredis.Client, addr string) bool {
	slots, err := cl.ClusterSlots(ctx).Result()
	if err != nil {
		return true
	}
	for _, s := range slots {
		if len(s.Nodes) > 0 && s.Nodes[0].Addr == addr {
			return true
		}
	}
	return false
}

// URL is the address of the cluster for bin/everything --redis-cluster
// (go-redis's cluster URL: one node, the others as addr parameters).
func (c *Cluster) URL() string {
	u := "redis://" + c.Nodes[0].Addr
	for i, n := range c.Nodes[1:] {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += sep + "addr=" + n.Addr
	}
	return u
}
