package jsonrpc_test

import (
	"context"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// pipeEnd is one end of an in-memory message pipe: messages are copied into
// recycled buffers, so the pipe itself allocates nothing in steady state.
type pipeEnd struct {
	in, out    chan []byte
	free       chan []byte // buffers for out
	peerFree   chan []byte // where used in buffers go back
	last       []byte
	done       chan struct{}
	closeOnce  *sync.Once
	closedPeer chan struct{}
}

func memPipe() (a, b *pipeEnd) {
	ab, ba := make(chan []byte, 256), make(chan []byte, 256)
	freeA, freeB := make(chan []byte, 512), make(chan []byte, 512)
	done := make(chan struct{})
	once := new(sync.Once)
	a = &pipeEnd{in: ba, out: ab, free: freeA, peerFree: freeB, done: done, closeOnce: once}
	b = &pipeEnd{in: ab, out: ba, free: freeB, peerFree: freeA, done: done, closeOnce: once}
	return a, b
}

func (p *pipeEnd) ReadMessage(ctx context.Context) ([]byte, error) {
	if p.last != nil {
		select {
		case p.peerFree <- p.last[:0]:
		default:
		}
		p.last = nil
	}
	select {
	case m := <-p.in:
		p.last = m
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		return nil, io.EOF
	}
}

func (p *pipeEnd) WriteMessage(_ context.Context, msg []byte) error {
	var buf []byte
	select {
	case buf = <-p.free:
	default:
	}
	buf = append(buf, msg...)
	select {
	case p.out <- buf:
		return nil
	case <-p.done:
		return jsonrpc.ErrClosed
	}
}

func (p *pipeEnd) Close() error {
	p.closeOnce.Do(func() { close(p.done) })
	return nil
}

type benchParams struct{ Text string }

func (p *benchParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"text":`)
	e.Str(p.Text)
	e.ObjectEnd()
}

// DecodeJSON reads {"text":...} without allocating when the text is unchanged.
func (p *benchParams) DecodeJSON(d *wire.Decoder) error {
	return d.Object(func(k []byte) error {
		if string(k) != "text" {
			return d.Skip()
		}
		b, err := d.StrBytes()
		if string(b) != p.Text {
			p.Text = string(b)
		}
		return err
	})
}

var benchMux = mux{"echo": echo}

type pair struct {
	client, server *jsonrpc.Conn
	wg             sync.WaitGroup
}

// transport kinds for newPairW.
const (
	trMem    = iota // memPipe: the engine alone
	trStdio         // stdio framing over io.Pipe (synchronous hand-off)
	trOSPipe        // stdio framing over OS pipes, as a real stdio server
)

func newPair(b *testing.B, tr int) *pair {
	var ca, cb jsonrpc.Stream
	switch tr {
	case trStdio:
		ar, bw := io.Pipe()
		br, aw := io.Pipe()
		ca, cb = newStdio(ar, aw), newStdio(br, bw)
	case trOSPipe:
		ar, bw, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		br, aw, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		ca, cb = newStdio(ar, aw), newStdio(br, bw)
	default:
		ca, cb = memPipe()
	}
	p := &pair{
		client: jsonrpc.NewConn(ca, nil, jsonrpc.Options{}),
		server: jsonrpc.NewConn(cb, benchMux, jsonrpc.Options{}),
	}
	for _, c := range []*jsonrpc.Conn{p.client, p.server} {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			c.Serve(context.Background())
		}()
	}
	b.Cleanup(func() {
		p.client.Close()
		p.server.Close()
		p.wg.Wait()
	})
	return p
}

func BenchmarkRoundTrip(b *testing.B) {
	for _, tr := range []struct {
		name string
		tr   int
	}{{"mem", trMem}, {"iopipe", trStdio}, {"ospipe", trOSPipe}} {
		b.Run(tr.name+"/sequential", func(b *testing.B) {
			p := newPair(b, tr.tr)
			in := benchParams{Text: "hello"}
			out := benchParams{Text: "hello"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := p.client.Call(ctx, "echo", &in, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tr.name+"/parallel", func(b *testing.B) {
			p := newPair(b, tr.tr)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(8) // 16 callers on 2 CPUs
			b.RunParallel(func(pb *testing.PB) {
				in := benchParams{Text: "hello"}
				out := benchParams{Text: "hello"}
				for pb.Next() {
					if err := p.client.Call(ctx, "echo", &in, &out); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkServe measures the server side alone: requests written into the
// stream, responses read back, no client Conn.
func BenchmarkServe(b *testing.B) {
	ca, cb := memPipe()
	server := jsonrpc.NewConn(cb, benchMux, jsonrpc.Options{})
	done := make(chan struct{})
	go func() { server.Serve(context.Background()); close(done) }()
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hello"}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := ca.WriteMessage(ctx, req); err != nil {
			b.Fatal(err)
		}
		if _, err := ca.ReadMessage(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	server.Close()
	<-done
}
