"""The generated files of the package (the .pyi stubs and the libtorch module's tables,
python/scripts/make_stubs.py) are those of the current options tables and functions: this fails
when one is stale, naming it and the command that rewrites it."""

import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "scripts", "make_stubs.py")


def test_stubs_and_tables_are_up_to_date():
    r = subprocess.run([sys.executable, SCRIPT, "--check"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "make_stubs: up to date"


def test_the_stub_declares_every_keyword_of_partition():
    import inspect  # noqa: PLC0415

    import hetcim  # noqa: PLC0415
    stub = open(os.path.join(os.path.dirname(hetcim.__file__), "__init__.pyi")).read()
    part = stub[stub.index("def partition(\n"):]
    part = part[:part.index('"""')]
    for name in inspect.signature(hetcim.partition).parameters:
        assert f"    {name}" in part, name
