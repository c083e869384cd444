// Polls a sampling endpoint with OpenTelemetry JS's JaegerRemoteSampler, then prints one
// JSON line: the sampler's description, what a probe decision shows for each operation
// (trace ID 00000001000000010000000000000000, whose four 32-bit words XOR to 0: sampled at
// any rate above 0) and its decisions for a list of trace IDs.
//   node client.mjs --endpoint http://127.0.0.1:5778 --service S --interval-ms 200 --ops a,b --ids FILE
import { readFileSync } from 'node:fs';
import { ROOT_CONTEXT, SpanKind, diag, DiagLogLevel } from '@opentelemetry/api';
import { JaegerRemoteSampler } from '@opentelemetry/sampler-jaeger-remote';

const INITIAL = 'interop.initial';
const opts = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) {
  opts[process.argv[i].replace(/^--?/, '')] = process.argv[i + 1];
}
const errors = [];
const keep = (...args) => errors.push(args.map(String).join(' '));
diag.setLogger({ error: keep, warn: keep, info() {}, debug() {}, verbose() {} }, DiagLogLevel.WARN);

const initial = {
  shouldSample: () => ({ decision: 0 }),
  toString: () => INITIAL,
};
const sampler = new JaegerRemoteSampler({
  endpoint: opts.endpoint ?? 'http://127.0.0.1:5778',
  serviceName: opts.service ?? 'interop',
  poolingInterval: Number(opts['interval-ms'] ?? 200),
  initialSampler: initial,
});
const ops = (opts.ops ?? 'op').split(',');
const ids = opts.ids
  ? readFileSync(opts.ids, 'utf8').split('\n').map((line) => line.trim()).filter(Boolean)
  : [];
const waitMs = Number(opts['wait-ms'] ?? 15000);
const sampled = (traceId, op) =>
  sampler.shouldSample(ROOT_CONTEXT, traceId, op, SpanKind.SERVER, {}, []);

const start = Date.now();
while (String(sampler).includes(INITIAL) && Date.now() - start < waitMs) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const report = {
  client: 'opentelemetry-js',
  got_strategy: !String(sampler).includes(INITIAL),
  waited_ms: Date.now() - start,
  sampler: String(sampler),
  effective: {},
  decisions: {},
  errors,
};
for (const op of ops) {
  const probe = sampled('00000001000000010000000000000000', op);
  report.effective[op] = { sampled: probe.decision === 2, attributes: probe.attributes ?? {} };
  report.decisions[op] = ids.map((id) => (sampled(id, op).decision === 2 ? '1' : '0')).join('');
}
console.log(JSON.stringify(report));
process.exit(0);
