#!/usr/bin/env python3
"""Synthetic A/A data for bench/verdicts_eval, in verdicts_collect.sh's CSV format, drawn from the
noise model measured in issue 30's 832 A/A runs, so the methods can be checked where that noise
is known exactly (a machine's own noise changes with its load):

  log value = shared round effect + instance effect + trial noise

  * instance effect: per made target, normal, sd BETWEEN / sqrt(2) (so the log ratio of a pair
    has sd BETWEEN: 0.072 in the issue);
  * trial noise: Student t with DF degrees of freedom scaled to sd WITHIN / sqrt(2) (the log
    ratio's round-to-round sd: 0.178; DF 5 gives an excess kurtosis of 6, the issue saw 7.3);
  * shared round effect: normal, sd SHARED, the same for every trial of a round (what makes the
    trials of a round correlate: +0.36 in the issue with SHARED 0.1).

  bench/verdicts_synthetic.py OUT.csv [--runs 3000] [--seed 1]
Writes OUT.csv and OUT-runs.csv with 'targets' runs (one pair, 5 rounds, as the issue ran) and
'instances' runs (6 pairs x 2 rounds), each trial taking 0.1 s and each target 0.25 s to make.
"""
import argparse
import math
import random

WITHIN, BETWEEN, SHARED, DF = 0.178, 0.072, 0.10, 5


def trial_noise(rng):
    t = rng.gauss(0, 1) / math.sqrt(rng.gammavariate(DF / 2, 2) / DF)
    return t * math.sqrt((DF - 2) / DF) * WITHIN / math.sqrt(2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--runs", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    with open(a.out, "w") as trials, open(a.out[:-4] + "-runs.csv", "w") as runs:
        trials.write("design,run,system,round,value,seconds\n")
        runs.write("design,run,epoch,wall_seconds,load1,setup_seconds,teardown_seconds,rc\n")
        run = 0
        for design, pairs, rounds in (("targets", 1, 5), ("instances", 6, 2)):
            for _ in range(a.runs):
                run += 1
                effects = [(rng.gauss(0, BETWEEN / math.sqrt(2)), rng.gauss(0, BETWEEN / math.sqrt(2)))
                           for _ in range(pairs)]
                for r in range(1, rounds + 1):
                    shared = rng.gauss(0, SHARED)
                    for k, (ea, eb) in enumerate(effects, 1):
                        for side, e in (("A", ea), ("B", eb)):
                            name = side if k == 1 else f"{side} #{k}"
                            value = 500 * math.exp(shared + e + trial_noise(rng))
                            trials.write(f"{design},{run},{name},{r},{value:.2f},0.1\n")
                runs.write(f"{design},{run},0,0,0,{0.1 * pairs},{0.15 * pairs},0\n")


if __name__ == "__main__":
    main()
