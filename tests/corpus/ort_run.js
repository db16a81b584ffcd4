// ONNX Runtime side of the corpus oracle test (tests/corpus/CMakeLists.txt): for every model of a
// corpus manifest (tests/corpus/make_corpus.py), runs the stacked seeded inputs NAME.in.npy one
// sample at a time (batch 1) through onnxruntime-node with every graph optimisation on, one thread,
// and writes the stacked outputs as NAME.ort.npy (float32), plus NAME.ort.json naming the engine
// and version. An existing NAME.ort.npy newer than the model and its inputs is kept.
//   node ort_run.js CORPUS_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'ort', 'node_modules', 'onnxruntime-node'));

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + hlen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header)) {
    throw new Error(file + ': expected a little-endian float32 C-order array, header ' + header);
  }
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').map((s) => s.trim())
                    .filter((s) => s.length).map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = buf.readFloatLE(start + 4 * i);
  return {shape, data};
}

function writeNpy(file, shape, data) {
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape.join(', ') +
               (shape.length === 1 ? ',' : '') + '), }';
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10 + header.length);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  head.write(header, 10, 'latin1');
  const body = Buffer.alloc(4 * data.length);
  for (let i = 0; i < data.length; ++i) body.writeFloatLE(data[i], 4 * i);
  fs.writeFileSync(file + '.tmp', Buffer.concat([head, body]));
  fs.renameSync(file + '.tmp', file);
}

async function runModel(dir, row) {
  const [name, file, inputName, , , inputs] = row;
  const model = path.join(dir, file);
  const out = path.join(dir, name + '.ort.npy');
  const inPath = path.join(dir, inputs);
  if (fs.existsSync(out)) {
    const t = fs.statSync(out).mtimeMs;
    if (t >= fs.statSync(model).mtimeMs && t >= fs.statSync(inPath).mtimeMs) return;
  }
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const x = readNpy(inPath);
  const per = x.data.length / x.shape[0];
  const sample = [1, ...x.shape.slice(1)];
  let outShape = null;
  const chunks = [];
  for (let i = 0; i < x.shape[0]; ++i) {
    const feeds = {[inputName]: new ort.Tensor('float32', x.data.slice(i * per, (i + 1) * per), sample)};
    const r = await session.run(feeds);
    const y = r[session.outputNames[0]];
    if (y.type !== 'float32') throw new Error(model + ': output is ' + y.type + ', expected float32');
    outShape = y.dims;
    chunks.push(y.data);
  }
  const total = chunks.reduce((a, c) => a + c.length, 0);
  const all = new Float32Array(total);
  let o = 0;
  for (const c of chunks) { all.set(c, o); o += c.length; }
  writeNpy(out, [x.shape[0], ...outShape.slice(1)], all);
  fs.writeFileSync(path.join(dir, name + '.ort.json'),
                   JSON.stringify({engine: 'onnxruntime-node',
                                   version: require(path.join(__dirname, 'ort', 'node_modules',
                                                              'onnxruntime-node', 'package.json')).version,
                                   graph_optimization: 'all', threads: 1, samples: x.shape[0]}) + '\n');
}

async function main() {
  const dir = process.argv[2];
  if (!dir) { console.error('usage: node ort_run.js CORPUS_DIR'); process.exit(2); }
  const rows = fs.readFileSync(path.join(dir, 'manifest.tsv'), 'utf8').split('\n')
                   .filter((l) => l.length).map((l) => l.split('\t'));
  for (const row of rows) {
    try {
      await runModel(dir, row);
    } catch (e) {
      console.error('ort_run: ' + row[0] + ': ' + (e.message || e));
      process.exitCode = 1;
    }
  }
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
