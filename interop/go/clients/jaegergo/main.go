// Command jaegergo polls a sampling endpoint with the legacy jaeger-client-go's
// RemotelyControlledSampler inside a real jaeger.Tracer, then prints, as one JSON line,
// the sampler it built, what a probe span (trace ID 1) shows for each operation (sampled, with the
// sampler.type and sampler.param tags) and its decisions for a list of trace IDs.
package main

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/uber/jaeger-client-go"

	"dsampler-interop/clients/internal/probe"
)

// errorLogger keeps what the sampler logs as errors, and its failed polls (which
// jaeger-client-go logs at info level).
type errorLogger struct {
	mu     sync.Mutex
	errors []string
}

func (l *errorLogger) Error(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, msg)
}

func (l *errorLogger) Infof(format string, args ...interface{}) {
	if strings.HasPrefix(format, "failed") {
		l.Error(fmt.Sprintf(format, args...))
	}
}

func (l *errorLogger) Debugf(string, ...interface{}) {}

func main() {
	flags := probe.Parse()
	ids, err := probe.TraceIDs(flags.IDs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	logger := &errorLogger{}
	initial := jaeger.NewConstSampler(false)
	remote := jaeger.NewRemotelyControlledSampler(
		flags.Service,
		jaeger.SamplerOptions.SamplingServerURL(flags.URL),
		jaeger.SamplerOptions.SamplingRefreshInterval(flags.Interval),
		jaeger.SamplerOptions.InitialSampler(initial),
		jaeger.SamplerOptions.Logger(logger),
	)
	var next uint64
	tracer, closer := jaeger.NewTracer(
		flags.Service, remote, jaeger.NewNullReporter(),
		jaeger.TracerOptions.RandomNumber(func() uint64 { return next }),
	)
	defer closer.Close()
	got, waited := probe.Until(flags.Wait, func() bool {
		_, still := remote.Sampler().(*jaeger.ConstSampler)
		return !still
	})
	report := probe.Report{
		Client:    "jaeger-client-go",
		Got:       got,
		WaitedMs:  waited.Milliseconds(),
		Sampler:   fmt.Sprint(remote.Sampler()),
		Effective: map[string]probe.Probe{},
		Decisions: map[string]string{},
	}
	for _, op := range flags.Ops {
		next = 1 // the tracer draws again on 0; 1 passes any rate above 0
		span := tracer.StartSpan(op).(*jaeger.Span)
		found := probe.Probe{Sampled: span.SpanContext().IsSampled(), Attributes: map[string]any{}}
		for key, value := range span.Tags() {
			found.Attributes[key] = value
		}
		report.Effective[op] = found
	}
	for _, op := range flags.Ops {
		decisions := make([]byte, len(ids))
		for i, id := range ids {
			next = uint64(id[8])<<56 | uint64(id[9])<<48 | uint64(id[10])<<40 | uint64(id[11])<<32 |
				uint64(id[12])<<24 | uint64(id[13])<<16 | uint64(id[14])<<8 | uint64(id[15])
			span := tracer.StartSpan(op).(*jaeger.Span)
			decisions[i] = '0'
			if span.SpanContext().IsSampled() {
				decisions[i] = '1'
			}
		}
		report.Decisions[op] = string(decisions)
	}
	logger.mu.Lock()
	report.Errors = logger.errors
	logger.mu.Unlock()
	report.Print()
}
