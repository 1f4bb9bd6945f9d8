#!/usr/bin/env python3
"""Summarises the Google Benchmark JSON files of scripts/bench.

Usage: summarize.py OUT_DIR
Reads OUT_DIR/{pile,chain,core_chain,landing,cradles,multibody,core_random}.json (those
present), prints the summary table with the headline lines
  pile: propagative/stock step-time ratio = X
  chain N=10000: Y reflections/s
  core chain N=10000: Z reflections/s (slowest numbering: ...)
  core chain N=100000: reflections/s per numbering
  landing: propagative/stock mean step-time ratio = X, p99 ratio = Y
  pile / landing: impact friction on/off step-time ratio = X (when both variants ran)
and writes OUT_DIR/summary.csv. Statistics are over the individual repetitions
(run_type "iteration"): the median, and the spread as (max - min) / median
(landing's p99 is taken within a repetition, over all its steps, then the
median over repetitions). Times are CPU time of the benchmark thread: pile,
chain and landing time themselves with CLOCK_THREAD_CPUTIME_ID (manual time),
cradles, core_chain and core_random use Google Benchmark's cpu_time.
"""
import csv
import json
import os
import statistics
import sys
from collections import defaultdict


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def repetitions(data):
    """name (without /manual_time and repeats suffix) -> list of benchmark dicts."""
    runs = defaultdict(list)
    if not data:
        return runs
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"]).replace("/manual_time", "")
        runs[name].append(b)
    return runs


def to_ms(b, key="real_time"):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    return b[key] * scale


def stats(values):
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med if med else 0.0
    return med, spread, len(values)


def main():
    out = sys.argv[1]
    rows = []  # (scene, case, metric, median, spread, repetitions)
    lines = []

    pile = repetitions(load(os.path.join(out, "pile.json")))
    pile_ms = {}
    for name, runs in sorted(pile.items()):
        med, spread, n = stats([to_ms(b) for b in runs])
        pile_ms[name.split("/")[1]] = med
        rows.append(("pile", name.split("/")[1], "ms_per_step", med, spread, n))
        if "our_ms_per_step" in runs[0]:
            m2, s2, _ = stats([b["our_ms_per_step"] for b in runs])
            rows.append(("pile", name.split("/")[1], "our_solver_ms_per_step", m2, s2, n))
            m3, s3, _ = stats([b["clusters_per_step"] for b in runs])
            rows.append(("pile", name.split("/")[1], "clusters_per_step", m3, s3, n))

    chain = repetitions(load(os.path.join(out, "chain.json")))
    slowest = {}
    for name, runs in sorted(chain.items(), key=lambda kv: (kv[0].split("/")[1], int(kv[0].split("/")[2]))):
        _, order, count = name.split("/")
        ms, ms_spread, n = stats([to_ms(b) for b in runs])
        rate, rate_spread, _ = stats([b["reflections_per_s"] for b in runs])
        whole, _, _ = stats([b["solve_group_ms"] for b in runs])
        bullet, _, _ = stats([b["bullet_pass_ms"] for b in runs])
        refl = runs[0]["reflections"]
        case = f"{order}/N={count}"
        rows.append(("chain", case, "our_ms_per_impact", ms, ms_spread, n))
        rows.append(("chain", case, "reflections", refl, 0.0, n))
        rows.append(("chain", case, "reflections_per_s", rate, rate_spread, n))
        rows.append(("chain", case, "ns_per_reflection", 1e9 / rate, rate_spread, n))
        rows.append(("chain", case, "solve_group_ms", whole, 0.0, n))
        rows.append(("chain", case, "bullet_pass_ms", bullet, 0.0, n))
        if count == "10000":
            slowest[order] = rate

    cradles = repetitions(load(os.path.join(out, "cradles.json")))
    cradle_ms = {}
    for name, runs in sorted(cradles.items()):
        med, spread, n = stats([to_ms(b, "cpu_time") for b in runs])
        cradle_ms[name.split("/")[1]] = med
        rows.append(("cradles", name.split("/")[1], "ms_per_step", med, spread, n))

    multibody = repetitions(load(os.path.join(out, "multibody.json")))
    multibody_ms = {}
    for name, runs in sorted(multibody.items()):
        med, spread, n = stats([to_ms(b, "cpu_time") for b in runs])
        multibody_ms[name.split("/")[1]] = med
        rows.append(("multibody", name.split("/")[1], "ms_per_step", med, spread, n))

    core_chain = repetitions(load(os.path.join(out, "core_chain.json")))
    core_slowest, core_largest = {}, {}
    for name, runs in sorted(core_chain.items(), key=lambda kv: (kv[0].split("/")[1], int(kv[0].split("/")[2]))):
        _, order, count = name.split("/")
        case = f"{order}/N={count}"
        us, us_spread, n = stats([1e3 * to_ms(b, "cpu_time") for b in runs])
        rate, rate_spread, _ = stats([b["reflections_per_s"] for b in runs])
        rows.append(("core_chain", case, "us_per_impact", us, us_spread, n))
        rows.append(("core_chain", case, "reflections", runs[0]["reflections"], 0.0, n))
        rows.append(("core_chain", case, "reflections_per_s", rate, rate_spread, n))
        rows.append(("core_chain", case, "ns_per_reflection", 1e9 / rate, rate_spread, n))
        if count == "10000":
            core_slowest[order] = rate
        if count == "100000":
            core_largest[order] = rate

    landing = repetitions(load(os.path.join(out, "landing.json")))
    landing_ms = {}
    for name, runs in sorted(landing.items()):
        solver = name.split("/")[1]
        for key in ("mean_ms", "p99_ms", "max_ms", "impacts_per_drop", "cap_hits", "our_ms_per_step", "our_max_ms", "steps"):
            if key not in runs[0]:
                continue
            med, spread, n = stats([b[key] for b in runs])
            rows.append(("landing", solver, key, med, spread, n))
            landing_ms[(solver, key)] = med

    core = repetitions(load(os.path.join(out, "core_random.json")))
    for name, runs in sorted(core.items()):
        case = name.split("/")[1]
        for key in ("reflections_per_s", "plastic_solves_per_s", "resolves_per_s", "reflections_per_resolve"):
            med, spread, n = stats([b[key] for b in runs])
            rows.append(("core_random", case, key, med, spread, n))

    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scene", "case", "metric", "median", "spread", "repetitions"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], f"{r[3]:.6g}", f"{r[4]:.3f}", r[5]])

    width = max((len(r[1]) for r in rows), default=10)
    print(f"{'scene':<12} {'case':<{width}} {'metric':<24} {'median':>12} {'spread':>8} reps")
    for r in rows:
        print(f"{r[0]:<12} {r[1]:<{width}} {r[2]:<24} {r[3]:>12.4g} {100 * r[4]:>7.1f}% {r[5]}")
    print()
    if {"propagative", "bullet_si_split", "bullet_si"} <= pile_ms.keys():
        lines.append(f"pile: propagative/stock step-time ratio = {pile_ms['propagative'] / pile_ms['bullet_si_split']:.3f}"
                     f" (baseline: stock with split impulse on every overlap; target <= 1.10)")
        lines.append(f"pile: propagative/stock-defaults step-time ratio = {pile_ms['propagative'] / pile_ms['bullet_si']:.3f}")
    if {"propagative_friction", "propagative_frictionless", "bullet_si_split"} <= pile_ms.keys():
        on, off = pile_ms["propagative_friction"], pile_ms["propagative_frictionless"]
        lines.append(f"pile: impact friction on/off step-time ratio = {on / off:.3f}"
                     f" (on/stock {on / pile_ms['bullet_si_split']:.3f}, off/stock {off / pile_ms['bullet_si_split']:.3f})")
    stage_runs = pile.get("pile/propagative_stages")
    if stage_runs and "bullet_pass_ms" in stage_runs[0]:
        stages = (("classification", "classification_ms"), ("problem build", "problem_build_ms"),
                  ("prepare", "prepare_ms"), ("propagation", "propagation_ms"), ("plastic", "plastic_ms"),
                  ("analysis", "analysis_ms"), ("write-back", "write_back_ms"), ("Bullet's pass", "bullet_pass_ms"))
        split = ", ".join(f"{label} {stats([b[key] for b in stage_runs])[0]:.3f}" for label, key in stages)
        lines.append(f"pile split (ms/step, timed run): {split}")
    if slowest:
        order = min(slowest, key=slowest.get)
        lines.append(f"chain N=10000: {slowest[order]:.4g} reflections/s (slowest numbering: {order}; target >= 1e7)")
    if core_slowest:
        order = min(core_slowest, key=core_slowest.get)
        lines.append(f"core chain N=10000: {core_slowest[order]:.4g} reflections/s"
                     f" (slowest numbering: {order}; target >= 2e7)")
    if core_largest:
        rates = ", ".join(f"{order} {rate:.4g}" for order, rate in sorted(core_largest.items()))
        lines.append(f"core chain N=100000: reflections/s {rates}")
    for base, label in (("bullet_si", "stock"), ("bullet_si_split", "stock-split")):
        keys = [(s, k) for s in ("propagative", base) for k in ("mean_ms", "p99_ms")]
        if all(k in landing_ms for k in keys):
            mean = landing_ms[("propagative", "mean_ms")] / landing_ms[(base, "mean_ms")]
            p99 = landing_ms[("propagative", "p99_ms")] / landing_ms[(base, "p99_ms")]
            lines.append(f"landing: propagative/{label} mean step-time ratio = {mean:.3f}, p99 ratio = {p99:.3f}"
                         + (" (targets <= 1.1, <= 1.5)" if base == "bullet_si" else ""))
    if all((s, "mean_ms") in landing_ms for s in ("propagative_friction", "propagative_frictionless", "bullet_si")):
        on, off = landing_ms[("propagative_friction", "mean_ms")], landing_ms[("propagative_frictionless", "mean_ms")]
        stock = landing_ms[("bullet_si", "mean_ms")]
        lines.append(f"landing: impact friction on/off mean step-time ratio = {on / off:.3f}"
                     f" (on/stock {on / stock:.3f}, off/stock {off / stock:.3f})")
    if {"propagative", "bullet_si"} <= cradle_ms.keys():
        lines.append(f"cradles: propagative/stock step-time ratio = {cradle_ms['propagative'] / cradle_ms['bullet_si']:.3f}"
                     f" ({cradle_ms['propagative']:.3g} ms vs {cradle_ms['bullet_si']:.3g} ms per step)")
    if {"propagative", "bullet_multibody"} <= multibody_ms.keys():
        lines.append(f"multibody pendulums: propagative/stock step-time ratio = "
                     f"{multibody_ms['propagative'] / multibody_ms['bullet_multibody']:.3f}"
                     f" ({multibody_ms['propagative']:.3g} ms vs {multibody_ms['bullet_multibody']:.3g} ms per step)")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
