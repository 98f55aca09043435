#!/usr/bin/env python3
"""Independent reference values for tests/unit/test_{mcnemar,wilcoxon,bootstrap}.c.

Run from this folder: python3 gen_paired_fixtures.py   (standard library; scipy, when
installed, is used as a second, independent source and must agree). It rewrites the three
*.txt fixtures next to it. Each value is computed here the slow, obvious way, not the way the C
code does it:

  mcnemar_exact.txt   exact binomial tails with Fraction and math.comb:
                      p_two = min(1, 2 P(X <= min(b, c))), p_worse = P(X >= b), X ~ Bin(b+c, 1/2);
                      checked against scipy.stats.binomtest (two-sided / greater).
  wilcoxon.txt        exact rows: W+ and the tails by brute force over all 2^n sign vectors
                      (itertools.product) on the midranks, exact Fractions; rows without ties are
                      checked against scipy.stats.wilcoxon(method="exact"). n up to 16 by brute
                      force; the n = 30 and n = 50 exact rows come from scipy's exact
                      distribution (no ties there). Normal rows (n > 50): the textbook formula
                      written out here (mean n(n+1)/4, tie-corrected variance, continuity
                      correction 1/2), checked against scipy.stats.wilcoxon(method="approx",
                      correction=True).
  bootstrap_exact.txt the exact bootstrap distribution of the mean for small samples: all n^n
                      resamples enumerated; the quantiles the C code estimates with many
                      resamples (lowest v with F(v) >= (1-c)/2, lowest v with F(v) >= (1+c)/2),
                      with the CDF margin around each so a test knows the estimate is stable.
"""
import itertools
import math
import random
from fractions import Fraction

try:
    import scipy.stats as ss
except ImportError:  # the standard-library values stand alone
    ss = None


def binom_le(k, n):
    return Fraction(sum(math.comb(n, i) for i in range(0, k + 1)), 2 ** n)


def mcnemar():
    rows = []
    for b, c in [(0, 0), (1, 0), (0, 1), (3, 0), (5, 1), (1, 5), (2, 2), (10, 2), (7, 13),
                 (25, 10), (0, 12), (40, 25), (120, 95)]:
        n = b + c
        if n == 0:
            p2, pw = Fraction(1), Fraction(1)
        else:
            p2 = min(Fraction(1), 2 * binom_le(min(b, c), n))
            pw = 1 - binom_le(b - 1, n) if b > 0 else Fraction(1)
        if ss is not None and n > 0:
            assert abs(ss.binomtest(b, n, 0.5).pvalue - float(p2)) < 1e-12, (b, c)
            assert abs(ss.binomtest(b, n, 0.5, alternative="greater").pvalue - float(pw)) < 1e-12
        rows.append("%d %d %.17g %.17g" % (b, c, float(p2), float(pw)))
    with open("mcnemar_exact.txt", "w") as f:
        f.write("# worse better p_two_sided p_worse   (exact binomial, Fraction + math.comb)\n")
        f.write("\n".join(rows) + "\n")


def midranks(a):
    order = sorted(range(len(a)), key=lambda i: a[i])
    r = [Fraction(0)] * len(a)
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = Fraction(i + j + 2, 2)
        i = j + 1
    return r


def brute(d):
    nz = [x for x in d if x != 0]
    n = len(nz)
    r = midranks([abs(x) for x in nz])
    wplus = sum(r[i] for i in range(n) if nz[i] > 0)
    le = ge = 0
    for signs in itertools.product((0, 1), repeat=n):
        w = sum(r[i] for i in range(n) if signs[i])
        le += w <= wplus
        ge += w >= wplus
    tot = 2 ** n
    pl, pg = Fraction(le, tot), Fraction(ge, tot)
    return wplus, pl, pg, min(Fraction(1), 2 * min(pl, pg)), len(set(abs(x) for x in nz)) < n


def normal(d):
    nz = [x for x in d if x != 0]
    n = len(nz)
    r = midranks([abs(x) for x in nz])
    wplus = float(sum(r[i] for i in range(n) if nz[i] > 0))
    groups = {}
    for x in nz:
        groups[abs(x)] = groups.get(abs(x), 0) + 1
    tie = sum(t ** 3 - t for t in groups.values())
    mean = n * (n + 1) / 4
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - tie / 48)
    phi = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))
    pl = phi((wplus - mean + 0.5) / sd)
    pg = phi(-(wplus - mean - 0.5) / sd)
    return wplus, pl, pg, min(1.0, 2 * min(pl, pg))


def wilcoxon():
    rng = random.Random(20261129)
    cases = [
        [1, 2, 3, 4, 5],
        [-1, 2, -3, 4, 5, 6],
        [3, -1, 4, -1, 5, -9, 2, 6],            # a tie in |d|
        [0, 0, 2, -3, 5, 7, -11, 13, 17],      # zeros dropped
        [-2, -2, -2, 2, 5, -7, -7, 9, -12, -15],  # several tie groups
        [rng.randint(-50, 40) for _ in range(12)],
        [rng.randint(-30, 60) for _ in range(16)],
        [-5, -4, -3, -2, -1],                  # all negative: smallest p
        [4] * 6,                               # all tied and positive
    ]
    rows = []
    for d in cases:
        wplus, pl, pg, p2, ties = brute(d)
        n = len([x for x in d if x != 0])
        if ss is not None and not ties:
            nz = [x for x in d if x != 0]
            assert abs(ss.wilcoxon(nz, method="exact").pvalue - float(p2)) < 1e-12, d
            assert abs(ss.wilcoxon(nz, method="exact", alternative="less").pvalue - float(pl)) < 1e-12
        rows.append("exact %d %.17g %.17g %.17g %.17g | %s" % (
            n, float(wplus), float(p2), float(pl), float(pg), " ".join(str(x) for x in d)))
    if ss is not None:  # larger exact rows: scipy's exact distribution, distinct |d|
        for n in (30, 50):
            mags = rng.sample(range(1, 1000), n)
            d = [m if rng.random() < 0.35 else -m for m in mags]
            res2 = ss.wilcoxon(d, method="exact")
            resl = ss.wilcoxon(d, method="exact", alternative="less")
            resg = ss.wilcoxon(d, method="exact", alternative="greater")
            wplus = float(sum(midranks([abs(x) for x in d])[i] for i in range(n) if d[i] > 0))
            rows.append("exact %d %.17g %.17g %.17g %.17g | %s" % (
                n, wplus, res2.pvalue, resl.pvalue, resg.pvalue, " ".join(str(x) for x in d)))
    for n, spread in ((60, 40), (80, 25), (120, 15)):
        d = [rng.randint(-spread, spread + 3) for _ in range(n)]  # many ties and some zeros
        wplus, pl, pg, p2 = normal(d)
        nz = [x for x in d if x != 0]
        if ss is not None:
            kw = dict(method="approx", correction=True, zero_method="wilcox")
            assert abs(ss.wilcoxon(d, **kw).pvalue - p2) < 1e-12
            assert abs(ss.wilcoxon(d, alternative="less", **kw).pvalue - pl) < 1e-12
            assert abs(ss.wilcoxon(d, alternative="greater", **kw).pvalue - pg) < 1e-12
        rows.append("normal %d %.17g %.17g %.17g %.17g | %s" % (
            len(nz), wplus, p2, pl, pg, " ".join(str(x) for x in d)))
    with open("wilcoxon.txt", "w") as f:
        f.write("# method n_nonzero w_plus p_two_sided p_less p_greater | d[...]   (see the script)\n")
        f.write("\n".join(rows) + "\n")


def bootstrap():
    rows = []
    for x, conf in (([0.1, 0.4, 0.35, 0.9, 0.2], 0.95), ([-1.0, 0.5, 2.0, 0.25, 3.0], 0.9),
                    ([0.3, -0.2, 0.7, 0.05, 1.1, -0.6], 0.95)):
        n = len(x)
        counts = {}
        for idx in itertools.product(range(n), repeat=n):
            m = sum(Fraction(x[i]).limit_denominator(10 ** 6) for i in idx) / n
            counts[m] = counts.get(m, 0) + 1
        vals = sorted(counts)
        tot = n ** n
        cdf, acc = [], 0
        for v in vals:
            acc += counts[v]
            cdf.append(Fraction(acc, tot))
        lo_t, hi_t = Fraction(1 - Fraction(str(conf))) / 2, Fraction(1 + Fraction(str(conf))) / 2
        out = []
        for t in (lo_t, hi_t):
            k = next(i for i, c in enumerate(cdf) if c >= t)
            below = cdf[k - 1] if k > 0 else Fraction(0)
            margin = min(abs(cdf[k] - t), abs(t - below))
            out += [float(vals[k]), float(margin)]
        rows.append("%g %.17g %.6g %.17g %.6g | %s" % (conf, out[0], out[1], out[2], out[3],
                                                         " ".join(repr(v) for v in x)))
    with open("bootstrap_exact.txt", "w") as f:
        f.write("# confidence q_low cdf_margin_low q_high cdf_margin_high | x[...]   "
                "(all n^n resamples enumerated)\n")
        f.write("\n".join(rows) + "\n")


mcnemar()
wilcoxon()
bootstrap()
print("scipy cross-check:", "done" if ss is not None else "skipped (scipy not installed)")
