#!/usr/bin/env bash
# Installs every Debian package the hetcim toolkit needs (build, tests, benchmarks, reports).
# Idempotent: does nothing (and prints one line) when everything is already installed.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git clang libclang-rt-14-dev clang-format clang-tidy
  # models: ONNX protobufs (find_package(Protobuf) must precede find_package(ONNX))
  libonnx-dev libprotobuf-dev protobuf-compiler
  # CPU kernels: oneDNN (its CMake config needs the OpenCL ICD loader)
  libdnnl-dev ocl-icd-opencl-dev libopenblas-dev
  # MILP
  coinor-libcbc-dev
  # statistics
  libboost-math-dev
  # training and data
  libtorch-dev dataset-fashion-mnist
  # image folders as data sets (src/data/image_folder.cpp): stb_image.h, stb_image_write.h
  libstb-dev
  # CLI, configs, JSON
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # reports: figures (in the DejaVu Sans of report/figure_style.h) and a headless browser for the
  # report tests
  gnuplot-nox chromium fonts-dejavu-core
  # the benchmark summaries of bench/partition (standard library only), and the real-exporter
  # corpus (tests/corpus/make_corpus.py): PyTorch-exported ONNX files made with Debian's Python,
  # torch and torchvision (random weights, nothing downloaded)
  python3 python3-onnx python3-numpy python3-torch python3-torchvision
  # the Python package (pybind11 binding of the api module) and its pytest suite; `pip install .`
  # into a virtual environment, `python3 -m build`, and its progress bars (tqdm)
  pybind11-dev python3-dev python3-pytest python3-venv python3-build python3-tqdm
  # optional MPI (src/dist): `mpirun -np N hetcim dse` over ranks; hetcim builds without it
  libopenmpi-dev openmpi-bin
)
# The ORT benchmark peer comes from npm: Node.js with npm is needed; Debian's npm only when the
# machine has no npm of its own (a nodesource nodejs ships npm and conflicts with Debian's).
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(nodejs npm); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# ONNX Runtime as the corpus test's oracle (npm onnxruntime-node, pinned by
# tests/corpus/ort/package-lock.json); its install script only fetches GPU extras, which
# ONNXRUNTIME_NODE_INSTALL=skip turns off.
install_ort_oracle() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/tests/corpus/ort"
  if [ ! -f "$dir/node_modules/onnxruntime-node/package.json" ]; then
    echo "install-deps: npm ci in $dir (onnxruntime-node for the corpus test)"
    (cd "$dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --silent)
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  install_ort_oracle
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_ort_oracle
echo "install-deps: done"
