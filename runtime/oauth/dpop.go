package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// GenerateDPoPKey returns a new P-256 key for DPoP proofs (ES256).
func GenerateDPoPKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// dpopSigner makes DPoP proofs (RFC 9449 §4) and keeps the nonces
// servers hand out (§8, §9), per origin.
type dpopSigner struct {
	key crypto.Signer
	alg string
	jwk map[string]any
	jkt string // the key's RFC 7638 thumbprint

	mu     sync.Mutex
	nonces map[string]string
}

func newDPoP(key crypto.Signer) (*dpopSigner, error) {
	alg, err := defaultAlg(key)
	if err != nil {
		return nil, err
	}
	jwk, jkt, err := publicJWK(key)
	if err != nil {
		return nil, err
	}
	return &dpopSigner{key: key, alg: alg, jwk: jwk, jkt: jkt, nonces: map[string]string{}}, nil
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// proof is a DPoP proof for a method request to u; accessToken, if not
// empty, is bound with ath.
func (d *dpopSigner) proof(method string, u *url.URL, accessToken string) (string, error) {
	claims := map[string]any{
		"jti": randomString(16),
		"htm": method,
		"htu": endpointURL(u),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = b64(sum[:])
	}
	d.mu.Lock()
	if n := d.nonces[origin(u)]; n != "" {
		claims["nonce"] = n
	}
	d.mu.Unlock()
	return signJWT(d.key, d.alg, map[string]any{"typ": "dpop+jwt", "jwk": d.jwk}, claims)
}

// learnNonce records the DPoP-Nonce of a response from u and reports
// whether it is a new one.
func (d *dpopSigner) learnNonce(u *url.URL, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	if n == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonces[origin(u)] == n {
		return false
	}
	d.nonces[origin(u)] = n
	return true
}
