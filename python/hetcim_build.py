"""The PEP 517 build backend of the hetcim Python package (pyproject.toml: ``build-backend =
"hetcim_build"``, ``backend-path = ["python"]``): ``pip install .`` and ``python3 -m build``.

It needs nothing from a package index (``requires = []``), so both work offline, and nothing but
the standard library: CMake builds the modules (the targets ``hetcim_python`` and, with libtorch,
``hetcim_python_torch``, python/CMakeLists.txt), and this file packs what the build put in
``<build>/python/hetcim`` with the shipped data (data/chips.yaml, data/paper, installed as
``<prefix>/share/hetcim``, where the module looks first: util/shipped_data.h) into a wheel.

Where it builds (``--config-settings KEY=VALUE`` with pip or build, or the environment):

- ``build-dir`` (``HETCIM_BUILD_DIR``): a CMake build directory; configured when it has no
  CMakeCache.txt (Release, Ninja when installed, no tests or benchmarks), then the two targets
  built. Default: ``build/wheel`` in the source tree.
- ``prebuilt`` (``HETCIM_PREBUILT=1``): pack ``<build-dir>/python/hetcim`` as it is, without
  running CMake (a tree another command just built, e.g. the test of this package).
- ``strip`` (``HETCIM_STRIP=1``): strip the debug information from the modules in the wheel (a
  RelWithDebInfo tree's modules are over 100 MB each).
- ``jobs`` (``HETCIM_JOBS``): parallel build jobs (default: CMake's).
"""

import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "hetcim"
SUMMARY = ("Neural networks on heterogeneous CPU + in-memory-computing systems: partitioning, "
           "design-space exploration, analog-chip simulation (Python binding of the C++ core)")


def _version():
    text = open(os.path.join(SOURCE, "CMakeLists.txt")).read()
    m = re.search(r"project\(hetcim\s+VERSION\s+([0-9.]+)", text)
    if not m:
        raise RuntimeError("hetcim_build: no 'project(hetcim VERSION x.y.z)' in CMakeLists.txt")
    return m.group(1)


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key)
    if value is None:
        value = os.environ.get(env)
    return value


def _flag(config_settings, key, env):
    return str(_setting(config_settings, key, env) or "").lower() in ("1", "true", "yes", "on")


def _metadata():
    readme = "The README.md of the source tree, section Python, says how to use it."
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\nProvides-Extra: progress\n"
            "Requires-Dist: tqdm; extra == \"progress\"\n"
            f"Description-Content-Type: text/plain\n\n{readme}\n")


def _tag():
    name = {"cpython": "cp"}.get(sys.implementation.name, sys.implementation.name)
    impl = f"{name}{sys.version_info[0]}{sys.version_info[1]}"
    abi = impl
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return impl, abi, plat


def _wheel_file():
    impl, abi, plat = _tag()
    return (f"Wheel-Version: 1.0\nGenerator: hetcim_build\nRoot-Is-Purelib: false\n"
            f"Tag: {impl}-{abi}-{plat}\n")


def _run(cmd):
    print("hetcim_build: " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _build(config_settings):
    """The directory holding the built package (<build>/python/hetcim)."""
    build = _setting(config_settings, "build-dir", "HETCIM_BUILD_DIR") or os.path.join(
        SOURCE, "build", "wheel")
    build = os.path.abspath(build)
    if not _flag(config_settings, "prebuilt", "HETCIM_PREBUILT"):
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            cmd = ["cmake", "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                   "-DHETCIM_BUILD_TESTS=OFF", "-DHETCIM_BUILD_BENCH=OFF",
                   "-DHETCIM_BUILD_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                cmd += ["-G", "Ninja"]
            _run(cmd)
        cmd = ["cmake", "--build", build, "--target", "hetcim_python"]
        jobs = _setting(config_settings, "jobs", "HETCIM_JOBS")
        if jobs:
            cmd += ["-j", str(int(jobs))]
        _run(cmd)
    package = os.path.join(build, "python", NAME)
    if not os.path.exists(os.path.join(package, "__init__.py")):
        raise RuntimeError(f"hetcim_build: {package} holds no built package (build the target "
                           "hetcim_python there, or drop 'prebuilt')")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not os.path.exists(os.path.join(package, "_hetcim" + suffix)):
        raise RuntimeError(f"hetcim_build: {package} has no _hetcim{suffix}: it was built for "
                           f"another Python than {sys.executable}")
    return package


def _files(package, strip, scratch):
    """[(path in the wheel, file on disk)]: the package, then the shipped data."""
    out = []
    for name in sorted(os.listdir(package)):
        path = os.path.join(package, name)
        if not os.path.isfile(path) or name.endswith(".pyc"):
            continue
        if strip and name.endswith(".so") and shutil.which("objcopy"):
            copy = os.path.join(scratch, name)
            _run(["objcopy", "--strip-debug", path, copy])
            path = copy
        out.append((f"{NAME}/{name}", path))
    data = f"{NAME}-{_version()}.data/data/share/hetcim"
    root = os.path.join(SOURCE, "data")
    for dirpath, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            out.append((f"{data}/{os.path.relpath(path, root)}", path))
    return out


def _record_row(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [arcname, f"sha256={digest}", str(len(data))]


def _dist_info(directory):
    info = f"{NAME}-{_version()}.dist-info"
    path = os.path.join(directory, info)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(_metadata())
    with open(os.path.join(path, "WHEEL"), "w") as f:
        f.write(_wheel_file())
    return info


# ---- PEP 517 hooks ----------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _dist_info(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build(config_settings)
    strip = _flag(config_settings, "strip", "HETCIM_STRIP")
    impl, abi, plat = _tag()
    wheel = f"{NAME}-{_version()}-{impl}-{abi}-{plat}.whl"
    info = f"{NAME}-{_version()}.dist-info"
    records = []
    os.makedirs(wheel_directory, exist_ok=True)
    target = os.path.join(wheel_directory, wheel)
    with tempfile.TemporaryDirectory() as scratch, \
            zipfile.ZipFile(target + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for arcname, path in _files(package, strip, scratch):
            data = open(path, "rb").read()
            zi = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data, compresslevel=1)
            records.append(_record_row(arcname, data))
        for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file())):
            data = text.encode()
            z.writestr(f"{info}/{name}", data)
            records.append(_record_row(f"{info}/{name}", data))
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows(records)
        w.writerow([f"{info}/RECORD", "", ""])
        z.writestr(f"{info}/RECORD", buf.getvalue())
    os.replace(target + ".part", target)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    """The source tree as git tracks it (a wheel built from it configures and builds anew)."""
    files = subprocess.run(["git", "-C", SOURCE, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.decode().split("\0")
    base = f"{NAME}-{_version()}"
    name = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for f in files:
            path = os.path.join(SOURCE, f)
            if f and os.path.isfile(path):
                t.add(path, arcname=f"{base}/{f}", recursive=False)
        data = _metadata().encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    return name
