// Command otelgo polls a sampling endpoint with OpenTelemetry Go's
// samplers/jaegerremote, then prints, as one JSON line, what a probe decision shows for
// each operation (a trace ID whose low 64 bits are 0: sampled at any rate above 0, with
// the jaeger.sampler.* attributes of the sampler in force) and its decisions for a list of
// trace IDs. With -load it is instead a service: spans for each operation at -rate per
// second, exported over OTLP/HTTP to -otlp, for -duration, the rate times -step-factor
// once the file -step-file exists.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/contrib/samplers/jaegerremote"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"dsampler-interop/clients/internal/probe"
)

const initialKey = attribute.Key("interop.initial")

// initial decides until the first strategy, and says so in its attributes.
type initial struct{}

func (initial) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	return sdktrace.SamplingResult{Decision: sdktrace.Drop, Attributes: []attribute.KeyValue{initialKey.Bool(true)}}
}

func (initial) Description() string { return "interop.initial" }

// errorSink keeps what the sampler logs as errors (failed polls).
type errorSink struct {
	mu     *sync.Mutex
	errors *[]string
}

func (errorSink) Init(logr.RuntimeInfo)    {}
func (errorSink) Enabled(int) bool         { return false }
func (errorSink) Info(int, string, ...any) {}
func (s errorSink) Error(err error, msg string, _ ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*s.errors = append(*s.errors, fmt.Sprintf("%s: %v", msg, err))
}
func (s errorSink) WithValues(...any) logr.LogSink { return s }
func (s errorSink) WithName(string) logr.LogSink   { return s }

func decide(s sdktrace.Sampler, id trace.TraceID, op string) sdktrace.SamplingResult {
	return s.ShouldSample(sdktrace.SamplingParameters{
		ParentContext: context.Background(), TraceID: id, Name: op, Kind: trace.SpanKindServer,
	})
}

func main() {
	load := flag.Bool("load", false, "run as a service exporting spans (see the package doc)")
	otlp := flag.String("otlp", "127.0.0.1:4318", "OTLP/HTTP host:port for -load")
	rate := flag.Float64("rate", 10, "spans per second per operation for -load")
	duration := flag.Duration("duration", 10*time.Second, "how long -load runs")
	stepFile := flag.String("step-file", "", "-load multiplies its rate once this file exists")
	stepFactor := flag.Float64("step-factor", 5, "the multiplier at -step-after")
	flags := probe.Parse()
	var mu sync.Mutex
	var errors []string
	remote := jaegerremote.New(
		flags.Service,
		jaegerremote.WithSamplingServerURL(flags.URL),
		jaegerremote.WithSamplingRefreshInterval(flags.Interval),
		jaegerremote.WithInitialSampler(initial{}),
		jaegerremote.WithLogger(logr.New(errorSink{mu: &mu, errors: &errors})),
	)
	defer remote.Close()
	if *load {
		if err := serve(remote, flags, *otlp, *rate, *duration, *stepFile, *stepFactor); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ids, err := probe.TraceIDs(flags.IDs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var zero trace.TraceID
	got, waited := probe.Until(flags.Wait, func() bool {
		for _, kv := range decide(remote, zero, flags.Ops[0]).Attributes {
			if kv.Key == initialKey {
				return false
			}
		}
		return true
	})
	report := probe.Report{
		Client:    "opentelemetry-go",
		Got:       got,
		WaitedMs:  waited.Milliseconds(),
		Sampler:   remote.Description(),
		Effective: map[string]probe.Probe{},
		Decisions: map[string]string{},
	}
	for _, op := range flags.Ops {
		result := decide(remote, zero, op)
		found := probe.Probe{Sampled: result.Decision == sdktrace.RecordAndSample, Attributes: map[string]any{}}
		for _, kv := range result.Attributes {
			found.Attributes[string(kv.Key)] = kv.Value.AsInterface()
		}
		report.Effective[op] = found
		decisions := make([]byte, len(ids))
		for i, id := range ids {
			decisions[i] = '0'
			if decide(remote, id, op).Decision == sdktrace.RecordAndSample {
				decisions[i] = '1'
			}
		}
		report.Decisions[op] = string(decisions)
	}
	mu.Lock()
	report.Errors = errors
	mu.Unlock()
	report.Print()
}

// serve emits spans for every operation at rate per second until duration has passed,
// and prints one JSON line a second: spans started and sampled so far, per operation.
func serve(remote *jaegerremote.Sampler, flags probe.Flags, endpoint string, rate float64,
	duration time.Duration, stepFile string, stepFactor float64,
) error {
	ctx := context.Background()
	exporter, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(endpoint), otlptracehttp.WithInsecure())
	if err != nil {
		return err
	}
	res := resource.NewSchemaless(attribute.String("service.name", flags.Service))
	provider := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(remote),
		sdktrace.WithBatcher(exporter, sdktrace.WithBatchTimeout(200*time.Millisecond)),
		sdktrace.WithResource(res),
	)
	defer func() { _ = provider.Shutdown(ctx) }()
	tracer := provider.Tracer("dsampler-interop")
	start := time.Now()
	started := map[string]int{}
	sampled := map[string]int{}
	nextReport := time.Second
	for emitted := 0; ; emitted++ {
		elapsed := time.Since(start)
		if elapsed >= duration {
			break
		}
		perSecond := rate
		if stepped(stepFile) {
			perSecond = rate * stepFactor
		}
		for _, op := range flags.Ops {
			_, span := tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindServer))
			started[op]++
			if span.SpanContext().IsSampled() {
				sampled[op]++
			}
			span.End()
		}
		if elapsed >= nextReport {
			fmt.Printf("{\"t\":%.1f,\"started\":%s,\"sampled\":%s}\n", elapsed.Seconds(), jsonMap(started), jsonMap(sampled))
			nextReport += time.Second
		}
		time.Sleep(time.Duration(float64(time.Second) / perSecond))
	}
	return provider.ForceFlush(ctx)
}

var steppedAlready bool

func stepped(path string) bool {
	if !steppedAlready && path != "" {
		_, err := os.Stat(path)
		steppedAlready = err == nil
	}
	return steppedAlready
}

func jsonMap(m map[string]int) string {
	out := "{"
	first := true
	for k, v := range m {
		if !first {
			out += ","
		}
		first = false
		out += fmt.Sprintf("%q:%d", k, v)
	}
	return out + "}"
}
