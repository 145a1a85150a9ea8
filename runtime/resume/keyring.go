// Package resume implements resumable calls (experimental): the
// resumeToken / nextResumeToken flow of a proposal for the MCP draft
// ("Resuming"), which mcpgen adds to a revision's generated types with
// --extension resumable.
//
// A tool that can be continued answers a page of its work with
// nextResumeToken; the client repeats the same request with resumeToken
// set; a result without nextResumeToken completes the operation. Tokens
// here are opaque and sealed (AES-256-GCM under a KeyRing): they bind the
// method, the tool, a digest of every other parameter, the principal (when
// authentication is on) and an expiry, and carry the handler's state or,
// when it is too big, the key of the state in a Store. Servers sharing a
// key ring (and, for big states and completion, a store) honour each
// other's tokens.
package resume

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the size of a key: AES-256.
const KeySize = 32

// idSize is the size of a key's id at the head of a token.
const idSize = 4

// KeyRing holds the keys that seal and open tokens: the first seals, every
// key opens, so a key can be rotated in (put first) while tokens sealed
// with the one before stay valid until it is dropped. A KeyRing is
// immutable and safe for concurrent use.
type KeyRing struct {
	keys []ringKey
}

type ringKey struct {
	id   [idSize]byte
	aead cipher.AEAD
}

// NewKeyRing returns a key ring of keys (each KeySize random bytes), the
// first of which seals.
func NewKeyRing(keys ...[]byte) (*KeyRing, error) {
	if len(keys) == 0 {
		return nil, errors.New("resume: a key ring needs a key")
	}
	r := &KeyRing{}
	for i, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("resume: key %d has %d bytes, want %d", i, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, fmt.Errorf("resume: key %d: %w", i, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("resume: key %d: %w", i, err)
		}
		sum := sha256.Sum256(k)
		var id [idSize]byte
		copy(id[:], sum[:])
		r.keys = append(r.keys, ringKey{id: id, aead: aead})
	}
	return r, nil
}

// RandomKeyRing returns a key ring of one fresh random key: tokens are
// then honoured by this process only.
func RandomKeyRing() *KeyRing {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	r, _ := NewKeyRing(k)
	return r
}

// ParseKeyRing reads a key ring written as comma-separated base64 keys
// (standard or URL alphabet, padded or not), the sealing key first: the
// form of a flag or an environment variable.
func ParseKeyRing(s string) (*KeyRing, error) {
	var keys [][]byte
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, err := decodeKey(part)
		if err != nil {
			return nil, fmt.Errorf("resume: key %d: %w", len(keys), err)
		}
		keys = append(keys, k)
	}
	return NewKeyRing(keys...)
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			return k, nil
		}
	}
	return nil, errors.New("not base64")
}

// tokenEncoding writes tokens: URL-safe, unpadded.
var tokenEncoding = base64.RawURLEncoding

// seal encrypts and authenticates plaintext with the sealing key.
func (r *KeyRing) seal(plaintext []byte) string {
	k := r.keys[0]
	nonceSize := k.aead.NonceSize()
	buf := make([]byte, idSize+nonceSize, idSize+nonceSize+len(plaintext)+k.aead.Overhead())
	copy(buf, k.id[:])
	if _, err := rand.Read(buf[idSize:]); err != nil {
		panic(err)
	}
	buf = k.aead.Seal(buf, buf[idSize:], plaintext, k.id[:])
	return tokenEncoding.EncodeToString(buf)
}

// errForged is the answer to a token no key of the ring opens.
var errForged = errors.New("not a token this server issued, or altered")

// open decrypts a token sealed by any key of the ring.
func (r *KeyRing) open(token string) ([]byte, error) {
	buf, err := tokenEncoding.DecodeString(token)
	if err != nil || len(buf) < idSize {
		return nil, errForged
	}
	for _, k := range r.keys {
		if string(k.id[:]) != string(buf[:idSize]) {
			continue
		}
		n := k.aead.NonceSize()
		if len(buf) < idSize+n+k.aead.Overhead() {
			return nil, errForged
		}
		pt, err := k.aead.Open(nil, buf[idSize:idSize+n], buf[idSize+n:], k.id[:])
		if err != nil {
			return nil, errForged
		}
		return pt, nil
	}
	return nil, errForged
}
