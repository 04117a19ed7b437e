//! Statistics: order statistics of the iterations, and Welch's t-test for
//! `--compare`, with the Student t quantile computed for the (fractional)
//! Welch–Satterthwaite degrees of freedom instead of looked up in a table.

/// Summary of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Median (mean of the middle two for even `n`).
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for fewer than two values.
    pub stddev: f64,
}

impl Summary {
    /// Summarizes `values`; `None` when empty or when any value is not finite.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(Summary {
            n,
            min: v[0],
            max: v[n - 1],
            median,
            mean,
            stddev: var.sqrt(),
        })
    }
}

/// The result of Welch's two-sample t-test on the difference of means
/// (`b − a`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// `mean(b) − mean(a)`.
    pub diff: f64,
    /// Half-width of the confidence interval of `diff`.
    pub half_width: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// The two-sided t quantile used.
    pub t: f64,
    /// Whether the interval excludes zero.
    pub significant: bool,
}

/// Welch's t-test at `confidence` (e.g. 0.95). `None` with fewer than two
/// values on either side.
pub fn welch(a: &Summary, b: &Summary, confidence: f64) -> Option<Welch> {
    if a.n < 2 || b.n < 2 || !(0.0..1.0).contains(&confidence) {
        return None;
    }
    let va = a.stddev.powi(2) / a.n as f64;
    let vb = b.stddev.powi(2) / b.n as f64;
    let se2 = va + vb;
    let diff = b.mean - a.mean;
    if se2 == 0.0 {
        // No spread at all: any difference is exact.
        return Some(Welch {
            diff,
            half_width: 0.0,
            df: f64::INFINITY,
            t: 0.0,
            significant: diff != 0.0,
        });
    }
    let df = se2.powi(2) / (va.powi(2) / (a.n - 1) as f64 + vb.powi(2) / (b.n - 1) as f64);
    let t = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, df);
    let half_width = t * se2.sqrt();
    Some(Welch {
        diff,
        half_width,
        df,
        t,
        significant: diff.abs() > half_width,
    })
}

/// The `p` quantile (p > 0.5) of Student's t with `df` (> 0, possibly
/// fractional) degrees of freedom, by bisection on the CDF.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    // Two-sided tail mass beyond t: P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2).
    let tail = 2.0 * (1.0 - p);
    let two_sided = |t: f64| inc_beta(df / (df + t * t), df / 2.0, 0.5);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while two_sided(hi) > tail && hi < 1e12 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if two_sided(mid) > tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, nine coefficients).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function I_x(a, b).
fn inc_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    // The continued fraction converges fast for x < (a+1)/(a+b+2); use the
    // symmetry I_x(a,b) = 1 − I_{1−x}(b,a) on the other side.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(x, a, b) / a
    } else {
        1.0 - front * beta_cf(1.0 - x, b, a) / b
    }
}

/// Continued fraction for the incomplete beta function (modified Lentz).
fn beta_cf(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..1000 {
        let m = m as f64;
        // Even step.
        let num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 + num * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + num / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        // Odd step.
        let num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 + num * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + num / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::SplitMix;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_tables() {
        // Two-sided 95% (p = 0.975) and 99% (p = 0.995) from standard tables.
        for (df, q95, q99) in [
            (1.0, 12.7062, 63.6567),
            (2.0, 4.3027, 9.9248),
            (5.0, 2.5706, 4.0321),
            (10.0, 2.2281, 3.1693),
            (30.0, 2.0423, 2.7500),
            (1000.0, 1.9623, 2.5808),
        ] {
            let a = student_t_quantile(0.975, df);
            let b = student_t_quantile(0.995, df);
            assert!(close(a, q95, 1e-3), "df {df}: {a} vs {q95}");
            assert!(close(b, q99, 1e-3), "df {df}: {b} vs {q99}");
        }
        // Fractional df lies between its integer neighbours.
        let f = student_t_quantile(0.975, 4.5);
        assert!(f < student_t_quantile(0.975, 4.0) && f > student_t_quantile(0.975, 5.0));
    }

    #[test]
    fn summary_order_statistics() {
        let s = Summary::of(&[3.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!(
            (s.n, s.min, s.max, s.median, s.mean),
            (4, 1.0, 10.0, 2.5, 4.0)
        );
        assert!(close(s.stddev, (50.0f64 / 3.0).sqrt(), 1e-12));
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }

    /// Noisy samples around `mean` (sum of uniforms: roughly normal).
    fn noisy(rng: &mut SplitMix, mean: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let u: f64 = (0..4)
                    .map(|_| (rng.next() >> 11) as f64 / (1u64 << 53) as f64)
                    .sum();
                mean + spread * (u - 2.0)
            })
            .collect()
    }

    #[test]
    fn welch_sees_ten_percent_and_not_noise() {
        let mut rng = SplitMix(7);
        let (mut false_alarms, mut covered) = (0, 0);
        for _ in 0..200 {
            let a = Summary::of(&noisy(&mut rng, 10.0, 1.0, 30)).unwrap();
            let b = Summary::of(&noisy(&mut rng, 10.0, 1.0, 30)).unwrap();
            if welch(&a, &b, 0.95).unwrap().significant {
                false_alarms += 1;
            }
            // A real 10% difference with the same noise is always found.
            let c = Summary::of(&noisy(&mut rng, 11.0, 1.0, 30)).unwrap();
            let w = welch(&a, &c, 0.95).unwrap();
            assert!(w.significant, "{w:?}");
            if (w.diff - 1.0).abs() <= w.half_width {
                covered += 1;
            }
        }
        // The 95% interval holds the true difference about 95% of the time.
        assert!(
            covered >= 180,
            "interval covered the truth {covered} times in 200"
        );
        // About 5% of pure-noise comparisons are false alarms at 95%.
        assert!(false_alarms <= 25, "{false_alarms} false alarms in 200");
    }
}
