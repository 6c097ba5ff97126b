/*
 * worker_pool.c: an edge gateway that keeps its pool of worker processes scaled the way a
 * Kubernetes HorizontalPodAutoscaler would, with libhpa.
 *
 * Every 15 s the gateway measures each worker's CPU usage and the length of its request
 * queue, asks the autoscaler for a decision, and starts or stops workers accordingly. The
 * HPA has two metrics: CPU at 70 % of each worker's 500m request, and the queue length at 30
 * requests per worker. Its behavior adds at most 4 workers per 15 s, waits 60 s before
 * scaling down, and removes at most half of the workers per 30 s. Once, starting workers
 * fails (the host is briefly out of processes): the autoscaler is told, and the next
 * evaluation tries again. Once, the gateway restarts while scaling down: the autoscaler's
 * state survives in a snapshot, so the scale-down window still holds.
 *
 * The load is simulated (deterministically), so the program prints the same lines on every
 * run; ffi/tests/c_api.rs compares them with worker_pool.out.
 *
 *   cc -std=c99 -Iinclude examples/c/worker_pool.c target/release/libhpa.a -Wl,--gc-sections
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hpa.h"

#define MAX_WORKERS 16
#define FAILING_STEP 6 /* the period whose rescale fails */
#define RESTART_STEP 22 /* the gateway restarts before this period */
#define PERIOD_MS 15000
#define STARTUP_MS 20000            /* a new worker is Ready after 20 s */
#define REQUESTS_PER_WORKER_S 100   /* what one worker serves per second at full speed */

/* ---- the simulated environment ---------------------------------------------------------- */

typedef struct worker {
  char name[16];
  int64_t started_ms;
} worker;

static worker g_workers[MAX_WORKERS];
static int g_worker_count;
static int g_next_id;
static int64_t g_backlog; /* queued requests */

/* Requests per second arriving at time t: quiet, a ramp to a peak, then quiet again. */
static int64_t arrival_rate(int64_t t_ms) {
  int64_t s = t_ms / 1000;
  if (s < 60) return 150;
  if (s < 180) return 150 + (s - 60) * 8; /* up to 1110 req/s */
  if (s < 300) return 1100;
  if (s < 360) return 1100 - (s - 300) * 16; /* down to 140 req/s */
  return 140;
}

static void start_worker(int64_t now_ms) {
  worker *w = &g_workers[g_worker_count++];
  snprintf(w->name, sizeof w->name, "worker-%d", g_next_id++);
  w->started_ms = now_ms;
}

static int is_ready(const worker *w, int64_t now_ms) { return now_ms - w->started_ms >= STARTUP_MS; }

/* Serves one period of traffic; returns each ready worker's CPU usage in milli-cores. */
static int64_t serve_period(int64_t now_ms, int ready) {
  int64_t arrived = arrival_rate(now_ms) * (PERIOD_MS / 1000);
  int64_t capacity = (int64_t)ready * REQUESTS_PER_WORKER_S * (PERIOD_MS / 1000);
  int64_t served = g_backlog + arrived < capacity ? g_backlog + arrived : capacity;
  g_backlog += arrived - served;
  if (ready == 0) return 0;
  /* 50m at rest, plus 450m (90 % of the 500m request) at full speed. */
  return 50 + 450 * served / capacity;
}

/* ---- the autoscaler ----------------------------------------------------------------------- */

static hpa_autoscaler g_autoscaler; /* the HPA's state: caller-owned, no heap */
static hpa_decision g_decision;
static hpa_field_error g_error;

static const hpa_resource_request k_requests[] = {{HPA_STR_INIT("cpu"), 500}};
static const hpa_container k_container = {HPA_STR_INIT("gateway-worker"), HPA_CONTAINER_KIND_REGULAR,
                                          k_requests, 1};

static int fail(const char *what, hpa_status status) {
  fprintf(stderr, "%s: %s\n", what, hpa_status_str(status));
  return 1;
}

int main(void) {
  hpa_metric metrics[2];
  hpa_scaling_policy up_policies[1] = {{HPA_POLICY_TYPE_PODS, 4, 15}};
  hpa_scaling_policy down_policies[1] = {{HPA_POLICY_TYPE_PERCENT, 50, 30}};
  hpa_scaling_rules up, down;
  hpa_behavior behavior;
  hpa_config config;
  hpa_pod pods[MAX_WORKERS];
  hpa_sample cpu_samples[MAX_WORKERS];
  int64_t queue_milli[1];
  hpa_metric_values values[2];
  hpa_observation obs;
  hpa_status s;
  int step, i, peak = 0;

  /* The HPA: minReplicas 2, maxReplicas 16. */
  memset(metrics, 0, sizeof metrics);
  metrics[0].type = HPA_METRIC_SOURCE_TYPE_RESOURCE;
  metrics[0].name = HPA_STR("cpu");
  metrics[0].target.type = HPA_METRIC_TARGET_TYPE_UTILIZATION;
  metrics[0].target.average_utilization = 70;
  metrics[1].type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
  metrics[1].name = HPA_STR("queue_length");
  metrics[1].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  metrics[1].target.average_value_milli = 30 * 1000;
  memset(&up, 0, sizeof up);
  up.policies = up_policies;
  up.policies_len = 1;
  memset(&down, 0, sizeof down);
  down.has_stabilization_window_seconds = 1;
  down.stabilization_window_seconds = 60;
  down.policies = down_policies;
  down.policies_len = 1;
  behavior.scale_up = &up;
  behavior.scale_down = &down;
  memset(&config, 0, sizeof config);
  config.has_min_replicas = 1;
  config.min_replicas = 2;
  config.max_replicas = MAX_WORKERS;
  config.metrics = metrics;
  config.metrics_len = 2;
  config.behavior = &behavior;
  config.settings = NULL; /* kube-controller-manager's defaults */

  s = hpa_autoscaler_init(&g_autoscaler, sizeof g_autoscaler);
  if (s != HPA_STATUS_OK) return fail("hpa_autoscaler_init", s);
  /* Validated once and kept by the autoscaler: the evaluations below do not take it. */
  s = hpa_autoscaler_configure(&g_autoscaler, &config, &g_error);
  if (s != HPA_STATUS_OK) {
    fprintf(stderr, "%s\n", g_error.message); /* e.g. spec.maxReplicas: Invalid value: ... */
    return fail("invalid HPA", s);
  }

  /* The pool starts with 2 workers that have been up for a while. */
  start_worker(-600000);
  start_worker(-600000);

  for (step = 1; step <= 36; step++) {
    int64_t now = (int64_t)step * PERIOD_MS;
    int ready = 0, target;
    int64_t cpu_milli;
    hpa_status applied;

    if (step == RESTART_STEP) {
      /* Saved before the restart (to a file or flash), restored after it on the same clock. */
      static uint8_t snapshot[HPA_SNAPSHOT_MAX_BYTES];
      size_t len;
      s = hpa_autoscaler_save(&g_autoscaler, now, snapshot, sizeof snapshot, &len);
      if (s != HPA_STATUS_OK) return fail("hpa_autoscaler_save", s);
      memset(&g_autoscaler, 0, sizeof g_autoscaler); /* the process's memory is gone */
      s = hpa_autoscaler_restore(&g_autoscaler, sizeof g_autoscaler, snapshot, len, now);
      if (s != HPA_STATUS_OK) return fail("hpa_autoscaler_restore", s);
      /* A snapshot holds the history, not the configuration. */
      s = hpa_autoscaler_configure(&g_autoscaler, &config, &g_error);
      if (s != HPA_STATUS_OK) return fail("hpa_autoscaler_configure", s);
      printf("t=%3lds  restart: the autoscaler's state kept in a %lu-byte snapshot\n",
             (long)(now / 1000), (unsigned long)len);
    }

    for (i = 0; i < g_worker_count; i++) ready += is_ready(&g_workers[i], now);
    cpu_milli = serve_period(now, ready);

    /* What the gateway observed: its workers as pods, their CPU usage, the queue length. */
    memset(pods, 0, sizeof pods);
    memset(cpu_samples, 0, sizeof cpu_samples);
    for (i = 0; i < g_worker_count; i++) {
      const worker *w = &g_workers[i];
      double cores;
      pods[i].name.ptr = w->name;
      pods[i].name.len = strlen(w->name);
      pods[i].phase = HPA_POD_PHASE_RUNNING;
      pods[i].ready = is_ready(w, now) ? HPA_READY_TRUE : HPA_READY_FALSE;
      pods[i].has_ready_transition = 1;
      pods[i].ready_transition_ms = is_ready(w, now) ? w->started_ms + STARTUP_MS : w->started_ms;
      pods[i].has_start_time = 1;
      pods[i].start_time_ms = w->started_ms;
      pods[i].containers = &k_container; /* one template: shared by every pod */
      pods[i].containers_len = 1;
      /* A measured usage, in cores, as a process accountant reports it. */
      cores = is_ready(w, now) ? (double)cpu_milli / 1000.0 : 0.3;
      s = hpa_milli_from_double(cores, &cpu_samples[i].milli);
      if (s != HPA_STATUS_OK) return fail("hpa_milli_from_double", s);
      cpu_samples[i].present = 1;
    }
    queue_milli[0] = g_backlog * 1000;
    memset(values, 0, sizeof values);
    values[0].kind = HPA_VALUES_KIND_SAMPLES;
    values[0].samples = cpu_samples;
    values[0].samples_len = (size_t)g_worker_count;
    values[1].kind = HPA_VALUES_KIND_EXTERNAL;
    values[1].values_milli = queue_milli;
    values[1].values_len = 1;
    memset(&obs, 0, sizeof obs);
    obs.now_ms = now;
    obs.replicas = g_worker_count;
    obs.pods = pods;
    obs.pods_len = (size_t)g_worker_count;
    obs.metrics = values;
    obs.metrics_len = 2;

    /* The observation is read in place, under the configuration the autoscaler keeps. */
    s = hpa_autoscaler_evaluate_configured(&g_autoscaler, &obs, &g_decision);
    if (s != HPA_STATUS_OK) {
      size_t needed;
      /* The check names the field at fault. */
      if (hpa_observation_check(&config, &obs, &needed, &g_error) != HPA_STATUS_OK) {
        fprintf(stderr, "%s\n", g_error.message);
      }
      return fail("hpa_autoscaler_evaluate_configured", s);
    }

    printf("t=%3lds  %2d workers (%2d ready)  cpu %3ld%%  queue %5ld  ", (long)(now / 1000),
           g_worker_count, ready,
           g_decision.metrics[0].has_current_average_utilization
               ? (long)g_decision.metrics[0].current_average_utilization
               : -1L,
           (long)g_backlog);
    if (!g_decision.rescale) {
      printf("-> keep %d [%s]\n", g_worker_count, hpa_limited_by_str(g_decision.limited_by));
      continue;
    }

    /* Apply the decision: start or stop workers, and say how it went. */
    target = g_decision.desired_replicas;
    printf("-> %2d: %s [%s]", target, g_decision.reason, hpa_limited_by_str(g_decision.limited_by));
    if (step == FAILING_STEP) {
      static const char why[] = "fork: Resource temporarily unavailable";
      applied = hpa_autoscaler_rescale_failed(&g_autoscaler, why, sizeof why - 1);
      printf(" FAILED: %s\n", why);
    } else {
      while (g_worker_count < target) start_worker(now);
      while (g_worker_count > target) g_worker_count--; /* stop the newest */
      applied = hpa_autoscaler_rescale_succeeded(&g_autoscaler);
      printf("\n");
    }
    if (applied != HPA_STATUS_OK) return fail("reporting the rescale", applied);
    if (g_worker_count > peak) peak = g_worker_count;
  }

  {
    hpa_scaling_status st;
    s = hpa_autoscaler_scaling_status(&g_autoscaler, &st);
    if (s != HPA_STATUS_OK) return fail("hpa_autoscaler_scaling_status", s);
    printf("peak %d workers, now %d; conditions:\n", peak, g_worker_count);
    for (i = 0; i < (int)st.conditions_len; i++) {
      printf("  %s=%s (%s): %s\n", hpa_condition_type_str(st.conditions[i].type),
             hpa_condition_status_str(st.conditions[i].status),
             hpa_reason_str(st.conditions[i].reason), st.conditions[i].message);
    }
  }
  return 0;
}
