import statistics

from kernelopt import measure


def test_bootstrap_ci_brackets_the_median():
    vals = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.005, 0.995]
    lo, hi = measure.bootstrap_ci(vals, 2000, 0.95, 0)
    assert lo <= statistics.median(vals) <= hi
    assert hi - lo < 0.05


def test_compare_sees_a_slower_function_on_cpu():
    import time

    def fast():
        time.sleep(0.001)

    def slow():
        time.sleep(0.003)

    c = measure.compare(fast, slow, "cpu", measure.Protocol(rounds=4, reps=3, warmup=1))
    assert c.ratio > 1.5 and c.ci_low > 1.2
    assert c.meaningful is False  # CPU timings are never presented as real
    d = c.to_dict()
    assert d["noise_band"] == [c.ci_low, c.ci_high] and len(d["round_ratios"]) == 4
