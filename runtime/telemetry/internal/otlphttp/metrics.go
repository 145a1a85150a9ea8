package otlphttp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// MetricExporter exports metrics over OTLP/HTTP (POST …/v1/metrics).
type MetricExporter struct {
	c           *config
	temporality func(sdkmetric.InstrumentKind) metricdata.Temporality
	shutdown    atomic.Bool
}

var _ sdkmetric.Exporter = (*MetricExporter)(nil)

// NewMetricExporter reads the OTLP configuration of metrics from the
// environment, OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE included
// (cumulative, the default; delta; lowmemory).
func NewMetricExporter() (*MetricExporter, error) {
	c, err := newConfig("METRICS", "/v1/metrics")
	if err != nil {
		return nil, err
	}
	x := &MetricExporter{c: c, temporality: sdkmetric.DefaultTemporalitySelector}
	switch p := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"))); p {
	case "", "cumulative":
	case "delta":
		x.temporality = func(k sdkmetric.InstrumentKind) metricdata.Temporality {
			switch k {
			case sdkmetric.InstrumentKindUpDownCounter, sdkmetric.InstrumentKindObservableUpDownCounter:
				return metricdata.CumulativeTemporality
			}
			return metricdata.DeltaTemporality
		}
	case "lowmemory":
		x.temporality = func(k sdkmetric.InstrumentKind) metricdata.Temporality {
			switch k {
			case sdkmetric.InstrumentKindCounter, sdkmetric.InstrumentKindHistogram:
				return metricdata.DeltaTemporality
			}
			return metricdata.CumulativeTemporality
		}
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE %q: want cumulative, delta or lowmemory", p)
	}
	return x, nil
}

// Temporality implements sdkmetric.Exporter.
func (x *MetricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return x.temporality(k)
}

// Aggregation implements sdkmetric.Exporter: the SDK's defaults.
func (x *MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export implements sdkmetric.Exporter.
func (x *MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if x.shutdown.Load() {
		return nil
	}
	m, err := resourceMetricsOf(rm)
	if err != nil {
		return err
	}
	if m == nil {
		return nil
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	// ExportMetricsServiceRequest: repeated ResourceMetrics resource_metrics = 1.
	body := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), b)
	return x.c.post(ctx, body)
}

// ForceFlush implements sdkmetric.Exporter: nothing is held.
func (x *MetricExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }

// Shutdown implements sdkmetric.Exporter: later exports do nothing.
func (x *MetricExporter) Shutdown(ctx context.Context) error {
	x.shutdown.Store(true)
	x.c.client.CloseIdleConnections()
	return ctx.Err()
}

// resourceMetricsOf converts rm (nil when it holds no metric).
func resourceMetricsOf(rm *metricdata.ResourceMetrics) (*metricspb.ResourceMetrics, error) {
	out := &metricspb.ResourceMetrics{Resource: resourceOf(rm.Resource)}
	if rm.Resource != nil {
		out.SchemaUrl = rm.Resource.SchemaURL()
	}
	n := 0
	for _, sm := range rm.ScopeMetrics {
		ps := &metricspb.ScopeMetrics{Scope: scopeOf(sm.Scope), SchemaUrl: sm.Scope.SchemaURL}
		for _, m := range sm.Metrics {
			pm, err := metricOf(m)
			if err != nil {
				return nil, err
			}
			ps.Metrics = append(ps.Metrics, pm)
			n++
		}
		out.ScopeMetrics = append(out.ScopeMetrics, ps)
	}
	if n == 0 {
		return nil, nil
	}
	return out, nil
}

func metricOf(m metricdata.Metrics) (*metricspb.Metric, error) {
	pm := &metricspb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		pm.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: numberPoints(d.DataPoints)}}
	case metricdata.Gauge[float64]:
		pm.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: numberPoints(d.DataPoints)}}
	case metricdata.Sum[int64]:
		pm.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporalityOf(d.Temporality), IsMonotonic: d.IsMonotonic}}
	case metricdata.Sum[float64]:
		pm.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporalityOf(d.Temporality), IsMonotonic: d.IsMonotonic}}
	case metricdata.Histogram[int64]:
		pm.Data = &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{DataPoints: histogramPoints(d.DataPoints), AggregationTemporality: temporalityOf(d.Temporality)}}
	case metricdata.Histogram[float64]:
		pm.Data = &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{DataPoints: histogramPoints(d.DataPoints), AggregationTemporality: temporalityOf(d.Temporality)}}
	case metricdata.ExponentialHistogram[int64]:
		pm.Data = &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{DataPoints: exponentialPoints(d.DataPoints), AggregationTemporality: temporalityOf(d.Temporality)}}
	case metricdata.ExponentialHistogram[float64]:
		pm.Data = &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{DataPoints: exponentialPoints(d.DataPoints), AggregationTemporality: temporalityOf(d.Temporality)}}
	case metricdata.Summary:
		pm.Data = &metricspb.Metric_Summary{Summary: &metricspb.Summary{DataPoints: summaryPoints(d.DataPoints)}}
	default:
		return nil, fmt.Errorf("OTLP export: metric %s: unknown aggregation %T", m.Name, m.Data)
	}
	return pm, nil
}

func temporalityOf(t metricdata.Temporality) metricspb.AggregationTemporality {
	switch t {
	case metricdata.DeltaTemporality:
		return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	case metricdata.CumulativeTemporality:
		return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	}
	return metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_UNSPECIFIED
}

func setAttrs(s attribute.Set) []*commonpb.KeyValue { return attributes(s.ToSlice()) }

func numberPoints[N int64 | float64](dps []metricdata.DataPoint[N]) []*metricspb.NumberDataPoint {
	out := make([]*metricspb.NumberDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := &metricspb.NumberDataPoint{Attributes: setAttrs(dp.Attributes), StartTimeUnixNano: unixNano(dp.StartTime.UnixNano()), TimeUnixNano: unixNano(dp.Time.UnixNano())}
		switch v := any(dp.Value).(type) {
		case int64:
			p.Value = &metricspb.NumberDataPoint_AsInt{AsInt: v}
		case float64:
			p.Value = &metricspb.NumberDataPoint_AsDouble{AsDouble: v}
		}
		out = append(out, p)
	}
	return out
}

func histogramPoints[N int64 | float64](dps []metricdata.HistogramDataPoint[N]) []*metricspb.HistogramDataPoint {
	out := make([]*metricspb.HistogramDataPoint, 0, len(dps))
	for _, dp := range dps {
		sum := float64(dp.Sum)
		p := &metricspb.HistogramDataPoint{Attributes: setAttrs(dp.Attributes), StartTimeUnixNano: unixNano(dp.StartTime.UnixNano()), TimeUnixNano: unixNano(dp.Time.UnixNano()),
			Count: dp.Count, Sum: &sum, BucketCounts: dp.BucketCounts, ExplicitBounds: dp.Bounds}
		p.Min, p.Max = extremum(dp.Min), extremum(dp.Max)
		out = append(out, p)
	}
	return out
}

func exponentialPoints[N int64 | float64](dps []metricdata.ExponentialHistogramDataPoint[N]) []*metricspb.ExponentialHistogramDataPoint {
	out := make([]*metricspb.ExponentialHistogramDataPoint, 0, len(dps))
	for _, dp := range dps {
		sum := float64(dp.Sum)
		p := &metricspb.ExponentialHistogramDataPoint{Attributes: setAttrs(dp.Attributes), StartTimeUnixNano: unixNano(dp.StartTime.UnixNano()), TimeUnixNano: unixNano(dp.Time.UnixNano()),
			Count: dp.Count, Sum: &sum, Scale: dp.Scale, ZeroCount: dp.ZeroCount, ZeroThreshold: dp.ZeroThreshold,
			Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: dp.PositiveBucket.Offset, BucketCounts: dp.PositiveBucket.Counts},
			Negative: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: dp.NegativeBucket.Offset, BucketCounts: dp.NegativeBucket.Counts}}
		p.Min, p.Max = extremum(dp.Min), extremum(dp.Max)
		out = append(out, p)
	}
	return out
}

// extremum is e as an optional double (nil when unset).
func extremum[N int64 | float64](e metricdata.Extrema[N]) *float64 {
	v, ok := e.Value()
	if !ok {
		return nil
	}
	f := float64(v)
	return &f
}

func summaryPoints(dps []metricdata.SummaryDataPoint) []*metricspb.SummaryDataPoint {
	out := make([]*metricspb.SummaryDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := &metricspb.SummaryDataPoint{Attributes: setAttrs(dp.Attributes), StartTimeUnixNano: unixNano(dp.StartTime.UnixNano()), TimeUnixNano: unixNano(dp.Time.UnixNano()),
			Count: dp.Count, Sum: dp.Sum}
		for _, q := range dp.QuantileValues {
			p.QuantileValues = append(p.QuantileValues, &metricspb.SummaryDataPoint_ValueAtQuantile{Quantile: q.Quantile, Value: q.Value})
		}
		out = append(out, p)
	}
	return out
}
