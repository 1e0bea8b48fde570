/* SPDX-License-Identifier: MIT */
/* DEVStone: model sizes and transition/event counts against the published formulas.
   The formulas are those of the reference test suites (xdevs.py tests/test_devstone.py;
   the adevs, xdevs.rs and xdevs.java tests state the same), written out here, not
   taken from cdevs. One event at t = 0 enters every input port of the root. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"

typedef struct expect {
  uint64_t atomics, eic, ic, eoc, internals, events;
} expect;

static expect formulas(cdevs_devstone_type type, uint64_t d, uint64_t w) {
  expect e = {0, 0, 0, 0, 0, 0};
  switch (type) {
  case CDEVS_DEVSTONE_LI:
    e.atomics = (w - 1) * (d - 1) + 1;
    e.eic = w * (d - 1) + 1;
    e.ic = 0;
    e.eoc = d;
    e.internals = e.events = (w - 1) * (d - 1) + 1;
    break;
  case CDEVS_DEVSTONE_HI:
  case CDEVS_DEVSTONE_HO:
    e.atomics = (w - 1) * (d - 1) + 1;
    e.eic = type == CDEVS_DEVSTONE_HI ? w * (d - 1) + 1 : (w + 1) * (d - 1) + 1;
    e.ic = w > 2 ? (w - 2) * (d - 1) : 0;
    e.eoc = type == CDEVS_DEVSTONE_HI ? d : w * (d - 1) + 1;
    e.internals = e.events = (w - 1) * w / 2 * (d - 1) + 1;
    break;
  case CDEVS_DEVSTONE_HOMOD: {
    e.atomics = ((w - 1) + (w - 1) * w / 2) * (d - 1) + 1;
    e.eic = (2 * (w - 1) + 1) * (d - 1) + 1;
    e.ic = ((w > 1 ? (w - 2) * (w - 1) / 2 : 0) + (w - 1) * (w - 1) + (w - 1)) * (d - 1);
    e.eoc = d;
    /* transitions: the loop of the reference test */
    uint64_t trans = 1, tr_atomics = w * (w - 1) / 2;
    for (uint64_t i = 1; i < d; i++) {
      uint64_t num_inputs = 1 + (i - 1) * (w - 1);
      uint64_t first_row = (w - 1) * (num_inputs + w - 1);
      trans += num_inputs * tr_atomics + first_row;
    }
    e.internals = trans;
    /* events (messages received): likewise */
    uint64_t n = 1;
    if (w > 1 && d > 1) {
      n += 2 * (w - 1);
      uint64_t aux = 0;
      for (uint64_t i = 2; i < d; i++) aux += 1 + (i - 1) * (w - 1);
      n += aux * 2 * (w - 1) * (w - 1);
      n += (aux + 1) * ((w - 1) * (w - 1) + (w - 2) * (w - 1) / 2);
    }
    e.events = n;
    break;
  }
  }
  return e;
}

static void check_one(cdevs_devstone_type type, uint32_t d, uint32_t w) {
  cdevs_devstone_params p = {type, d, w, 0.0, 0.0};
  expect e = formulas(type, d, w);
  cdevs_model *root = cdevs_devstone_build(NULL, &p);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_OK);
  cdevs_model_counts mc;
  cdevs_model_counts_get(root, &mc);
  int bad = check_failed;
  CHECK_EQ_INT(mc.atomics, e.atomics);
  CHECK_EQ_INT(mc.eic, e.eic);
  CHECK_EQ_INT(mc.ic, e.ic);
  CHECK_EQ_INT(mc.eoc, e.eoc);
  cdevs_sim_opts o = cdevs_sim_opts_default();
  o.max_transitions_per_instant = UINT64_MAX;
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, &o, &sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_devstone_seed(sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, INFINITY), CDEVS_OK);
  cdevs_devstone_counts c;
  cdevs_devstone_counts_get(sim, &c);
  CHECK_EQ_INT(c.internals, e.internals);
  CHECK_EQ_INT(c.externals, e.internals); /* every activation is one δext and one δint */
  CHECK_EQ_INT(c.events, e.events);
  /* The kernel's own counters agree with what the models counted (δconf counts as one
     δint and one δext in the reference atomic). */
  cdevs_stats st;
  cdevs_sim_stats(sim, &st);
  CHECK_EQ_INT(st.internals + st.confluents, e.internals);
  CHECK_EQ_INT(st.externals + st.confluents, e.internals);
  CHECK_EQ_INT(cdevs_sim_time(sim), 0); /* all of DEVStone happens at t = 0 */
  if (check_failed != bad)
    fprintf(stderr, "  (in %s depth=%u width=%u)\n", cdevs_devstone_type_name(type), d, w);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* Trees far deeper than the C stack allows recursion for (200,000 levels: recursive
 * building, flattening, freeing and naming each overflowed 8 MB) build, run and free. */
static void test_deep(void) {
  check_one(CDEVS_DEVSTONE_LI, 200000, 2);
  check_one(CDEVS_DEVSTONE_HO, 200000, 2);
  /* the innermost atomic's path: devstone.l199999.l199998. … .l1.a0 */
  cdevs_devstone_params p = {CDEVS_DEVSTONE_LI, 200000, 1, 0.0, 0.0};
  cdevs_model *root = cdevs_devstone_build(NULL, &p);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_OK);
  cdevs_model *m = root;
  char name[32];
  for (uint32_t k = p.depth - 1; k >= 1 && m; k--) {
    snprintf(name, sizeof name, "l%u", k);
    m = cdevs_model_child(m, name);
  }
  m = cdevs_model_child(m, "a0");
  CHECK(m != NULL);
  /* ".l" + digits for each of the 199,999 levels: 9 one-digit, 90 two-digit, … */
  size_t want = strlen("devstone") + strlen(".a0");
  for (uint32_t k = 1; k < p.depth; k++) want += 2 + (size_t)snprintf(name, sizeof name, "%u", k);
  char buf[40];
  CHECK_EQ_INT(cdevs_model_path(m, buf, sizeof buf), want);
  CHECK_STR(buf, "devstone.l199999.l199998.l199997.l19999"); /* 39 characters and the NUL */
  cdevs_model_free(root);
}

int main(void) {
  test_deep();
  static const uint32_t ds[] = {1, 2, 3, 4, 7};
  static const uint32_t ws[] = {1, 2, 3, 5, 8};
  for (int t = CDEVS_DEVSTONE_LI; t <= CDEVS_DEVSTONE_HOMOD; t++)
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++)
      for (size_t j = 0; j < sizeof ws / sizeof *ws; j++) check_one((cdevs_devstone_type)t, ds[i], ws[j]);
  /* a few larger ones, and the worked examples of the reference tests */
  check_one(CDEVS_DEVSTONE_LI, 50, 50);
  check_one(CDEVS_DEVSTONE_HI, 30, 20);
  check_one(CDEVS_DEVSTONE_HO, 30, 20);
  check_one(CDEVS_DEVSTONE_HOMOD, 8, 6);
  check_one(CDEVS_DEVSTONE_HOMOD, 20, 20);
  /* by hand: HO depth 4 width 5 has 13 atomics and 31 transitions; HOmod 3x3 has 11
     atomics, 29 transitions, 49 events (worked in the xdevs.py test comments) */
  expect e = formulas(CDEVS_DEVSTONE_HO, 4, 5);
  CHECK_EQ_INT(e.atomics, 13);
  CHECK_EQ_INT(e.internals, 31);
  e = formulas(CDEVS_DEVSTONE_HOMOD, 3, 3);
  CHECK_EQ_INT(e.atomics, 11);
  CHECK_EQ_INT(e.internals, 29);
  CHECK_EQ_INT(e.events, 49);

  /* bad parameters are a building error, not a crash */
  cdevs_devstone_params bad = {CDEVS_DEVSTONE_HO, 0, 5, 0, 0};
  cdevs_model *root = cdevs_devstone_build(NULL, &bad);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_EINVAL);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "depth >= 1");
  cdevs_model_free(root);
  /* sizes that cannot fit are refused before building, saying what they need:
     LI 2 x 4e9 is (w-1)(d-1)+1 = 4e9 atomics and w(d-1)+1 + d couplings (>= 300 B an
     atomic: 1.2 TB); HO 65537 x 65537
     is 65536^2 + 1 > 2^32 atomics, more than ids can number */
  cdevs_devstone_params huge = {CDEVS_DEVSTONE_LI, 2, 4000000000u, 0, 0};
  root = cdevs_devstone_build(NULL, &huge);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ENOMEM);
  /* The figure depends on this build's structure sizes: between 300 B and 2 KB per
   * atomic model and its coupling, i.e. 1,200 to 8,000 GB. */
  const char *em = strstr(cdevs_model_errmsg(root), "DEVStone LI depth 2 width 4000000000 needs at least ");
  double gb = 0.0;
  CHECK(em && sscanf(em, "DEVStone LI depth 2 width 4000000000 needs at least %lf GB", &gb) == 1);
  CHECK(gb >= 1200.0 && gb <= 8000.0);
  CHECK_CONTAINS(cdevs_model_errmsg(root), " GB (4000000000 atomic models, 4000000003 couplings)");
  cdevs_model_counts mc;
  cdevs_model_counts_get(root, &mc);
  CHECK_EQ_INT(mc.atomics, 0); /* refused before building anything */
  cdevs_model_free(root);
  cdevs_devstone_params many = {CDEVS_DEVSTONE_HO, 65537, 65537, 0, 0};
  root = cdevs_devstone_build(NULL, &many);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ENOMEM);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "at most 4294967295 fit in one model");
  cdevs_model_free(root);
  CHECK_EQ_INT(cdevs_devstone_type_parse("homod"), CDEVS_DEVSTONE_HOMOD);
  CHECK_EQ_INT(cdevs_devstone_type_parse("XX"), -1);
  return check_report("test_devstone");
}
