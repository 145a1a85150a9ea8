// Package otlphttp exports traces and metrics over OTLP/HTTP
// (http/protobuf), configured from the standard environment, without
// gRPC: the upstream OTLP/HTTP exporters import google.golang.org/grpc
// (for their configuration and the collector's service stubs), which
// made every program with telemetry carry it. The messages are
// go.opentelemetry.io/proto/otlp's (their packages import only
// protobuf); the export request, one repeated field, is written with
// protowire.
package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is one signal's OTLP/HTTP configuration.
type config struct {
	url      string
	headers  http.Header
	timeout  time.Duration
	gzip     bool
	client   *http.Client
	maxRetry time.Duration // how long an export retries in all
}

// env is the value of OTEL_EXPORTER_OTLP_<SIGNAL>_<name>, else of
// OTEL_EXPORTER_OTLP_<name>.
func env(signal, name string) (string, bool) {
	if v, ok := os.LookupEnv("OTEL_EXPORTER_OTLP_" + signal + "_" + name); ok && v != "" {
		return v, true
	}
	v, ok := os.LookupEnv("OTEL_EXPORTER_OTLP_" + name)
	return v, ok && v != ""
}

// newConfig reads signal's configuration (signal: TRACES, METRICS; path
// the signal's path below a base endpoint: /v1/traces).
func newConfig(signal, path string) (*config, error) {
	c := &config{headers: http.Header{}, timeout: 10 * time.Second, maxRetry: time.Minute}
	switch ep, ok := os.LookupEnv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT"); {
	case ok && ep != "":
		c.url = ep // the signal's endpoint is used as it is
	default:
		base, ok := os.LookupEnv("OTEL_EXPORTER_OTLP_ENDPOINT")
		if !ok || base == "" {
			base = "http://localhost:4318"
		}
		c.url = strings.TrimSuffix(base, "/") + path
	}
	u, err := url.Parse(c.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP %s endpoint %q: want an http:// or https:// URL", strings.ToLower(signal), c.url)
	}
	if h, ok := env(signal, "HEADERS"); ok {
		for _, kv := range strings.Split(h, ",") {
			k, v, found := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !found || k == "" {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sHEADERS: %q is not key=value", prefix(signal, "HEADERS"), kv)
			}
			if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = dv
			}
			c.headers.Add(k, v)
		}
	}
	if t, ok := env(signal, "TIMEOUT"); ok {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sTIMEOUT %q: want milliseconds", prefix(signal, "TIMEOUT"), t)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	if comp, ok := env(signal, "COMPRESSION"); ok {
		switch comp {
		case "gzip":
			c.gzip = true
		case "none":
		default:
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sCOMPRESSION %q: want gzip or none", prefix(signal, "COMPRESSION"), comp)
		}
	}
	tlsConf, err := tlsConfig(signal)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsConf
	c.client = &http.Client{Transport: tr}
	return c, nil
}

// prefix is "SIGNAL_" when the per-signal variable of name is set, else "".
func prefix(signal, name string) string {
	if v := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_" + name); v != "" {
		return signal + "_"
	}
	return ""
}

// tlsConfig is the TLS configuration the certificate variables ask for
// (nil: the system's).
func tlsConfig(signal string) (*tls.Config, error) {
	ca, hasCA := env(signal, "CERTIFICATE")
	cert, hasCert := env(signal, "CLIENT_CERTIFICATE")
	key, hasKey := env(signal, "CLIENT_KEY")
	if !hasCA && !hasCert && !hasKey {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if hasCA {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sCERTIFICATE: %w", prefix(signal, "CERTIFICATE"), err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sCERTIFICATE: %s holds no PEM certificate", prefix(signal, "CERTIFICATE"), ca)
		}
	}
	if hasCert != hasKey {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sCLIENT_CERTIFICATE and _CLIENT_KEY go together", prefix(signal, "CLIENT_CERTIFICATE"))
	}
	if hasCert {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_%sCLIENT_CERTIFICATE: %w", prefix(signal, "CLIENT_CERTIFICATE"), err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// retryable reports the statuses OTLP/HTTP says to retry.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// post sends one export request (protobuf), retrying what OTLP says to
// retry, with backoff (Retry-After when the receiver gives one), for at
// most maxRetry; each attempt within timeout.
func (c *config) post(ctx context.Context, body []byte) error {
	if c.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(body)
		if err := zw.Close(); err != nil {
			return err
		}
		body = b.Bytes()
	}
	deadline := time.Now().Add(c.maxRetry)
	wait := 100 * time.Millisecond
	for {
		status, retryAfter, err := c.attempt(ctx, body)
		if err == nil {
			return nil
		}
		if !retryable(status) && status != 0 {
			return err
		}
		if retryAfter > 0 {
			wait = retryAfter
		}
		if time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// attempt is one POST: the status (0 when none came back), the receiver's
// Retry-After and the error.
func (c *config) attempt(ctx context.Context, body []byte) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return -1, 0, err
	}
	for k, vs := range c.headers {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("OTLP export to %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, 0, nil
	}
	var after time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		after = time.Duration(s) * time.Second
	}
	return resp.StatusCode, after, fmt.Errorf("OTLP export to %s: %s: %s", c.url, resp.Status, bytes.TrimSpace(msg))
}
