//go:build hello_otel

package main

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The go-sdk server with its usual telemetry: the OpenTelemetry SDK and
// the upstream OTLP/HTTP exporters, configured from the environment (the
// size row "go-sdk + OTLP/HTTP" of bench/size.sh).
func init() {
	setupTelemetry = func(ctx context.Context) (func(), error) {
		te, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, err
		}
		me, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(te))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me)))
		otel.SetTracerProvider(tp)
		otel.SetMeterProvider(mp)
		return func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }, nil
	}
}
