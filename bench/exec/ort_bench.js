// ONNX Runtime side of bench/exec/ort_compare.sh.
//
//   node ort_bench.js MODEL.onnx THREADS WARMUP RUNS INPUT.npy OUTPUT.npy [SPIN]
//     loads one ONNX file with every graph optimisation enabled, runs it on INPUT.npy (the same
//     file hetcim reads), writes the first output to OUTPUT.npy and prints one JSON line with the
//     per-run latencies (milliseconds, wall time around session.run) and the median process CPU
//     time per run. SPIN 0 turns off the intra-op pool's spin-waiting
//     (session.intra_op.allow_spinning).
//   node ort_bench.js --make-input SHAPE SEED OUT.npy
//     writes a float32 .npy of SHAPE (like 1x3x224x224), uniform in [-1, 1) from xorshift32(SEED).
//   node ort_bench.js --compare TEST.npy REFERENCE.npy TOLERANCE
//     prints the largest absolute difference and exits 1 unless it is <= TOLERANCE x the largest
//     |REFERENCE| (and the shapes agree).
'use strict';
const fs = require('fs');

// .npy version 1.0, little-endian float32, C order (what hetcim reads and writes).
function readNpy(path) {
  const b = fs.readFileSync(path);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = b[6];
  const headerLen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = b.toString('latin1', major === 1 ? 10 : 12, start);
  if (!/'descr':\s*'<f4'/.test(header)) throw new Error(`${path}: expected float32 ('<f4'), got ${header}`);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${path}: Fortran order is not supported`);
  const m = /'shape':\s*\(([^)]*)\)/.exec(header);
  const shape = m[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const n = shape.reduce((a, c) => a * c, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = b.readFloatLE(start + 4 * i);
  return {shape, data};
}

function writeNpy(path, shape, data) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const h = Buffer.alloc(10);
  h.write('\x93NUMPY', 0, 'latin1');
  h[6] = 1; h[7] = 0;
  h.writeUInt16LE(header.length, 8);
  const body = Buffer.alloc(4 * data.length);
  for (let i = 0; i < data.length; ++i) body.writeFloatLE(data[i], 4 * i);
  fs.writeFileSync(path, Buffer.concat([h, Buffer.from(header, 'latin1'), body]));
}

function makeInput(shapeStr, seed, out) {
  const shape = shapeStr.split('x').map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let s = (Number(seed) >>> 0) || 12345;  // xorshift32: uniform in [-1, 1)
  for (let i = 0; i < n; ++i) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    data[i] = (s / 4294967296) * 2 - 1;
  }
  writeNpy(out, shape, data);
}

function compare(testPath, refPath, tolerance) {
  const t = readNpy(testPath), r = readNpy(refPath);
  if (t.shape.join('x') !== r.shape.join('x')) {
    console.log(JSON.stringify({equal: false, reason: `shapes differ: ${t.shape} vs ${r.shape}`}));
    process.exit(1);
  }
  let maxDiff = 0, maxRef = 0;
  for (let i = 0; i < r.data.length; ++i) {
    maxDiff = Math.max(maxDiff, Math.abs(t.data[i] - r.data[i]));
    maxRef = Math.max(maxRef, Math.abs(r.data[i]));
  }
  const ok = Number.isFinite(maxDiff) && maxDiff <= Number(tolerance) * maxRef;
  console.log(JSON.stringify({equal: ok, max_abs_diff: maxDiff, max_abs_reference: maxRef,
                              relative: maxRef > 0 ? maxDiff / maxRef : maxDiff, tolerance: Number(tolerance)}));
  process.exit(ok ? 0 : 1);
}

async function bench(path, threads, warmup, runs, inputPath, outputPath, spin) {
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(path, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: true,
    enableMemPattern: true,
    extra: {session: {intra_op: {allow_spinning: spin === '0' ? '0' : '1'}}},
  });
  const input = readNpy(inputPath);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', input.data, input.shape)};
  const first = await session.run(feeds);
  const out = first[session.outputNames[0]];
  writeNpy(outputPath, out.dims, out.data);
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

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--make-input' && args.length === 4) return makeInput(args[1], args[2], args[3]);
  if (args[0] === '--compare' && args.length === 4) return compare(args[1], args[2], args[3]);
  if (args.length < 6) {
    console.error('usage: node ort_bench.js MODEL.onnx THREADS WARMUP RUNS INPUT.npy OUTPUT.npy [SPIN]\n' +
                  '       node ort_bench.js --make-input SHAPE SEED OUT.npy\n' +
                  '       node ort_bench.js --compare TEST.npy REFERENCE.npy TOLERANCE');
    process.exit(2);
  }
  return bench(...args);
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
