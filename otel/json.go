package otel

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// Marshal encodes traces as OTLP/JSON, the body of an OTLP/HTTP export
// request (ExportTraceServiceRequest, which has the same fields as
// TracesData). OTLP/JSON is protojson's mapping with two changes: trace
// and span ids are hex strings rather than base64, and enums are
// integers.
func Marshal(td *tracepb.TracesData) ([]byte, error) {
	data, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(td)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	out, err := recodeIDs(data, func(s string) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		return hex.EncodeToString(b), err
	})
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Unmarshal decodes OTLP/JSON traces (see Marshal), refusing unknown
// fields.
func Unmarshal(data []byte) (*tracepb.TracesData, error) {
	in, err := recodeIDs(data, func(s string) (string, error) {
		b, err := hex.DecodeString(s)
		return base64.StdEncoding.EncodeToString(b), err
	})
	if err != nil {
		return nil, err
	}
	td := &tracepb.TracesData{}
	if err := protojson.Unmarshal(in, td); err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return td, nil
}

// recodeIDs rewrites with conv the trace and span ids of the spans, and
// of their links, in OTLP/JSON traces.
func recodeIDs(data []byte, conv func(string) (string, error)) ([]byte, error) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	fix := func(o map[string]any, keys ...string) error {
		for _, k := range keys {
			s, ok := o[k].(string)
			if !ok {
				continue
			}
			c, err := conv(s)
			if err != nil {
				return fmt.Errorf("otlp: %s %q: %w", k, s, err)
			}
			o[k] = c
		}
		return nil
	}
	for _, rs := range list(v["resourceSpans"]) {
		for _, ss := range list(obj(rs)["scopeSpans"]) {
			for _, sp := range list(obj(ss)["spans"]) {
				s := obj(sp)
				if err := fix(s, "traceId", "spanId", "parentSpanId"); err != nil {
					return nil, err
				}
				for _, l := range list(s["links"]) {
					if err := fix(obj(l), "traceId", "spanId"); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return json.Marshal(v)
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	o, _ := v.(map[string]any)
	if o == nil {
		return map[string]any{}
	}
	return o
}
