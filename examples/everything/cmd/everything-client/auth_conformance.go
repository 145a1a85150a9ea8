package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/oauth"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// isAuthScenario reports whether runAuthScenario acts the conformance
// scenario.
func isAuthScenario(scenario string) bool { return strings.HasPrefix(scenario, "auth/") }

// cimdURL is the Client ID Metadata Document URL the auth/basic-cimd
// scenario expects as client_id.
const cimdURL = "https://conformance-test.local/client-metadata.json"

// authContext is $MCP_CONFORMANCE_CONTEXT of the auth scenarios.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	// enterprise-managed-authorization
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPIssuer        string `json:"idp_issuer"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	// wif-jwt-bearer
	ValidJWT         string `json:"valid_jwt"`
	WrongAudienceJWT string `json:"wrong_audience_jwt"`
	ExpiredJWT       string `json:"expired_jwt"`
}

// authConfig builds the OAuth client configuration of a scenario.
func authConfig(scenario string, ac authContext) (*oauth.Config, error) {
	cfg := &oauth.Config{
		ClientName:  "mcpgen everything-client",
		RedirectURL: "http://127.0.0.1/callback",
	}
	switch scenario {
	case "auth/basic-cimd":
		cfg.ClientMetadataURL = cimdURL
	case "auth/pre-registration":
		cfg.ClientID, cfg.ClientSecret, cfg.Issuer = ac.ClientID, ac.ClientSecret, ac.Issuer
	case "auth/client-credentials-basic":
		cfg.ClientID, cfg.ClientSecret = ac.ClientID, ac.ClientSecret
		cfg.Grant = oauth.ClientCredentials{}
	case "auth/client-credentials-jwt":
		key, err := oauth.ParsePrivateKeyPEM([]byte(ac.PrivateKeyPEM))
		if err != nil {
			return nil, err
		}
		cfg.ClientID, cfg.PrivateKey, cfg.SigningAlgorithm = ac.ClientID, key, ac.SigningAlgorithm
		cfg.Grant = oauth.ClientCredentials{}
	case "auth/enterprise-managed-authorization":
		cfg.ClientID, cfg.ClientSecret = ac.ClientID, ac.ClientSecret
		cfg.Grant = oauth.EnterpriseManaged{
			IDPTokenEndpoint: ac.IDPTokenEndpoint,
			IDPClientID:      ac.IDPClientID,
			IDToken:          func(context.Context) (string, error) { return ac.IDPIDToken, nil },
		}
	case "auth/wif-jwt-bearer":
		cfg.ClientID = ac.ClientID
		cfg.Grant = oauth.JWTBearer{Assertion: func(context.Context, string) (string, error) { return ac.ValidJWT, nil }}
	case "auth/dpop", "auth/dpop-nonce":
		key, err := oauth.GenerateDPoPKey()
		if err != nil {
			return nil, err
		}
		cfg.DPoP = key
	}
	return cfg, nil
}

// runAuthScenario acts the auth/* conformance scenario against the
// protected MCP endpoint serverURL: it authorizes as the scenario
// expects, connects in the era of $MCP_CONFORMANCE_PROTOCOL_VERSION,
// lists the tools and calls test-tool.
func runAuthScenario(scenario, serverURL string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	var ac authContext
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &ac); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	cfg, err := authConfig(scenario, ac)
	if err != nil {
		return fmt.Errorf("%s: %w", scenario, err)
	}
	hc := cfg.Client(&http.Client{})
	era := rt.Stateful
	if os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION") == "2026-07-28" {
		era = rt.Stateless
	}
	cs, err := rt.Connect(ctx, &streamhttp.ClientTransport{URL: serverURL, HTTPClient: hc, Logger: warnings()},
		rt.ClientOptions{Name: "everything-client", Version: "0.1.0", Era: era},
		v25.Mount(legacyHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		return explain(err)
	}
	defer cs.Close()
	if cs.Stateless() {
		c := v26.NewClient(cs)
		if _, err := c.ListTools(ctx, nil); err != nil {
			return explain(err)
		}
		_, err = c.CallTool(ctx, &v26.CallToolRequestParams{Name: "test-tool", Arguments: v26.CallToolRequestParamsArguments(`{}`)})
		return explain(err)
	}
	c := v25.NewClient(cs)
	if _, err := c.ListTools(ctx, nil); err != nil {
		return explain(err)
	}
	_, err = c.CallTool(ctx, &v25.CallToolRequestParams{Name: "test-tool", Arguments: v25.CallToolRequestParamsArguments(`{}`)})
	return explain(err)
}

// explain adds what the OAuth client refused, when that is why err
// happened.
func explain(err error) error {
	if err == nil {
		return nil
	}
	var rm *oauth.ResourceMismatchError
	var im *oauth.IssuerMismatchError
	switch {
	case errors.As(err, &rm):
		return fmt.Errorf("refused protected resource metadata for another resource: %w", err)
	case errors.As(err, &im):
		return fmt.Errorf("refused a mismatched issuer: %w", err)
	}
	return err
}
