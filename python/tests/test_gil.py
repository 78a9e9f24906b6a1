"""The GIL is released while the engine copies: another Python thread runs meanwhile."""

import random
import threading
import time

import numpy as np

import dmlref


def iterations_during(work):
    """Runs `work` three times on a thread while this thread counts loop iterations; returns how
    many ran in the middle half of each call of `work`, and the seconds those halves lasted. (At a
    call's edges the worker runs bytecode, which hands the GIL over every switch interval, 5 ms:
    only the middle tells whether the call itself let this thread run.)"""
    windows = []
    ready = threading.Event()

    def worker():
        ready.wait()
        for _ in range(3):
            start = time.perf_counter()
            work()
            windows.append((start, time.perf_counter()))

    thread = threading.Thread(target=worker)
    stamps = []
    thread.start()
    ready.set()
    while thread.is_alive():
        stamps.append(time.perf_counter())
    thread.join()
    stamps = np.array(stamps)
    middles = [(a + (b - a) / 4, b - (b - a) / 4) for a, b in windows]
    inside = sum(int(((stamps > a) & (stamps < b)).sum()) for a, b in middles)
    return inside, sum(b - a for a, b in middles)


def test_two_threads_run_at_once():
    x = np.ones((1, 16, 1024, 1024), np.float32)  # 64 MiB
    out = np.empty((1, 4, 2048, 2048), np.float32)
    inside, seconds = iterations_during(lambda: dmlref.depth_to_space(x, 2, "crd", out=out))
    # This thread kept looping while the copies ran, where a held GIL lets none through (the
    # test below holds the same measure to a call that holds it).
    assert seconds > 0.005 and inside > 10_000 * seconds, (inside, seconds)


def test_the_measure_sees_a_held_gil():
    # sorted() on a list of ints holds the GIL for its whole run: the same measure finds (almost)
    # no iterations inside it. This is what the test above would see if dmlref held the GIL.
    draw = random.Random(0)
    numbers = [draw.getrandbits(40) for _ in range(1_000_000)]  # Python ints: compared in C, no bytecode
    inside, seconds = iterations_during(lambda: sorted(numbers))
    assert seconds > 0.05 and inside < 1_000 * seconds, (inside, seconds)
