import statistics

from kernelopt.core import measure


def test_bootstrap_ci_brackets_the_median():
    vals = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.005, 0.995]
    lo, hi = measure.bootstrap_ci(vals, 2000, 0.95, 0)
    assert lo <= statistics.median(vals) <= hi
    assert hi - lo < 0.05


def test_compare_sees_a_slower_function_on_cpu():
    import time

    # A 4x gap and 8 rounds of 5 reps: on a contended 2-core CI machine a sleep can overshoot
    # by milliseconds in a whole round (4 rounds of 1 vs 3 ms once gave a CI low of 0.80).
    def fast():
        time.sleep(0.002)

    def slow():
        time.sleep(0.008)

    c = measure.compare(fast, slow, "cpu", measure.Protocol(rounds=8, reps=5, warmup=1))
    assert c.ratio > 1.5 and c.ci_low > 1.2
    assert c.meaningful is False  # CPU timings are never presented as real
    d = c.to_dict()
    assert d["noise_band"] == [c.ci_low, c.ci_high] and len(d["round_ratios"]) == 8


def test_gpu_lock_is_reader_writer_and_counts_held_time(tmp_path, monkeypatch):
    """Shared holders overlap; an exclusive holder waits for them; held seconds are counted
    and run_stage reports them next to the job's log."""
    import json
    import threading
    import time

    from kernelopt.core import gpulock, stagelog

    monkeypatch.setenv("KERNELOPT_LOCK_DIR", str(tmp_path))
    monkeypatch.setattr(gpulock, "HELD", {"exclusive": 0.0, "shared": 0.0})
    order = []

    def reader(k):
        with gpulock.shared("cuda", f"r{k}"):
            order.append(f"r{k}+")
            time.sleep(0.3)
            order.append(f"r{k}-")

    ts = [threading.Thread(target=reader, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    time.sleep(0.1)
    with gpulock.exclusive("cuda", "w") as waited:
        order.append("w")
    for t in ts:
        t.join()
    assert order.index("r1+") < order.index("r0-") or order.index("r0+") < order.index("r1-")  # the readers overlapped
    assert order[-1] == "w" and waited > 0.1  # the writer waited for both
    assert gpulock.HELD["shared"] >= 0.55 and gpulock.HELD["exclusive"] >= 0.0
    log = tmp_path / "job.log"
    stagelog.run_stage("t", log, lambda: None)
    held = json.loads((tmp_path / "job.log.gpu.json").read_text())
    assert held["shared"] >= 0.55
    assert gpulock.exclusive.__doc__ and gpulock.shared.__doc__


def test_gpu_lock_gives_a_waiting_measurement_priority_over_new_readers(tmp_path, monkeypatch):
    """Readers that keep overlapping (each re-takes the lock at once, staggered) never leave
    the lock free; a writer must still get it once the readers already in have finished,
    not after all of them stop."""
    import threading
    import time

    from kernelopt.core import gpulock

    monkeypatch.setenv("KERNELOPT_LOCK_DIR", str(tmp_path))
    monkeypatch.setattr(gpulock, "HELD", {"exclusive": 0.0, "shared": 0.0})
    stop = time.perf_counter() + 4.0

    def reader(delay):
        time.sleep(delay)
        while time.perf_counter() < stop:
            with gpulock.shared("cuda", "r"):
                time.sleep(0.2)

    ts = [threading.Thread(target=reader, args=(k * 0.07,)) for k in range(3)]
    for t in ts:
        t.start()
    time.sleep(0.5)
    with gpulock.exclusive("cuda", "w") as waited:
        got = time.perf_counter()
    for t in ts:
        t.join()
    assert waited < 1.0, f"the writer waited {waited:.2f} s behind readers that kept coming"
    assert got < stop - 2.0
