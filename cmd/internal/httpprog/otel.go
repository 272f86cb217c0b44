package httpprog

import (
	"context"
	"net/http"
	"time"

	"github.com/git-snap/git-snap/cmd/internal/programs"
	"github.com/git-snap/git-snap/otel"
)

// OTLP is programs.Set's OTel: export --format otel, a session as
// OpenTelemetry traces (package otel, with OTLP's protobuf types),
// written as OTLP/JSON or posted to an OTLP/HTTP endpoint.
type OTLP struct{}

var _ programs.OTLP = OTLP{}

// CheckEndpoint says what is wrong with an OTLP/HTTP endpoint.
func (OTLP) CheckEndpoint(endpoint string) error {
	_, err := otel.TracesURL(endpoint)
	return err
}

// Traces is doc as OTLP/JSON traces by the GenAI semantic conventions,
// and the number of their spans.
func (OTLP) Traces(doc map[string]any, source, session string) ([]byte, int, error) {
	td := otel.Traces(doc, otel.Options{Source: source, Session: session})
	data, err := otel.Marshal(td)
	if err != nil {
		return nil, 0, err
	}
	spans := 0
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			spans += len(ss.Spans)
		}
	}
	return data, spans, nil
}

// Send posts the traces to the endpoint, giving up after 30 seconds.
func (OTLP) Send(ctx context.Context, endpoint string, data []byte) error {
	return otel.Send(ctx, &http.Client{Timeout: 30 * time.Second}, endpoint, data)
}
