package otel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// TracesURL returns the OTLP/HTTP traces URL for endpoint: endpoint
// itself when it has a path, else endpoint/v1/traces, as for
// OTEL_EXPORTER_OTLP_ENDPOINT.
func TracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("endpoint %s: not an http or https URL", Redacted(endpoint))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Redacted returns endpoint in a form safe to show in a message: without
// the password or token in its user part and without its query values
// (?api_key=…), which often hold credentials.
func Redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(an endpoint that is not a URL)"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"***"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// Send posts OTLP/JSON traces (as Marshal encodes them) to an OTLP/HTTP
// endpoint (see TracesURL). A status other than 2xx is an error that
// gives the status and the start of the response. A redirect is followed
// only to the endpoint's own host and scheme, so traces are never posted
// to a host the user did not name. No error shows the endpoint's
// credentials (see Redacted).
func Send(ctx context.Context, client *http.Client, endpoint string, body []byte) error {
	target, err := TracesURL(endpoint)
	if err != nil {
		return err
	}
	shown := Redacted(target)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("otlp export to %s: %w", shown, unwrapURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	c := http.Client{}
	if client != nil {
		c = *client
	}
	c.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		first := via[0].URL
		if next.URL.Host != first.Host || next.URL.Scheme != first.Scheme {
			return fmt.Errorf("the endpoint redirects to %s, another host: traces go only where --endpoint says", Redacted(next.URL.Scheme+"://"+next.URL.Host))
		}
		if len(via) >= 5 {
			return errors.New("the endpoint redirects more than 5 times")
		}
		return nil
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("otlp export to %s: %w", shown, unwrapURL(err))
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp export to %s: %s: %s", shown, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// unwrapURL strips the URL from a *url.Error, because that URL is the
// endpoint as given, query and all.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
