package oauth

import (
	"slices"
	"sync"
	"time"
)

// Token is an access token with what came with it.
type Token struct {
	AccessToken  string
	TokenType    string // "Bearer" (or "DPoP")
	RefreshToken string
	Expiry       time.Time // zero: unknown
	// Scopes are the granted scopes: the token response's scope, else
	// the scopes requested.
	Scopes []string
	// Requested are the scopes the client asked for (the step-up
	// authorization flow adds the challenged ones to these).
	Requested []string
}

// expiryDelta is how long before its expiry a token counts as expired.
const expiryDelta = 10 * time.Second

// Valid reports whether t has an access token that has not expired.
func (t *Token) Valid() bool {
	return t != nil && t.AccessToken != "" && (t.Expiry.IsZero() || time.Now().Add(expiryDelta).Before(t.Expiry))
}

// Registration is a client's registration with one authorization
// server: its client_id and credentials.
type Registration struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret,omitempty"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// ClientSecretExpiresAt is when the secret expires (Unix seconds;
	// 0: never).
	ClientSecretExpiresAt int64    `json:"client_secret_expires_at,omitempty"`
	RedirectURIs          []string `json:"redirect_uris,omitempty"`
	// Kind says how the client got it: "pre-registered", "cimd" or
	// "dynamic".
	Kind string `json:"kind,omitempty"`
}

// Store keeps tokens per (resource, issuer) and client registrations per
// issuer. Implementations must be safe for concurrent use; the default
// keeps them in memory.
type Store interface {
	Token(resource, issuer string) *Token
	SetToken(resource, issuer string, t *Token)
	Registration(issuer string) *Registration
	SetRegistration(issuer string, c *Registration)
}

// NewMemoryStore returns a Store that keeps everything in memory.
func NewMemoryStore() Store {
	return &memoryStore{tokens: map[[2]string]*Token{}, clients: map[string]*Registration{}}
}

type memoryStore struct {
	mu      sync.Mutex
	tokens  map[[2]string]*Token
	clients map[string]*Registration
}

func (s *memoryStore) Token(resource, issuer string) *Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneToken(s.tokens[[2]string{resource, issuer}])
}

func (s *memoryStore) SetToken(resource, issuer string, t *Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t == nil {
		delete(s.tokens, [2]string{resource, issuer})
		return
	}
	s.tokens[[2]string{resource, issuer}] = cloneToken(t)
}

func (s *memoryStore) Registration(issuer string) *Registration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[issuer]; c != nil {
		cc := *c
		return &cc
	}
	return nil
}

func (s *memoryStore) SetRegistration(issuer string, c *Registration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c == nil {
		delete(s.clients, issuer)
		return
	}
	cc := *c
	s.clients[issuer] = &cc
}

func cloneToken(t *Token) *Token {
	if t == nil {
		return nil
	}
	c := *t
	c.Scopes = slices.Clone(t.Scopes)
	c.Requested = slices.Clone(t.Requested)
	return &c
}
