// ONNX Runtime's per-node kernel times, the peer of `hetcim profile` (bench/README.md, exec:
// "Where ResNet-50 fp32 stands at 1 thread"): loads one ONNX file with every graph optimisation
// (as ort_bench.js does), runs WARMUP + RUNS inferences of batch 1 on an input of 0.5s with ORT's
// profiler on, and prints per node of the optimised graph, in execution order, its op type and the
// median of its kernel time over the timed runs (microseconds), then their sum and the median
// run. ORT names a node after its first output; a fused node (Conv + Relu, Conv + Add + Relu)
// after the output of the last operator it absorbed, with "_nchwc" where it runs in NCHWc blocks.
//   node ort_profile.js MODEL.onnx SHAPE [THREADS=1] [WARMUP=5] [RUNS=20]
'use strict';
const ort = require('onnxruntime-node');
const fs = require('fs');
const os = require('os');
const path = require('path');

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const [file, shapeStr, threads = '1', warmup = '5', runs = '20'] = process.argv.slice(2);
  if (!file || !shapeStr) {
    console.error('usage: node ort_profile.js MODEL.onnx SHAPE [THREADS] [WARMUP] [RUNS]');
    process.exit(2);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  let events;
  try {
    const session = await ort.InferenceSession.create(file, {
      graphOptimizationLevel: 'all',
      intraOpNumThreads: Number(threads),
      interOpNumThreads: 1,
      executionMode: 'sequential',
      enableProfiling: true,
      profileFilePrefix: path.join(dir, 'p'),
    });
    const shape = shapeStr.split('x').map(Number);
    const input = new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(0.5), shape);
    const total = Number(warmup) + Number(runs);
    for (let i = 0; i < total; ++i) await session.run({[session.inputNames[0]]: input});
    session.endProfiling();
    events = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]), 'utf8'));
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }

  // Kernel events come once per node and run, in execution order; keep the timed runs only.
  const kernels = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
  const perNode = new Map();
  for (const e of kernels) {
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!perNode.has(name)) perNode.set(name, {op: e.args.op_name, us: []});
    perNode.get(name).us.push(e.dur);
  }
  const runsUs = events.filter((e) => e.name === 'model_run').map((e) => e.dur).slice(Number(warmup));
  console.log(`# ${file}, ONNX Runtime ${ort.env.versions.common}, ${threads} thread(s), ${warmup} warm-up + ${runs} runs`);
  console.log('node\top_type\tmedian_us');
  let sum = 0;
  for (const [name, n] of perNode) {
    const m = median(n.us.slice(Number(warmup)));
    sum += m;
    console.log(`${name}\t${n.op}\t${m.toFixed(1)}`);
  }
  console.log(`# sum of node medians ${(sum / 1000).toFixed(3)} ms; median run ${(median(runsUs) / 1000).toFixed(3)} ms (profiled)`);
}

main().catch((e) => {
  console.error('ort_profile: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
