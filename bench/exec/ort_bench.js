// ONNX Runtime side of bench/exec/ort_compare.sh: loads one ONNX file with every graph
// optimisation enabled, runs it on a seeded random input, prints one JSON line with the per-run
// latencies (milliseconds, wall time around session.run) and the median process CPU time per run.
//   node ort_bench.js MODEL.onnx THREADS WARMUP RUNS SHAPE [SPIN [INPUT.npy OUTPUT.npy]]
//   (SHAPE like 1x3x224x224; SPIN 0 turns off the intra-op pool's spin-waiting, ORT's
//   session.intra_op.allow_spinning; INPUT.npy: a float32 input of SHAPE instead of the seeded
//   one, and the first output is written to OUTPUT.npy, so that ort_compare.sh can check both
//   engines computed the same thing before it reports a ratio)
'use strict';
const ort = require('onnxruntime-node');

// The first n float32 values of a little-endian C-order .npy file.
function readNpyF32(file, n) {
  const fs = require('fs');
  const buf = fs.readFileSync(file);
  const v1 = buf[6] === 1;
  const start = (v1 ? 10 : 12) + (v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8));
  if (!/'descr':\s*'<f4'/.test(buf.toString('latin1', 0, start))) throw new Error(file + ': not float32');
  if (buf.length < start + 4 * n) throw new Error(file + ': fewer than ' + n + ' values');
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = buf.readFloatLE(start + 4 * i);
  return out;
}

function writeNpyF32(file, dims, values) {
  const fs = require('fs');
  let h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims.join(', ') +
          (dims.length === 1 ? ',' : '') + '), }';
  while ((10 + h.length + 1) % 64) h += ' ';
  h += '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(h.length, 8);
  const body = Buffer.alloc(4 * values.length);
  for (let i = 0; i < values.length; ++i) body.writeFloatLE(values[i], 4 * i);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'), body]));
}

async function main() {
  const [path, threads, warmup, runs, shapeStr, spin, inputNpy, outputNpy] = process.argv.slice(2);
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
  let data = new Float32Array(n);
  if (inputNpy) {
    data = readNpyF32(inputNpy, n);
  } else {
    let s = 12345;  // xorshift32: a fixed input, uniform in [-1, 1)
    for (let i = 0; i < n; ++i) {
      s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
      data[i] = (s / 4294967296) * 2 - 1;
    }
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
  if (outputNpy) {
    const y = (await session.run(feeds))[session.outputNames[0]];
    writeNpyF32(outputNpy, y.dims, y.data);
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
