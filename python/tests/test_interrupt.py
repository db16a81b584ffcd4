"""Ctrl-C stops a long call (issue 36): a child process starts a search that would run for minutes,
gets SIGINT, and must raise KeyboardInterrupt within a second or so; the next call in the same
process then runs normally (the stop request does not linger)."""

import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = r"""
import signal, sys, time
import hetcim
# A child of a non-interactive shell may start with SIGINT ignored; a user's Python has the
# default handler (KeyboardInterrupt).
signal.signal(signal.SIGINT, signal.default_int_handler)
job = sys.argv[1]
start = time.monotonic()
print("calling", flush=True)
try:
    if job == "partition":
        # YOLOv5n's full latency-energy front with weight copies: no point within 300 s (bench/
        # README.md, partition, session 22). The single point used before (200 crossbars, 500 ns)
        # is proven in 0.2 s since the solver decides devices before copies (56cfde7).
        hetcim.partition_front("yolov5n", preset="seed000-x86", crossbars=100, t_mvm="500ns",
                               replicas=4, front="full", time_limit=300)
    else:
        # Eight serial-bus points with copies, 20-30 s in all at 1 thread (the slowest 5-12 s).
        hetcim.dse(models="yolov5n", crossbars="100,200", t_mvm="50ns,100ns,500ns,1000ns",
                   hosts="x86", replicas=4, bus_model="serial", threads=1, time_limit=300)
    print("returned after %.1f s" % (time.monotonic() - start), flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
# The next call is not stopped by the earlier request: its own 1 s limit ends it.
plan = hetcim.partition("yolov5n", preset="seed000-x86", crossbars=200, t_mvm="50ns",
                        replicas=4, bus_model="serial", time_limit=1)
print("next:", plan.status, flush=True)
"""


@pytest.mark.parametrize("job", ["partition", "dse"])
def test_ctrl_c_interrupts_a_long_search_within_a_second(job):
    p = subprocess.Popen([sys.executable, "-c", CHILD, job], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "calling\n"
        time.sleep(2.0)  # well inside the search
        assert p.poll() is None, p.stderr.read()
        p.send_signal(signal.SIGINT)
        sent = time.monotonic()
        line = p.stdout.readline()
        waited = time.monotonic() - sent
        assert line == "KeyboardInterrupt\n", line + p.stderr.read()
        assert waited < 2.0, f"KeyboardInterrupt {waited:.2f} s after SIGINT"
        rest, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert rest == "next: ok, time-limit, solved\n", rest + err
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
