/* SPDX-License-Identifier: MIT */
/* Random numbers for process models: L'Ecuyer's MRG32k3a with streams and substreams,
 * and the variates Arena offers, by inversion where the inverse is known. */
#ifndef CDEVS_RANDOM_H
#define CDEVS_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * MRG32k3a (L'Ecuyer, Operations Research 47(1), 1999): two multiple recursive
 * generators of order 3, modulo m1 = 2^32 − 209 and m2 = 2^32 − 22853,
 *   x1[n] = (1403580·x1[n−2] − 810728·x1[n−3]) mod m1,
 *   x2[n] = (527612·x2[n−1] − 1370589·x2[n−3]) mod m2,
 *   u[n]  = ((x1[n] − x2[n]) mod m1) / (m1 + 1), and m1/(m1 + 1) where that is 0,
 * so u is in (0, 1). Its period is about 2^191. As in L'Ecuyer, Simard, Chen & Kelton
 * (Operations Research 50(6), 2002) the sequence is cut into streams 2^127 steps apart,
 * each cut into substreams 2^76 steps apart, reached by jumping with the transition
 * matrices raised to those powers.
 *
 * A seed is six words: the first three below m1 and not all 0, the last three below
 * m2 and not all 0. Streams are numbered from a package seed; cdevs gives each random
 * source of a model the stream numbered by a 64-bit hash of its hierarchical name
 * (cdevs_rng_named), so adding a source does not move the others, and replication r
 * runs every source on its substream r.
 */
typedef struct cdevs_rng {
  int64_t s[6];      /* the current state: x1[n−3..n−1], x2[n−3..n−1] */
  int64_t stream[6]; /* the start of the stream */
  int64_t sub[6];    /* the start of the current substream */
  int antithetic;    /* nonzero: every u is replaced by 1 − u */
} cdevs_rng;

/* L'Ecuyer's default package seed, 12345 six times. */
#define CDEVS_RNG_DEFAULT_SEED 12345

/* The package seed of `--seed n`: n = 0 is the default (12345 six times); any other n
 * gives six words from the splitmix64 sequence started at n, reduced modulo m1 and m2
 * (a triple that comes out all zero is made 1, 1, 1). */
void cdevs_rng_package_seed(uint64_t n, uint32_t seed[6]);
/* CDEVS_EINVAL if seed is not a valid MRG32k3a seed (see above). */
cdevs_status cdevs_rng_check_seed(const uint32_t seed[6]);

/* g on stream `index` of the package seed: the state A^(index·2^127)·seed. It starts
 * at the beginning of its substream 0. */
void cdevs_rng_stream(cdevs_rng *g, const uint32_t seed[6], uint64_t index);
/* The 64-bit hash of a name that cdevs_rng_named uses as the stream index (FNV-1a,
 * then the splitmix64 finaliser). */
uint64_t cdevs_rng_name_hash(const char *name);
/* g on the stream of a hierarchical name ("line.arrive"). */
void cdevs_rng_named(cdevs_rng *g, const uint32_t seed[6], const char *name);

/* To the beginning of substream r of the current stream (r < 2^51). */
void cdevs_rng_substream(cdevs_rng *g, uint64_t r);
/* To the beginning of the next substream. */
void cdevs_rng_next_substream(cdevs_rng *g);
/* Back to the beginning of the current substream (common random numbers). */
void cdevs_rng_reset_substream(cdevs_rng *g);
/* Ahead by n steps of the recurrence (any n, by the matrix power). */
void cdevs_rng_advance(cdevs_rng *g, uint64_t n);

/* The next uniform in (0, 1), or 1 − it when g is antithetic. */
double cdevs_rng_u01(cdevs_rng *g);

/* ---- Variates ------------------------------------------------------------------------
 * The parameters follow Arena's (the seed's ARENALib reproduces Arena), with Arena's
 * short names accepted beside the long ones by cdevs_dist_kind_parse:
 *   Constant(c)                     CONS
 *   Uniform(min, max)               UNIF   inversion
 *   Exponential(mean)               EXPO   inversion
 *   Normal(mean, sd)                NORM   inversion (Halley steps on erfc)
 *   Lognormal(mean, sd)             LOGN   of the variable itself, not of its log
 *   Triangular(min, mode, max)      TRIA   inversion
 *   Erlang(phase_mean, k)           ERLA   k ≥ 1 integer; the mean is k·phase_mean
 *   Gamma(beta, alpha)              GAMM   scale beta, shape alpha; mean alpha·beta
 *                                          (Marsaglia & Tsang 2000, no inverse known)
 *   Beta(beta, alpha)               BETA   density ∝ x^(beta−1)·(1−x)^(alpha−1) on
 *                                          [0, 1] (Arena's order), from two gammas
 *   Weibull(beta, alpha)            WEIB   scale beta, shape alpha; inversion
 *   Poisson(mean)                   POIS   inversion by sequential search
 *   Bernoulli(p)                    BERN   1 with probability p, else 0
 *   Discrete(c1, v1, c2, v2, …)     DISC   value vi with cumulative probability ci;
 *                                          c increasing, the last 1; inversion
 *   Continuous(c1, v1, c2, v2, …)   CONT   the piecewise-linear distribution with
 *                                          F(vi) = ci (v increasing, the last c 1): a
 *                                          mass c1 at v1, then linear; inversion
 */
typedef enum cdevs_dist_kind {
  CDEVS_DIST_CONSTANT = 0,
  CDEVS_DIST_UNIFORM,
  CDEVS_DIST_EXPONENTIAL,
  CDEVS_DIST_NORMAL,
  CDEVS_DIST_LOGNORMAL,
  CDEVS_DIST_TRIANGULAR,
  CDEVS_DIST_ERLANG,
  CDEVS_DIST_GAMMA,
  CDEVS_DIST_BETA,
  CDEVS_DIST_WEIBULL,
  CDEVS_DIST_POISSON,
  CDEVS_DIST_BERNOULLI,
  CDEVS_DIST_DISCRETE,
  CDEVS_DIST_CONTINUOUS,
  CDEVS_DIST_KINDS
} cdevs_dist_kind;

/* The most (probability, value) pairs of a DISC or CONT. */
#define CDEVS_DIST_MAX_PAIRS 32

/* A distribution with its parameters: p[0..] in the order above, and for DISC and
 * CONT npairs pairs in p (c1, v1, c2, v2, …). Plain data, copied by value. */
typedef struct cdevs_dist {
  int kind; /* cdevs_dist_kind */
  int npairs;
  double p[2 * CDEVS_DIST_MAX_PAIRS];
} cdevs_dist;

/* The long name ("Exponential"). */
const char *cdevs_dist_kind_name(int kind);
/* The kind named by a long or Arena short name (case-sensitive long, upper-case short),
 * or −1. */
int cdevs_dist_kind_parse(const char *name);
/* How many parameters a kind takes; −1 for DISC and CONT (an even number ≥ 2). */
int cdevs_dist_arity(int kind);
/* Builds d from a kind and n parameters and checks them: CDEVS_OK, or CDEVS_EINVAL with
 * the reason written to why (e.g. "Exponential needs mean > 0 (got -1)"). */
cdevs_status cdevs_dist_make(cdevs_dist *d, int kind, const double *p, int n, char *why,
                             size_t why_size);
/* Checks a distribution filled in by hand (a params struct's field) as
 * cdevs_dist_make would: CDEVS_OK, or CDEVS_EINVAL with the reason in why. */
cdevs_status cdevs_dist_check(const cdevs_dist *d, char *why, size_t why_size);
/* One variate drawn with g. */
double cdevs_dist_sample(const cdevs_dist *d, cdevs_rng *g);
/* The distribution's mean and variance (NaN where the parameters are invalid). */
double cdevs_dist_mean(const cdevs_dist *d);
double cdevs_dist_variance(const cdevs_dist *d);
/* Writes "Exponential(1.25)"; returns the length it needs. */
size_t cdevs_dist_format(const cdevs_dist *d, char *buf, size_t size);

/* The standard normal quantile Φ⁻¹(u) for u in (0, 1), to full double precision. */
double cdevs_normal_quantile(double u);

#ifdef __cplusplus
}
#endif
#endif
