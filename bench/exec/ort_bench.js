// ONNX Runtime side of bench/exec/ort_compare.sh: loads one ONNX file with every graph
// optimisation enabled, runs it on a seeded random input, prints one JSON line with the per-run
// latencies (milliseconds, wall time around session.run) and the median process CPU time per run.
//   node ort_bench.js MODEL.onnx THREADS WARMUP RUNS SHAPE [SPIN]   (SHAPE like 1x3x224x224;
//   SPIN 0 turns off the intra-op pool's spin-waiting, ORT's session.intra_op.allow_spinning)
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  const [path, threads, warmup, runs, shapeStr, spin] = process.argv.slice(2);
  if (!path || !threads || !warmup || !runs || !shapeStr) {
    console.error('usage: node ort_bench.js MODEL.onnx THREADS WARMUP RUNS SHAPE');
    process.exit(2);
  }
  const session = await ort.InferenceSession.create(path, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: true,
    enableMemPattern: true,
    extra: {session: {intra_op: {allow_spinning: spin === '0' ? '0' : '1'}}},
  });
  const shape = shapeStr.split('x').map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = 12345;  // xorshift32: a fixed input, uniform in [-1, 1)
  for (let i = 0; i < n; ++i) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    data[i] = (s / 4294967296) * 2 - 1;
  }
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
  for (let i = 0; i < Number(warmup); ++i) await session.run(feeds);
  const times = [], cpu = [];
  for (let i = 0; i < Number(runs); ++i) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);  // process CPU time (all threads), microseconds
    cpu.push((c.user + c.system) / 1e3);
  }
  const med = (v) => {
    const s = [...v].sort((a, b) => a - b), k = s.length;
    return k % 2 ? s[(k - 1) / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
  };
  console.log(JSON.stringify({engine: 'onnxruntime-node', version: require('onnxruntime-node/package.json').version,
                              median_ms: med(times), min_ms: Math.min(...times), cpu_median_ms: med(cpu),
                              runs_ms: times}));
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
