#!/usr/bin/env python3
"""Independent reference values for tests/unit/test_{signflip,holm,comparison}.c.

Run from this folder: python3 gen_fixtures.py   (needs only the standard library and mpmath;
takes about a minute). It rewrites the *.txt fixtures next to it. Each value is computed
here the slow, obvious way, not the way the C code does it:

  signflip_exact.txt  p-values by brute force over all 2^n sign vectors (itertools.product),
                      in exact integer arithmetic (data are integers in units of 1e-5).
  signflip_mc.txt     Monte Carlo counts with the generator the C header specifies
                      (SplitMix64 output w = mix((seed ^ "SIGNFLIP") + (w+1)*gamma), draw j =
                      words j*W..,
                      bit b flips block b), re-implemented here, T* >= T tested on sign vectors.
  signflip_ci.txt     interval bounds by evaluating the brute-force p-value at every subset
                      mean (the only places it jumps) and keeping the non-rejected ones.
  holm_closed.txt     Holm's rejections and adjusted p-values from the closed testing principle
                      (Marcus, Peritz & Gabriel 1976) with Bonferroni local tests: every subset
                      of hypotheses enumerated. Holm 1979 proved the two coincide.
  t_quantiles.txt     Student t quantiles from mpmath's regularized incomplete beta (30 digits).
"""
import itertools
import random
from fractions import Fraction

import mpmath

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


SIGNFLIP = 0x5349474E464C4950  # "SIGNFLIP": the stream's domain constant


def splitmix64_at(seed, i):
    z = ((seed ^ SIGNFLIP) + (i + 1) * GAMMA) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def brute_counts(x):
    """#{s: sum(s*x) >= sum(x)} and #{s: sum(s*x) <= sum(x)} over all sign vectors s."""
    t = sum(x)
    ge = le = 0
    for s in itertools.product((1, -1), repeat=len(x)):
        ts = sum(si * xi for si, xi in zip(s, x))
        ge += ts >= t
        le += ts <= t
    return ge, le


def exact_cases(rng):
    cases = []
    # (n, data, mu0): integers in units of 1e-5 of log ratio. Ties on purpose: repeated values,
    # zeros (equal block medians), values equal to mu0.
    cases.append((1, [120], 0))
    cases.append((2, [120, -40], 0))
    cases.append((5, [30, -10, 20, 5, 15], 0))
    cases.append((6, [100, 100, 100, 100, 100, 100], 100))      # every assignment a tie
    cases.append((8, [12, -3, 7, 7, 0, 25, -8, 4], 5))
    cases.append((10, [995, 1003, 990, 1010, 998, 1001, 996, 1004, 999, 1000], 995))
    for n, scale, shift in ((12, 130, 0), (14, 130, 995), (16, 130, 300), (16, 800, 0),
                            (18, 130, 1000)):
        d = [round(rng.gauss(shift, scale)) for _ in range(n)]
        for mu0 in (0, 995, shift):
            cases.append((n, d, mu0))
    d20 = [round(rng.gauss(150, 300)) for _ in range(20)]
    for mu0 in (0, 100, 300):
        cases.append((20, d20, mu0))
    out = []
    for n, d, mu0 in cases:
        ge, le = brute_counts([v - mu0 for v in d])
        out.append(f"{n} {mu0} {ge} {le} {1 << n} " + " ".join(map(str, d)))
    return out


def mc_cases(rng):
    out = []
    for n, seed, draws, mu_list in ((24, 12345, 3000, (0, 40, 120)),
                                     (70, 0xDEADBEEF, 2000, (0, 100)),
                                     (20, 7, 4000, (0, 100, 300))):
        d = [round(rng.gauss(60, 300)) for _ in range(n)]
        words = (n + 63) // 64
        flips = []
        for j in range(draws):
            bits = [splitmix64_at(seed, j * words + w) for w in range(words)]
            flips.append([-1 if (bits[b // 64] >> (b % 64)) & 1 else 1 for b in range(n)])
        for mu0 in mu_list:
            x = [v - mu0 for v in d]
            t = sum(x)
            ge = sum(sum(s * xi for s, xi in zip(f, x)) >= t for f in flips)
            le = sum(sum(s * xi for s, xi in zip(f, x)) <= t for f in flips)
            out.append(f"{n} {seed} {draws} {mu0} {ge} {le} " + " ".join(map(str, d)))
    return out


def ci_cases(rng):
    out = []
    for n, conf in ((10, 0.95), (10, 0.90), (9, 0.95), (4, 0.95)):
        d = [round(rng.gauss(500, 200)) for _ in range(n)]
        means = sorted({Fraction(sum(d[b] for b in f), len(f))
                        for k in range(1, n + 1) for f in itertools.combinations(range(n), k)})
        a = (1 - conf) / 2
        total = 1 << n

        def p_pair(mu):
            x = [Fraction(v) - mu for v in d]
            ge, le = brute_counts_frac(x)
            return ge / total, le / total

        kept_lo = [mu for mu in means if p_pair(mu)[0] > a]
        kept_hi = [mu for mu in means if p_pair(mu)[1] > a]
        lo = min(kept_lo)
        hi = max(kept_hi)
        # When even the most extreme mean is not rejected the bound is infinite.
        lo_s = "-inf" if p_pair(means[0] - 1)[0] > a else repr(float(lo))
        hi_s = "inf" if p_pair(means[-1] + 1)[1] > a else repr(float(hi))
        out.append(f"{n} {conf} {lo_s} {hi_s} " + " ".join(map(str, d)))
    return out


def brute_counts_frac(x):
    # Scale to integers (common denominator) so the comparison is exact and fast.
    den = 1
    for v in x:
        den = den * v.denominator // __import__("math").gcd(den, v.denominator)
    return brute_counts([int(v * den) for v in x])


def holm_cases(rng):
    out = []
    vectors = [
        [0.01, 0.04, 0.03, 0.005],          # Wikipedia's Holm example: reject H1, H4
        [0.001, 0.008, 0.039, 0.041, 0.042, 0.060, 0.074, 0.205],
        [0.02, 0.02, 0.02],
        [0.2, 0.001, 0.9, 0.0125, 0.0126],
    ]
    for _ in range(6):
        m = rng.randint(3, 9)
        vectors.append([round(rng.random() ** 3 * 0.2, 5) for _ in range(m)])
    for p in vectors:
        m = len(p)
        alpha = 0.05
        reject, adj = [], []
        for i in range(m):
            worst = 0.0
            ok = True
            for k in range(1, m + 1):
                for s in itertools.combinations(range(m), k):
                    if i not in s:
                        continue
                    local = min(p[j] for j in s)
                    ok &= local <= alpha / k
                    worst = max(worst, min(1.0, k * local))
            reject.append(int(ok))
            adj.append(worst)
        out.append(f"{m} {alpha} " + " ".join(map(repr, p)) + " | " +
                   " ".join(map(str, reject)) + " | " + " ".join(map(repr, adj)))
    return out


def t_quantiles():
    mpmath.mp.dps = 30
    out = []
    for df in (1, 2, 5, 15, 31, 63, 1000):
        for p in ("0.8", "0.9", "0.975", "0.99", "0.999", "0.9996666666666667"):
            pm = mpmath.mpf(p)
            cdf = lambda t: 1 - mpmath.betainc(df / mpmath.mpf(2), mpmath.mpf("0.5"), 0,
                                               df / (df + t * t), regularized=True) / 2
            lo, hi = mpmath.mpf(0), mpmath.mpf(1)
            while cdf(hi) < pm:
                hi *= 2
            for _ in range(200):
                mid = (lo + hi) / 2
                if cdf(mid) < pm:
                    lo = mid
                else:
                    hi = mid
            out.append(f"{df} {p} {mpmath.nstr((lo + hi) / 2, 17)}")
    return out


def write(name, header, lines):
    with open(name, "w") as f:
        f.write(header.rstrip() + "\n")
        for line in lines:
            f.write(line + "\n")


def main():
    rng = random.Random(20240604)
    write("signflip_exact.txt",
          "# n mu0 count(T*>=T) count(T*<=T) 2^n d[0..n)   (d, mu0 in units of 1e-5)",
          exact_cases(rng))
    write("signflip_mc.txt",
          "# n seed draws mu0 count(T*>=T) count(T*<=T) d[0..n)   (units of 1e-5)",
          mc_cases(rng))
    write("signflip_ci.txt",
          "# n confidence lo hi d[0..n)   (units of 1e-5; bounds as floats in the same units)",
          ci_cases(rng))
    write("holm_closed.txt",
          "# m alpha p[0..m) | reject[0..m) | adjusted[0..m)   (closed testing, Bonferroni)",
          holm_cases(rng))
    write("t_quantiles.txt", "# df p quantile   (mpmath, 30 digits)", t_quantiles())


if __name__ == "__main__":
    main()
