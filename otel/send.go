package otel

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// TracesURL is the OTLP/HTTP traces URL of endpoint: endpoint itself
// when it has a path, else endpoint/v1/traces (as OTEL_EXPORTER_OTLP_ENDPOINT
// is read).
func TracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("endpoint %q: not an http or https URL", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Send posts OTLP/JSON traces (Marshal's) to an OTLP/HTTP endpoint (see
// TracesURL). A status other than 2xx is an error naming it and the
// start of the response.
func Send(ctx context.Context, client *http.Client, endpoint string, body []byte) error {
	target, err := TracesURL(endpoint)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("otlp export to %s: %w", target, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("otlp export: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp export to %s: %s: %s", target, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
