package main

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// countCall makes one count_to call of n with token in the session's
// era and returns the page's text and the next token.
func countCall(ctx context.Context, cs *rt.ClientSession, n, token string) (string, string, error) {
	args := `{"n":` + n + `}`
	if cs.Stateless() {
		p := &v26.CallToolRequestParams{Name: "count_to", Arguments: v26.CallToolRequestParamsArguments(args), ResumeToken: optional(token)}
		r, err := v26.NewClient(cs).CallTool(ctx, p)
		if err != nil {
			return "", "", err
		}
		return r.Content[0].(*v26.TextContent).Text, r.NextResumeToken.Or(""), nil
	}
	p := &v25.CallToolRequestParams{Name: "count_to", Arguments: v25.CallToolRequestParamsArguments(args), ResumeToken: optional(token)}
	r, err := v25.NewClient(cs).CallTool(ctx, p)
	if err != nil {
		return "", "", err
	}
	return r.Content[0].(*v25.TextContent).Text, r.NextResumeToken.Or(""), nil
}

var countPages = []string{"1 2 3 4 5 6 7 8 9 10", "11 12 13 14 15 16 17 18 19 20", "21 22 23 24 25"}

// wantInvalidToken checks err is -32602 about resumeToken, saying why.
func wantInvalidToken(t *testing.T, err error, why string) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "resumeToken") || !strings.Contains(je.Message, why) {
		t.Errorf("got %v, want -32602 naming resumeToken and saying %q", err, why)
	}
}

// TestCountTo: count_to answers 1..n in pages of ten, each but the last
// with nextResumeToken, over stdio and HTTP in both eras; resume.Follow
// runs it to the end; a token of the completed operation, a tampered one
// and one sent with other arguments are -32602.
func TestCountTo(t *testing.T) { overBoth(t, testCountTo) }

func testCountTo(t *testing.T, url string) {
	for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
		cs := connectCaps(t, url, era, "")
		ctx := testContext(t)
		var pages, tokens []string
		err := resume.Follow(ctx, func(ctx context.Context, token string) (string, error) {
			page, next, err := countCall(ctx, cs, "25", token)
			pages, tokens = append(pages, page), append(tokens, next)
			return next, err
		})
		if err != nil {
			t.Fatalf("%s: %v", cs.ProtocolVersion(), err)
		}
		if strings.Join(pages, "|") != strings.Join(countPages, "|") || tokens[2] != "" {
			t.Fatalf("%s: pages %q, tokens %q", cs.ProtocolVersion(), pages, tokens)
		}
		_, _, err = countCall(ctx, cs, "25", tokens[1])
		wantInvalidToken(t, err, "completed")

		_, first, err := countCall(ctx, cs, "25", "")
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = countCall(ctx, cs, "26", first)
		wantInvalidToken(t, err, "other parameters")
		raw, _ := base64.RawURLEncoding.DecodeString(first)
		raw[len(raw)/2] ^= 1
		_, _, err = countCall(ctx, cs, "25", base64.RawURLEncoding.EncodeToString(raw))
		wantInvalidToken(t, err, "altered")
		if page, _, err := countCall(ctx, cs, "25", first); err != nil || page != countPages[1] {
			t.Errorf("%s: the untouched token after the refusals: %q %v", cs.ProtocolVersion(), page, err)
		}
	}
}

// TestCountToAcrossInstances: two server processes sharing a key ring
// honour each other's tokens, page after page; one with another key
// refuses them.
func TestCountToAcrossInstances(t *testing.T) {
	keys := "EVERYTHING_RESUME_KEYS=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", resume.KeySize)))
	other := "EVERYTHING_RESUME_KEYS=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("o", resume.KeySize)))
	a, b, c := startHTTP(t, keys), startHTTP(t, keys), startHTTP(t, other)
	for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
		on := map[string]*rt.ClientSession{"a": connectCaps(t, a, era, ""), "b": connectCaps(t, b, era, ""), "c": connectCaps(t, c, era, "")}
		ctx := testContext(t)
		token := ""
		for i, server := range []string{"a", "b", "a"} {
			page, next, err := countCall(ctx, on[server], "25", token)
			if err != nil || page != countPages[i] {
				t.Fatalf("%s page %d on %s: %q %v", on[server].ProtocolVersion(), i+1, server, page, err)
			}
			if i == 0 {
				_, _, err := countCall(ctx, on["c"], "25", next)
				wantInvalidToken(t, err, "altered")
			}
			token = next
		}
	}
}

// TestCountToSharedRedis: instances sharing a key ring and a Redis server
// (--redis, here a real redis-server the test starts) continue each
// other's operations and refuse the tokens of an operation any of them
// completed; instances sharing only the key ring cannot know that.
func TestCountToSharedRedis(t *testing.T) {
	redis := redistest.Start(t)
	keys := "EVERYTHING_RESUME_KEYS=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("r", resume.KeySize)))
	store := "EVERYTHING_REDIS=redis://" + redis.Addr + "/0"
	a, b := startHTTP(t, keys, store), startHTTP(t, keys, store)
	ctx := testContext(t)
	on := map[string]*rt.ClientSession{"a": connectCaps(t, a, rt.Stateless, ""), "b": connectCaps(t, b, rt.Stateless, "")}
	var tokens []string
	token := ""
	for i, server := range []string{"a", "b", "a"} {
		page, next, err := countCall(ctx, on[server], "25", token)
		if err != nil || page != countPages[i] {
			t.Fatalf("page %d on %s: %q %v", i+1, server, page, err)
		}
		tokens = append(tokens, next)
		token = next
	}
	// A completed the operation; B learns it from Redis.
	_, _, err := countCall(ctx, on["b"], "25", tokens[1])
	wantInvalidToken(t, err, "completed")
}

// TestCompletedTokensStayRefused: bin/everything over stdio (a real
// process). An operation run to its end, then 4,200 cheap count_to n=1
// calls (more than the in-memory store's 4,096 entries): the completed
// operation's tokens are still refused as completed.
func TestCompletedTokensStayRefused(t *testing.T) {
	cs := connectCaps(t, "", rt.Stateless, "")
	ctx := testContext(t)
	_, first, err := countCall(ctx, cs, "25", "")
	if err != nil {
		t.Fatal(err)
	}
	token := first
	for token != "" {
		if _, token, err = countCall(ctx, cs, "25", token); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4200 {
		if _, next, err := countCall(ctx, cs, "1", ""); err != nil || next != "" {
			t.Fatalf("count_to n=1, call %d: %q %v", i, next, err)
		}
	}
	_, _, err = countCall(ctx, cs, "25", first)
	wantInvalidToken(t, err, "completed")
}

// TestResumeShareOverHTTP: behind bearer tokens, one principal that opens
// count_to operations without finishing them fills half the resume store
// (here 64 entries; 1,048,576 by default), beyond its share
// (MemoryStore.PerOwner, here 8; 16,384 by default), and is then refused
// one more with a -32603 saying so, while another principal's multi-page
// call is served: before the share, one principal filled the whole table
// (1,048,576 operations in 86 s) and every principal got "too many
// resumable operations" for ten minutes.
func TestResumeShareOverHTTP(t *testing.T) {
	store := resume.NewMemoryStore(64, 0)
	store.PerOwner = 8
	srv, err := newEverything(slog.New(slog.DiscardHandler), rt.ValidateResultsAuto, nil, sharedState{resume: store}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := streamhttp.NewHandler(srv, streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return nil, &streamhttp.AuthError{Description: "a bearer token"}
		}
		return rt.WithPrincipal(r.Context(), tok), nil
	}})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() })
	as := func(principal string) *rt.ClientSession {
		cs, err := rt.Connect(testContext(t), &streamhttp.ClientTransport{URL: hs.URL, Header: http.Header{"Authorization": {"Bearer " + principal}}}, rt.ClientOptions{Era: rt.Stateless}, v26.Mount(modernHandler{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice, bob := as("alice"), as("bob")
	ctx := testContext(t)
	for i := range 32 {
		if _, next, err := countCall(ctx, alice, "11", ""); err != nil || next == "" {
			t.Fatalf("alice's operation %d: %q %v", i, next, err)
		}
	}
	_, _, err = countCall(ctx, alice, "11", "")
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "for this client") {
		t.Fatalf("alice's operation beyond her share: %v, want -32603 saying this client has too many", err)
	}
	page, next, err := countCall(ctx, bob, "11", "")
	if err != nil || next == "" {
		t.Fatalf("bob's first page while alice is at her share: %v", err)
	}
	if page2, last, err := countCall(ctx, bob, "11", next); err != nil || last != "" || page2 != "11" {
		t.Fatalf("bob's last page: %q %q %v (first %q)", page2, last, err, page)
	}
}
