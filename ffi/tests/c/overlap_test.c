/*
 * An evaluation's outputs (its workspace, decision and autoscaler) must not overlap any input
 * array it reads: writing the workspace while converting would change inputs under the
 * conversion (a pod's container pointer, a string checked as UTF-8 a moment before). Each
 * input is checked before it is read, so such a call is refused with HPA_STATUS_OVERLAP, the
 * autoscaler and the decision unchanged (the workspace's contents, an input inside it
 * included, are unspecified after any call).
 */
#include <stdint.h>

#include "api_test.h"

/* The workspace of the refused calls: each case puts one input inside it. */
static union {
  uint64_t align;
  unsigned char bytes[1 << 14];
} g_arena;

/* The inputs evaluate with another workspace and decision, and are refused with these. */
static void expect_overlap(const hpa_config *c, const hpa_observation *o, void *workspace,
                           size_t workspace_size, hpa_decision *decision) {
  static unsigned char before[sizeof(hpa_autoscaler)];
  static hpa_decision decision_before;
  CHECK_STATUS(evaluate(&g_autoscaler, c, o), HPA_STATUS_OK);
  memcpy(before, &g_autoscaler, sizeof before);
  memcpy(&decision_before, decision, sizeof decision_before);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, c, o, workspace, workspace_size, decision),
               HPA_STATUS_OVERLAP);
  CHECK(memcmp(before, &g_autoscaler, sizeof before) == 0);
  CHECK(memcmp(&decision_before, decision, sizeof decision_before) == 0);
}

static void expect_workspace_overlap(const hpa_config *c, const hpa_observation *o) {
  static hpa_decision decision;
  expect_overlap(c, o, g_arena.bytes, sizeof g_arena.bytes, &decision);
}

/* Copies `len` bytes into the arena at `offset` and returns the copy. */
static void *in_arena(size_t offset, const void *src, size_t len) {
  memcpy(g_arena.bytes + offset, src, len);
  return g_arena.bytes + offset;
}

void test_input_overlap(void) {
  hpa_metric m[2];
  hpa_config c;
  hpa_behavior b;
  hpa_scaling_rules up;
  hpa_scaling_policy policy = {HPA_POLICY_TYPE_PODS, 4, 60};
  hpa_resource_request requests[1];
  hpa_metric_values v[2];
  hpa_observation o;
  static const int64_t series[] = {5000};
  const size_t pods = 4;

  m[0] = cpu_metric(60);
  memset(&m[1], 0, sizeof m[1]);
  m[1].type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
  m[1].name = S("queue");
  m[1].target.type = HPA_METRIC_TARGET_TYPE_VALUE;
  m[1].target.value_milli = 10000;
  c = config_with(m, 2, 10);
  scale_up_with(&c, &b, &up, &policy);
  make_pods(pods, 300);
  v[0] = samples_values(pods);
  memset(&v[1], 0, sizeof v[1]);
  v[1].kind = HPA_VALUES_KIND_EXTERNAL;
  v[1].values_milli = series;
  v[1].values_len = 1;
  o = observation(60000, (int32_t)pods, pods, v, 2);
  init(&g_autoscaler);

  /* The observation's arrays. */
  o.pods = (const hpa_pod *)in_arena(4096, g_pods, pods * sizeof g_pods[0]);
  expect_workspace_overlap(&c, &o);
  o.pods = g_pods;
  o.metrics = (const hpa_metric_values *)in_arena(64, v, sizeof v);
  expect_workspace_overlap(&c, &o);
  o.metrics = v;
  v[0].samples = (const hpa_sample *)in_arena(8192, g_samples, pods * sizeof g_samples[0]);
  expect_workspace_overlap(&c, &o);
  v[0].samples = g_samples;
  v[1].values_milli = (const int64_t *)in_arena(16000, series, sizeof series);
  expect_workspace_overlap(&c, &o);
  v[1].values_milli = series;
  /* Reached through the pods: the last pod's own container array, its requests, a name. */
  g_pods[3].containers = (const hpa_container *)in_arena(12000, &k_container, sizeof k_container);
  expect_workspace_overlap(&c, &o);
  g_pods[3].containers = &k_container;
  requests[0] = k_container.requests[0];
  k_container.requests = (const hpa_resource_request *)in_arena(200, requests, sizeof requests);
  k_container.requests_len = 1;
  expect_workspace_overlap(&c, &o);
  k_container.requests = requests;
  /* A pod's name only when the engine may read it, to name a pod in an error: when a pod's
     template lacks a Resource metric's request. */
  g_pods[2].name.ptr = (const char *)in_arena(16383 - 3, "web", 3);
  {
    static hpa_decision decision;
    CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, g_arena.bytes,
                                         sizeof g_arena.bytes, &decision),
                 HPA_STATUS_OK);
  }
  k_container.requests_len = 0;
  expect_workspace_overlap(&c, &o);
  k_container.requests_len = 1;
  g_pods[2].name = S("web");
  v[1].kind = HPA_VALUES_KIND_ERROR;
  v[1].error.ptr = (const char *)in_arena(0, "timeout", 7);
  v[1].error.len = 7;
  expect_workspace_overlap(&c, &o);
  v[1].kind = HPA_VALUES_KIND_EXTERNAL;

  /* The configuration's: read before the workspace is written, kept (names) while it is. */
  c.metrics = (const hpa_metric *)in_arena(1024, m, sizeof m);
  expect_workspace_overlap(&c, &o);
  c.metrics = m;
  m[1].name.ptr = (const char *)in_arena(3000, "queue", 5);
  expect_workspace_overlap(&c, &o);
  m[1].name = S("queue");
  up.policies = (const hpa_scaling_policy *)in_arena(5000, &policy, sizeof policy);
  expect_workspace_overlap(&c, &o);
  up.policies = &policy;
  b.scale_up = (const hpa_scaling_rules *)in_arena(6000, &up, sizeof up);
  expect_workspace_overlap(&c, &o);
  b.scale_up = &up;

  /* The decision is written after the inputs are read, but it must not hold one either. */
  {
    static hpa_decision decision;
    memcpy(decision.reason, "web", 3);
    g_pods[1].name.ptr = decision.reason;
    k_container.requests_len = 0;
    expect_overlap(&c, &o, g_workspace, sizeof g_workspace, &decision);
    k_container.requests_len = 1;
    g_pods[1].name = S("web");
  }
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
}
