/*
 * Damaged autoscaler storage, from C: an autoscaler with a history (behavior HPA, External
 * metric, rescales of both directions, one pending) is copied, one copy per trial is damaged
 * (every byte of the storage with a bit flipped, random bytes overwritten, zeroed ranges),
 * and evaluating, reporting a rescale and reading the status on the copy must either refuse
 * with HPA_STATUS_CORRUPT_STATE (or HPA_STATUS_UNINITIALIZED when the marker was hit),
 * changing nothing, or, when the damage hit bytes the state does not use, give exactly what
 * the undamaged autoscaler gives. Never a crash, never a decision from garbage. Run by
 * ffi/tests/c_api.rs plainly, with AddressSanitizer + UndefinedBehaviorSanitizer, and under
 * valgrind.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api_test.h"

/* The counters api_test.h's CHECK counts in. */
int passed, failed;
static unsigned long refused, unchanged;

static hpa_config g_config;
static hpa_metric g_metric;
static hpa_scaling_rules g_up, g_down;
static hpa_behavior g_behavior;
static hpa_scaling_policy g_up_policy = {HPA_POLICY_TYPE_PODS, 2, 15};
static hpa_scaling_policy g_down_policy = {HPA_POLICY_TYPE_PERCENT, 50, 60};
static hpa_decision g_last_decision;
static unsigned char g_scratch[HPA_WORKSPACE_BYTES(8)];
static hpa_autoscaler g_reference, g_work, g_before;

static uint64_t g_rng = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static hpa_status evaluate_queue(hpa_autoscaler *a, int64_t now_ms, int32_t replicas,
                           int64_t queue_milli) {
  int64_t values_milli[1];
  hpa_metric_values values;
  hpa_observation obs;
  values_milli[0] = queue_milli;
  memset(&values, 0, sizeof values);
  values.kind = HPA_VALUES_KIND_EXTERNAL;
  values.values_milli = values_milli;
  values.values_len = 1;
  memset(&obs, 0, sizeof obs);
  obs.now_ms = now_ms;
  obs.replicas = replicas;
  obs.metrics = &values;
  obs.metrics_len = 1;
  return hpa_autoscaler_evaluate(a, &g_config, &obs, g_scratch, sizeof g_scratch,
                                 &g_last_decision);
}

/* What a decision or a status says, to compare. */
typedef struct outcome {
  hpa_status eval, report, status;
  int32_t desired;
  uint32_t rescale, limited_by, conditions;
  int32_t status_desired;
  uint32_t pending;
} outcome;

static outcome run_calls(hpa_autoscaler *a, int64_t now_ms) {
  outcome o;
  hpa_scaling_status st;
  memset(&o, 0, sizeof o);
  o.eval = evaluate_queue(a, now_ms, 6, 15000);
  if (o.eval == HPA_STATUS_OK) {
    size_t i;
    o.desired = g_last_decision.desired_replicas;
    o.rescale = g_last_decision.rescale;
    o.limited_by = g_last_decision.limited_by;
    for (i = 0; i < g_last_decision.conditions_len; i++)
      o.conditions = o.conditions * 31u + g_last_decision.conditions[i].reason * 7u +
                     g_last_decision.conditions[i].status;
  }
  o.report = hpa_autoscaler_rescale_succeeded(a);
  o.status = hpa_autoscaler_scaling_status(a, &st);
  if (o.status == HPA_STATUS_OK) {
    o.status_desired = st.desired_replicas;
    o.pending = st.rescale_pending;
  }
  return o;
}

static int same(const outcome *a, const outcome *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Damages `g_work` (a copy of the reference) and checks the three calls on it. */
static void trial(const outcome *expected, int64_t now_ms) {
  hpa_status s;
  hpa_scaling_status st;
  memcpy(&g_before, &g_work, sizeof g_work);
  s = hpa_autoscaler_scaling_status(&g_work, &st);
  if (s == HPA_STATUS_CORRUPT_STATE || s == HPA_STATUS_UNINITIALIZED) {
    /* Every call refuses the same way and changes nothing. */
    CHECK(evaluate_queue(&g_work, now_ms, 6, 15000) == s);
    CHECK(hpa_autoscaler_rescale_succeeded(&g_work) == s);
    CHECK(hpa_autoscaler_rescale_failed(&g_work, NULL, 0) == s);
    CHECK(memcmp(&g_before, &g_work, sizeof g_work) == 0);
    refused++;
  } else {
    outcome got;
    CHECK(s == HPA_STATUS_OK);
    got = run_calls(&g_work, now_ms);
    CHECK(same(&got, expected));
    unchanged++;
  }
}

int main(void) {
  int64_t now = 0;
  int32_t replicas = 3;
  int step;
  size_t size = sizeof(hpa_autoscaler), offset;
  outcome expected;

  memset(&g_metric, 0, sizeof g_metric);
  g_metric.type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
  g_metric.name = HPA_STR("queue");
  g_metric.target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  g_metric.target.average_value_milli = 1000;
  g_up.policies = &g_up_policy;
  g_up.policies_len = 1;
  g_down.has_stabilization_window_seconds = 1;
  g_down.stabilization_window_seconds = 30;
  g_down.policies = &g_down_policy;
  g_down.policies_len = 1;
  g_behavior.scale_up = &g_up;
  g_behavior.scale_down = &g_down;
  g_config.has_min_replicas = 1;
  g_config.min_replicas = 1;
  g_config.max_replicas = 20;
  g_config.metrics = &g_metric;
  g_config.metrics_len = 1;
  g_config.behavior = &g_behavior;

  /* A history: a load that rises and falls, every rescale applied but the last. */
  CHECK(hpa_autoscaler_init(&g_reference, sizeof g_reference) == HPA_STATUS_OK);
  for (step = 0; step < 80; step++) {
    int64_t load = 1000 * (int64_t)(2 + (step % 40 < 20 ? step % 40 : 40 - step % 40) / 2);
    now += 15000;
    CHECK(evaluate_queue(&g_reference, now, replicas, load * replicas) == HPA_STATUS_OK);
    if (g_last_decision.rescale && step < 79) {
      CHECK(hpa_autoscaler_rescale_succeeded(&g_reference) == HPA_STATUS_OK);
      replicas = g_last_decision.desired_replicas;
    }
  }
  now += 15000;
  memcpy(&g_work, &g_reference, size);
  expected = run_calls(&g_work, now);
  CHECK(expected.eval == HPA_STATUS_OK && expected.status == HPA_STATUS_OK);

  /* Each byte with one bit flipped (the bit moves along). */
  for (offset = 0; offset < size; offset++) {
    memcpy(&g_work, &g_reference, size);
    ((unsigned char *)&g_work)[offset] ^= (unsigned char)(1u << (offset % 8));
    trial(&expected, now);
  }
  /* Random bytes overwritten, one to eight at a time. */
  for (step = 0; step < 3000; step++) {
    int n = 1 + (int)(next_random() % 8), k;
    memcpy(&g_work, &g_reference, size);
    for (k = 0; k < n; k++) {
      unsigned char *b = (unsigned char *)&g_work + next_random() % size;
      unsigned char v = (unsigned char)next_random();
      *b = *b == v ? (unsigned char)(v ^ 0x5a) : v;
    }
    trial(&expected, now);
  }
  /* Zeroed ranges: the interior after the marker, and random stretches. */
  for (step = 0; step < 200; step++) {
    size_t start = step == 0 ? 8 : (size_t)(next_random() % size);
    size_t len = step == 0 ? size - 8 : 1 + (size_t)(next_random() % 256);
    if (start + len > size) len = size - start;
    memcpy(&g_work, &g_reference, size);
    memset((unsigned char *)&g_work + start, 0, len);
    trial(&expected, now);
  }
  CHECK(refused > 1500);
  CHECK(unchanged > 5000);
  printf("corrupt_test: %lu damaged copies refused, %lu unchanged where unused bytes were hit\n",
         refused, unchanged);
  printf("corrupt_test: %d checks passed, %d failed\n", passed, failed);
  return failed != 0;
}
