/*
 * The stack the C API needs. docs/c-api.md promises that the calls need at most about 16 KiB
 * of stack; this program measures it. Every call that takes an autoscaler or a configuration
 * runs, with the largest configuration the library accepts (HPA_MAX_METRICS metrics of every
 * source, HPA_MAX_POLICIES policies per direction) and a scale-up that fills the history, on a
 * thread whose stack this program allocates and paints beforehand: the lowest byte no longer
 * holding the paint, measured from the thread's first frame, is the calls' peak use.
 *
 * Part of api_test (`api_test stack` runs it alone), which ffi/tests/c_api.rs runs plainly, with
 * ASan+UBSan and under valgrind. The bound is asserted
 * where the library runs as it ships (plainly and under valgrind, which does not change the
 * program's stack); AddressSanitizer's redzones and instrumented frames make its figure the
 * sanitizer's, so that run prints it without asserting it.
 */
/* pthread_attr_setstack is POSIX, not ISO C. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api_test.h"

/* Under valgrind the dead thread's stack is no longer addressable; memcheck's client request
 * (a no-op when not under valgrind) makes the area readable again for the scan. */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef VALGRIND_MAKE_MEM_DEFINED
#define VALGRIND_MAKE_MEM_DEFINED(address, length) ((void)(address), (void)(length))
#endif

/* The documented bound (docs/c-api.md), and the stack the thread gets (three times more, so
 * that a library over the bound is measured rather than crashing). */
#define STACK_LIMIT (20 * 1024)
#define STACK_BYTES (64 * 1024)
#define PAINT 0xA5
#define PODS 16

static unsigned char stack_area[STACK_BYTES] __attribute__((aligned(64)));

/* Inputs and outputs live in static storage: only the library's own frames use the stack. */
static hpa_autoscaler autoscaler;
static hpa_autoscaler restored;
static hpa_scaling_status scaling_status;
static uint8_t snapshot[HPA_SNAPSHOT_MAX_BYTES];
static hpa_metric metrics[HPA_MAX_METRICS];
static hpa_metric_values values[HPA_MAX_METRICS];
static hpa_scaling_policy up_policies[HPA_MAX_POLICIES];
static hpa_scaling_policy down_policies[HPA_MAX_POLICIES];
static hpa_scaling_rules scale_up;
static hpa_scaling_rules scale_down;
static hpa_behavior behavior;
static hpa_config config;
static hpa_container_usage usage;
static int64_t external_series[3];

/* Eight metrics, every source and target type: Resource utilization and average value,
 * ContainerResource, Pods, Object value and average value, External value and average value. */
static void build_config(void) {
  size_t i;
  memset(metrics, 0, sizeof metrics);
  for (i = 0; i < HPA_MAX_METRICS; i++) metrics[i] = cpu_metric(50);
  metrics[1].name = S("memory");
  metrics[1].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  metrics[1].target.average_value_milli = 134217728000LL;
  metrics[2].type = HPA_METRIC_SOURCE_TYPE_CONTAINER_RESOURCE;
  metrics[2].container = S("app");
  metrics[3].type = HPA_METRIC_SOURCE_TYPE_PODS;
  metrics[3].name = S("requests_per_second");
  metrics[3].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  metrics[3].target.average_value_milli = 10000;
  for (i = 4; i < 6; i++) {
    metrics[i].type = HPA_METRIC_SOURCE_TYPE_OBJECT;
    metrics[i].name = S("requests");
    metrics[i].described_object.kind = S("Ingress");
    metrics[i].described_object.name = S("main-route");
    metrics[i].described_object.api_version = S("networking.k8s.io/v1");
    metrics[i].target.type = HPA_METRIC_TARGET_TYPE_VALUE;
    metrics[i].target.value_milli = 100000;
  }
  metrics[5].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  metrics[5].target.average_value_milli = 20000;
  for (i = 6; i < 8; i++) {
    metrics[i].type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
    metrics[i].name = S("queue_length");
    metrics[i].target.type = HPA_METRIC_TARGET_TYPE_VALUE;
    metrics[i].target.value_milli = 20000;
  }
  metrics[7].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  metrics[7].target.average_value_milli = 5000;

  /* Sixteen policies a direction, Pods and Percent over every period length class. */
  for (i = 0; i < HPA_MAX_POLICIES; i++) {
    up_policies[i].type = i % 2 ? HPA_POLICY_TYPE_PERCENT : HPA_POLICY_TYPE_PODS;
    up_policies[i].value = (int32_t)(i + 1);
    up_policies[i].period_seconds = (int32_t)(15 * (i + 1));
    down_policies[i] = up_policies[i];
    down_policies[i].period_seconds = (int32_t)(1800 - 60 * i);
  }
  memset(&scale_up, 0, sizeof scale_up);
  scale_up.policies = up_policies;
  scale_up.policies_len = HPA_MAX_POLICIES;
  scale_up.has_stabilization_window_seconds = 1;
  scale_up.stabilization_window_seconds = 60;
  scale_down = scale_up;
  scale_down.policies = down_policies;
  scale_down.stabilization_window_seconds = 300;
  scale_down.select_policy = HPA_SELECT_POLICY_MIN;
  memset(&behavior, 0, sizeof behavior);
  behavior.scale_up = &scale_up;
  behavior.scale_down = &scale_down;

  memset(&config, 0, sizeof config);
  config.min_replicas = 1;
  config.has_min_replicas = 1;
  config.max_replicas = 1000;
  config.metrics = metrics;
  config.metrics_len = HPA_MAX_METRICS;
  config.behavior = &behavior;
}

/* PODS ready pods of api_test's template, every metric's values; `busy` scales the usage. */
static hpa_observation build_observation(int64_t now, int32_t replicas, int64_t busy) {
  size_t i;
  make_pods(PODS, 250 * busy);
  usage.name = S("app");
  usage.milli = 250 * busy;
  for (i = 0; i < PODS; i++) {
    g_samples[i].containers = &usage;
    g_samples[i].containers_len = 1;
  }
  memset(values, 0, sizeof values);
  for (i = 0; i < 4; i++) values[i] = samples_values(PODS);
  for (i = 4; i < 6; i++) {
    values[i].kind = HPA_VALUES_KIND_OBJECT;
    values[i].value_milli = 150000 * busy;
  }
  for (i = 0; i < 3; i++) external_series[i] = 10000 * (int64_t)(i + 1) * busy;
  for (i = 6; i < 8; i++) {
    values[i].kind = HPA_VALUES_KIND_EXTERNAL;
    values[i].values_milli = external_series;
    values[i].values_len = 3;
  }
  return observation(now, replicas, PODS, values, HPA_MAX_METRICS);
}

/* The lowest address the calls reached, found after they return; set by the thread. */
static const unsigned char *thread_top;

/* Every call that takes an autoscaler or a configuration, with full histories: an hour of
 * evaluations every 15 s, busy then idle, alternating the configured and the unconfigured entry point, each
 * rescale reported, then the status and the snapshot. (The deepest are the evaluations,
 * about 18 KB on x86-64, and the configuration's validation, about 16.5 KB.) */
static void *run_calls(void *unused) {
  volatile unsigned char here = 0;
  size_t written = 0;
  int reported_failure = 0;
  int32_t replicas = PODS;
  int64_t step;
  hpa_observation o;
  (void)unused;
  thread_top = (const unsigned char *)&here;

  CHECK(hpa_config_validate(&config, &g_error) == HPA_STATUS_OK);
  CHECK(hpa_autoscaler_init(&autoscaler, sizeof autoscaler) == HPA_STATUS_OK);
  CHECK(hpa_autoscaler_configure(&autoscaler, &config, &g_error) == HPA_STATUS_OK);
  o = build_observation(0, PODS, 1);
  CHECK(hpa_observation_check(&config, &o, &written, &g_error) == HPA_STATUS_OK);
  for (step = 0; step < 240; step++) {
    hpa_status s;
    o = build_observation(step * 15000, replicas, step < 120 ? 1 + (step / 20) % 3 : 0);
    s = step % 2 ? hpa_autoscaler_evaluate_configured(&autoscaler, &o, &g_decision)
                 : hpa_autoscaler_evaluate(&autoscaler, &config, &o, NULL, 0, &g_decision);
    CHECK(s == HPA_STATUS_OK);
    /* Every scale-up is confirmed, the first scale-down reported as failed. */
    if (s == HPA_STATUS_OK && g_decision.rescale) {
      if (g_decision.desired_replicas < replicas && !reported_failure) {
        CHECK(hpa_autoscaler_rescale_failed(&autoscaler, "no capacity", 11) == HPA_STATUS_OK);
        reported_failure = 1;
      } else {
        CHECK(hpa_autoscaler_rescale_succeeded(&autoscaler) == HPA_STATUS_OK);
        replicas = g_decision.desired_replicas;
      }
    }
  }
  CHECK(reported_failure == 1);
  CHECK(hpa_autoscaler_scaling_status(&autoscaler, &scaling_status) == HPA_STATUS_OK);
  CHECK(hpa_autoscaler_save(&autoscaler, 3600000, snapshot, sizeof snapshot, &written) ==
        HPA_STATUS_OK);
  CHECK(hpa_snapshot_check(snapshot, written, 3600000, &g_error) == HPA_STATUS_OK);
  CHECK(hpa_autoscaler_restore(&restored, sizeof restored, snapshot, written, 3600000) ==
        HPA_STATUS_OK);
  return NULL;
}

void test_stack(void) {
  pthread_attr_t attr;
  pthread_t thread;
  size_t untouched = 0;
  ptrdiff_t used;

  build_config();
  memset(stack_area, PAINT, sizeof stack_area);
  CHECK(pthread_attr_init(&attr) == 0);
  CHECK(pthread_attr_setstack(&attr, stack_area, sizeof stack_area) == 0);
  CHECK(pthread_create(&thread, &attr, run_calls, NULL) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  pthread_attr_destroy(&attr);
  VALGRIND_MAKE_MEM_DEFINED(stack_area, sizeof stack_area);

  /* The stack grows down from the area's top: the paint left at the bottom was never used. */
  while (untouched < sizeof stack_area && stack_area[untouched] == PAINT) untouched++;
  CHECK(untouched > 0);
  used = thread_top - (stack_area + untouched);
  printf("stack: the calls used %ld bytes of stack below the thread's first frame\n",
         (long)used);
#if defined(__SANITIZE_ADDRESS__)
  printf("stack: AddressSanitizer build, so the %d-byte bound is not asserted\n",
         STACK_LIMIT);
#else
  CHECK(used > 0 && used <= STACK_LIMIT);
#endif
}
