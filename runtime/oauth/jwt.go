package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"strings"
)

// ParsePrivateKeyPEM parses a PEM private key (PKCS #8, SEC 1 "EC
// PRIVATE KEY" or PKCS #1 "RSA PRIVATE KEY") for signing client
// assertions or DPoP proofs.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in private key")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: parsing private key: %w", err)
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		return k, nil
	case *rsa.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("oauth: unsupported private key type %T", key)
}

// defaultAlg is the JWS algorithm for key: ES256/ES384/ES512 by curve,
// RS256 for RSA.
func defaultAlg(key crypto.Signer) (string, error) {
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
	case *rsa.PublicKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("oauth: unsupported signing key %T", key.Public())
}

// signJWT returns the compact JWS of claims with the extra header
// members, signed with key and alg ("" picks defaultAlg).
func signJWT(key crypto.Signer, alg string, header map[string]any, claims map[string]any) (string, error) {
	if alg == "" {
		var err error
		if alg, err = defaultAlg(key); err != nil {
			return "", err
		}
	}
	h := map[string]any{"alg": alg}
	for k, v := range header {
		h[k] = v
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	cb, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64(hb) + "." + b64(cb)
	sig, err := signJWS(key, alg, []byte(input))
	if err != nil {
		return "", err
	}
	return input + "." + b64(sig), nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// signJWS signs input as JWS alg (RFC 7518 §3).
func signJWS(key crypto.Signer, alg string, input []byte) ([]byte, error) {
	var h hash.Hash
	var ch crypto.Hash
	switch alg[2:] {
	case "256":
		h, ch = sha256.New(), crypto.SHA256
	case "384":
		h, ch = sha512.New384(), crypto.SHA384
	case "512":
		h, ch = sha512.New(), crypto.SHA512
	default:
		return nil, fmt.Errorf("oauth: unsupported JWS algorithm %q", alg)
	}
	h.Write(input)
	digest := h.Sum(nil)
	switch {
	case strings.HasPrefix(alg, "ES"):
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("oauth: %s needs an ECDSA key", alg)
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			return nil, err
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		out := make([]byte, 2*size)
		r.FillBytes(out[:size])
		s.FillBytes(out[size:])
		return out, nil
	case strings.HasPrefix(alg, "RS"):
		return key.Sign(rand.Reader, digest, ch)
	case strings.HasPrefix(alg, "PS"):
		return key.Sign(rand.Reader, digest, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: ch})
	}
	return nil, fmt.Errorf("oauth: unsupported JWS algorithm %q", alg)
}

// publicJWK is the public JWK of key (RFC 7517), with its members in
// the lexicographic order of the RFC 7638 thumbprint input.
func publicJWK(key crypto.Signer) (map[string]any, string, error) {
	var members [][2]string
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		size := (k.Curve.Params().BitSize + 7) / 8
		ecdh, err := k.ECDH()
		if err != nil {
			return nil, "", err
		}
		raw := ecdh.Bytes() // 0x04 || X || Y
		members = [][2]string{{"crv", k.Curve.Params().Name}, {"kty", "EC"}, {"x", b64(raw[1 : 1+size])}, {"y", b64(raw[1+size:])}}
	case *rsa.PublicKey:
		members = [][2]string{{"e", b64(big.NewInt(int64(k.E)).Bytes())}, {"kty", "RSA"}, {"n", b64(k.N.Bytes())}}
	default:
		return nil, "", fmt.Errorf("oauth: unsupported key %T", key.Public())
	}
	jwk := map[string]any{}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range members {
		jwk[m[0]] = m[1]
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%q", m[0], m[1])
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	return jwk, b64(sum[:]), nil
}
