/*
 * What the C API test's files share: the check macros, and the standard configuration and
 * observation of api_test.c (which holds main and runs every file's tests).
 */
#ifndef HPA_API_TEST_H
#define HPA_API_TEST_H

#include <stdio.h>
#include <string.h>

#include "hpa.h"

extern int passed;
extern int failed;

#define CHECK(cond)                                                                    \
  do {                                                                                 \
    if (cond) {                                                                        \
      passed++;                                                                        \
    } else {                                                                           \
      failed++;                                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
    }                                                                                  \
  } while (0)

#define CHECK_STATUS(expr, want)                                                       \
  do {                                                                                 \
    hpa_status got_ = (expr);                                                          \
    if (got_ == (hpa_status)(want)) {                                                  \
      passed++;                                                                        \
    } else {                                                                           \
      failed++;                                                                        \
      fprintf(stderr, "%s:%d: %s returned %u (%s), expected %u (%s)\n", __FILE__,       \
              __LINE__, #expr, (unsigned)got_, hpa_status_str(got_), (unsigned)(want), \
              hpa_status_str(want));                                                   \
    }                                                                                  \
  } while (0)

#define CHECK_STR(got, want)                                                           \
  do {                                                                                 \
    const char *g_ = (got);                                                            \
    const char *w_ = (want);                                                           \
    if (g_ != NULL && strcmp(g_, w_) == 0) {                                           \
      passed++;                                                                        \
    } else {                                                                           \
      failed++;                                                                        \
      fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__,     \
              #got, g_ ? g_ : "(null)", w_);                                           \
    }                                                                                  \
  } while (0)

hpa_str S(const char *s);

/* One autoscaler, a decision and a workspace per test, in static storage. */
extern hpa_autoscaler g_autoscaler;
extern hpa_decision g_decision;
extern hpa_field_error g_error;
extern unsigned char g_workspace[1 << 16];

/* 4 web pods of one container requesting 500m CPU, each sampled. */
extern hpa_container k_container;
extern hpa_pod g_pods[16];
extern hpa_sample g_samples[16];

hpa_metric cpu_metric(int32_t percent);
hpa_config config_with(const hpa_metric *metrics, size_t n, int32_t max);
void make_pods(size_t n, int64_t cpu_milli);
hpa_metric_values samples_values(size_t n);
hpa_observation observation(int64_t now, int32_t replicas, size_t pods,
                            const hpa_metric_values *values, size_t n);
/* A behavior whose scale-up has one policy, into `c`. */
void scale_up_with(hpa_config *c, hpa_behavior *b, hpa_scaling_rules *up,
                   const hpa_scaling_policy *policy);
void init(hpa_autoscaler *a);
hpa_status evaluate(hpa_autoscaler *a, const hpa_config *c, const hpa_observation *o);
/* Whether two decisions say the same in every member a caller reads. */
int decision_equal(const hpa_decision *a, const hpa_decision *b);
int scaling_status_equal(const hpa_scaling_status *a, const hpa_scaling_status *b);

/* snapshot_test.c */
void test_snapshot_round_trip(void);
void test_snapshot_damage(void);
void test_snapshot_arguments(void);

/* overlap_test.c */
void test_input_overlap(void);

/* stack_test.c */
void test_stack(void);

#endif
