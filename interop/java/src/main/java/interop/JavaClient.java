package interop;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.extension.trace.jaeger.sampler.JaegerRemoteSampler;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingDecision;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Polls a gRPC sampling endpoint with OpenTelemetry Java's JaegerRemoteSampler, then prints
 * one JSON line: the sampler's description, what a probe decision shows for each operation
 * (trace ID 0000000000000001 0000000000000000: sampled at any rate above 0) and its
 * decisions for a list of trace IDs.
 */
public final class JavaClient {
  private static final String INITIAL = "interop.initial";

  /** Decides until the first strategy, and says so in its description. */
  private static final class Initial implements Sampler {
    @Override
    public SamplingResult shouldSample(
        Context parent, String traceId, String name, SpanKind kind, Attributes attrs,
        List<LinkData> links) {
      return SamplingResult.create(SamplingDecision.DROP);
    }

    @Override
    public String getDescription() {
      return INITIAL;
    }

    @Override
    public String toString() {
      return INITIAL; // JaegerRemoteSampler's description shows its sampler's toString()
    }
  }

  private JavaClient() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opts.put(args[i].replaceFirst("^--?", ""), args[i + 1]);
    }
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    Logger.getLogger("io.opentelemetry").addHandler(new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
          Throwable thrown = record.getThrown();
          errors.add(record.getMessage() + (thrown == null ? "" : ": " + thrown));
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
    String[] ops = opts.getOrDefault("ops", "op").split(",", -1);
    List<String> ids = new ArrayList<>();
    if (opts.containsKey("ids")) {
      for (String line : Files.readAllLines(Path.of(opts.get("ids")))) {
        if (!line.isBlank()) {
          ids.add(line.strip());
        }
      }
    }
    long waitMs = Long.parseLong(opts.getOrDefault("wait-ms", "15000"));
    try (JaegerRemoteSampler sampler =
        JaegerRemoteSampler.builder()
            .setEndpoint(opts.getOrDefault("endpoint", "http://127.0.0.1:14250"))
            .setServiceName(opts.getOrDefault("service", "interop"))
            .setPollingInterval(Duration.ofMillis(Long.parseLong(opts.getOrDefault("interval-ms", "200"))))
            .setInitialSampler(new Initial())
            .build()) {
      long start = System.nanoTime();
      boolean got = false;
      while (System.nanoTime() - start < waitMs * 1_000_000L) {
        if (!sampler.getDescription().contains(INITIAL)) {
          got = true;
          break;
        }
        Thread.sleep(10);
      }
      long waited = (System.nanoTime() - start) / 1_000_000L;
      StringBuilder out = new StringBuilder("{\"client\":\"opentelemetry-java\"");
      out.append(",\"got_strategy\":").append(got);
      out.append(",\"waited_ms\":").append(waited);
      out.append(",\"sampler\":").append(quote(sampler.getDescription()));
      out.append(",\"effective\":{");
      for (int i = 0; i < ops.length; i++) {
        SamplingResult probe = decide(sampler, "00000000000000010000000000000000", ops[i]);
        out.append(i == 0 ? "" : ",").append(quote(ops[i])).append(":{\"sampled\":")
            .append(probe.getDecision() == SamplingDecision.RECORD_AND_SAMPLE)
            .append(",\"attributes\":{");
        boolean first = true;
        for (Map.Entry<AttributeKey<?>, Object> kv : probe.getAttributes().asMap().entrySet()) {
          out.append(first ? "" : ",").append(quote(kv.getKey().getKey())).append(":");
          Object value = kv.getValue();
          out.append(value instanceof Number || value instanceof Boolean ? value.toString() : quote(value.toString()));
          first = false;
        }
        out.append("}}");
      }
      out.append("},\"decisions\":{");
      for (int i = 0; i < ops.length; i++) {
        StringBuilder decisions = new StringBuilder(ids.size());
        for (String id : ids) {
          boolean sampled = decide(sampler, id, ops[i]).getDecision() == SamplingDecision.RECORD_AND_SAMPLE;
          decisions.append(sampled ? '1' : '0');
        }
        out.append(i == 0 ? "" : ",").append(quote(ops[i])).append(":").append(quote(decisions.toString()));
      }
      out.append("},\"errors\":[");
      synchronized (errors) {
        for (int i = 0; i < errors.size(); i++) {
          out.append(i == 0 ? "" : ",").append(quote(errors.get(i)));
        }
      }
      out.append("]}");
      System.out.println(out);
    }
  }

  private static SamplingResult decide(Sampler sampler, String traceId, String op) {
    return sampler.shouldSample(
        Context.root(), traceId, op, SpanKind.SERVER, Attributes.empty(), Collections.emptyList());
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
