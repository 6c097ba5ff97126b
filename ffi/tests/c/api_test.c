/*
 * The C API, exercised from C: every exported function, every status code, and the rule
 * that a refused call changes nothing. Run by ffi/tests/c_api.rs plainly, with
 * AddressSanitizer + UndefinedBehaviorSanitizer, and under valgrind. This file holds main and
 * the shared helpers (api_test.h); snapshot_test.c, overlap_test.c and stack_test.c hold more
 * tests.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test.h"

int passed;
int failed;

hpa_str S(const char *s) {
  hpa_str r;
  r.ptr = s;
  r.len = strlen(s);
  return r;
}

hpa_autoscaler g_autoscaler;
hpa_decision g_decision;
hpa_field_error g_error;
unsigned char g_workspace[1 << 16];

/* ---- a standard configuration and observation: 4 web pods, CPU at 60 % ---------------- */

hpa_metric cpu_metric(int32_t percent) {
  hpa_metric m;
  memset(&m, 0, sizeof m);
  m.type = HPA_METRIC_SOURCE_TYPE_RESOURCE;
  m.name = S("cpu");
  m.target.type = HPA_METRIC_TARGET_TYPE_UTILIZATION;
  m.target.average_utilization = percent;
  return m;
}

hpa_config config_with(const hpa_metric *metrics, size_t n, int32_t max) {
  hpa_config c;
  memset(&c, 0, sizeof c);
  c.max_replicas = max;
  c.metrics = metrics;
  c.metrics_len = n;
  return c;
}

static const hpa_resource_request k_requests[] = {{HPA_STR_INIT("cpu"), 500},
                                                  {HPA_STR_INIT("memory"), 268435456000LL}};
hpa_container k_container;
hpa_pod g_pods[16];
hpa_sample g_samples[16];

void make_pods(size_t n, int64_t cpu_milli) {
  size_t i;
  memset(&k_container, 0, sizeof k_container);
  k_container.name = S("app");
  k_container.requests = k_requests;
  k_container.requests_len = 2;
  memset(g_pods, 0, sizeof g_pods);
  memset(g_samples, 0, sizeof g_samples);
  for (i = 0; i < n; i++) {
    g_pods[i].name = S("web");
    g_pods[i].ready = HPA_READY_TRUE;
    g_pods[i].has_ready_transition = 1;
    g_pods[i].ready_transition_ms = -590000;
    g_pods[i].has_start_time = 1;
    g_pods[i].start_time_ms = -600000;
    g_pods[i].containers = &k_container;
    g_pods[i].containers_len = 1;
    g_samples[i].present = 1;
    g_samples[i].milli = cpu_milli;
  }
}

hpa_metric_values samples_values(size_t n) {
  hpa_metric_values v;
  memset(&v, 0, sizeof v);
  v.kind = HPA_VALUES_KIND_SAMPLES;
  v.samples = g_samples;
  v.samples_len = n;
  return v;
}

hpa_observation observation(int64_t now, int32_t replicas, size_t pods,
                            const hpa_metric_values *values, size_t n) {
  hpa_observation o;
  memset(&o, 0, sizeof o);
  o.now_ms = now;
  o.replicas = replicas;
  o.pods = g_pods;
  o.pods_len = pods;
  o.metrics = values;
  o.metrics_len = n;
  return o;
}

void scale_up_with(hpa_config *c, hpa_behavior *b, hpa_scaling_rules *up,
                   const hpa_scaling_policy *policy) {
  memset(b, 0, sizeof *b);
  memset(up, 0, sizeof *up);
  up->policies = policy;
  up->policies_len = 1;
  b->scale_up = up;
  c->behavior = b;
}

void init(hpa_autoscaler *a) { CHECK_STATUS(hpa_autoscaler_init(a, sizeof *a), HPA_STATUS_OK); }

hpa_status evaluate(hpa_autoscaler *a, const hpa_config *c, const hpa_observation *o) {
  return hpa_autoscaler_evaluate(a, c, o, g_workspace, sizeof g_workspace, &g_decision);
}

static int conditions_equal(const hpa_condition *a, const hpa_condition *b, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (a[i].type != b[i].type || a[i].status != b[i].status || a[i].reason != b[i].reason ||
        strcmp(a[i].message, b[i].message) != 0)
      return 0;
  }
  return 1;
}

/* Every member a caller reads: the texts up to their NUL, the first metrics_len metrics and
 * conditions_len conditions (the library writes nothing else). */
int decision_equal(const hpa_decision *a, const hpa_decision *b) {
  size_t i;
  if (a->at_ms != b->at_ms || a->current_replicas != b->current_replicas ||
      a->desired_replicas != b->desired_replicas || a->rescale != b->rescale ||
      a->rescale_reason != b->rescale_reason || a->has_proposal != b->has_proposal ||
      a->proposal != b->proposal || a->has_stabilized != b->has_stabilized ||
      a->stabilized != b->stabilized || a->limited_by != b->limited_by ||
      a->history_overflowed != b->history_overflowed || a->invalid_metrics != b->invalid_metrics ||
      a->metrics_len != b->metrics_len || a->conditions_len != b->conditions_len ||
      a->metrics_len > HPA_MAX_METRICS || a->conditions_len > HPA_MAX_CONDITIONS ||
      strcmp(a->reason, b->reason) != 0 || strcmp(a->metrics_error, b->metrics_error) != 0)
    return 0;
  for (i = 0; i < a->metrics_len; i++) {
    const hpa_metric_result *x = &a->metrics[i], *y = &b->metrics[i];
    if (x->outcome != y->outcome || x->source != y->source || x->replicas != y->replicas ||
        x->within_tolerance != y->within_tolerance || x->reading != y->reading ||
        x->has_current_average_utilization != y->has_current_average_utilization ||
        x->current_average_utilization != y->current_average_utilization ||
        x->has_current_average_value != y->has_current_average_value ||
        x->has_current_value != y->has_current_value ||
        x->current_average_value_milli != y->current_average_value_milli ||
        x->current_value_milli != y->current_value_milli || x->error_reason != y->error_reason ||
        strcmp(x->current_average_value_text, y->current_average_value_text) != 0 ||
        strcmp(x->current_value_text, y->current_value_text) != 0 ||
        strcmp(x->name, y->name) != 0 || strcmp(x->error, y->error) != 0)
      return 0;
  }
  return conditions_equal(a->conditions, b->conditions, a->conditions_len);
}

int scaling_status_equal(const hpa_scaling_status *a, const hpa_scaling_status *b) {
  return a->desired_replicas == b->desired_replicas &&
         a->has_last_scale_time == b->has_last_scale_time &&
         a->last_scale_time_ms == b->last_scale_time_ms &&
         a->rescale_pending == b->rescale_pending && a->conditions_len == b->conditions_len &&
         a->conditions_len <= HPA_MAX_CONDITIONS &&
         conditions_equal(a->conditions, b->conditions, a->conditions_len);
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_version_and_sizes(void) {
  CHECK_STR(hpa_version(), HPA_VERSION_STRING);
  CHECK(hpa_version_number() == HPA_VERSION_NUMBER);
  CHECK(HPA_VERSION_NUMBER ==
        (((uint32_t)HPA_VERSION_MAJOR << 16) | ((uint32_t)HPA_VERSION_MINOR << 8) | HPA_VERSION_PATCH));
  CHECK(hpa_autoscaler_size() == HPA_AUTOSCALER_SIZE);
  CHECK(hpa_autoscaler_align() == HPA_AUTOSCALER_ALIGN);
  CHECK(sizeof(hpa_autoscaler) == HPA_AUTOSCALER_SIZE);
}

static void test_strings(void) {
  static const uint32_t statuses[] = {
      HPA_STATUS_OK,           HPA_STATUS_NULL_POINTER,      HPA_STATUS_MISALIGNED,
      HPA_STATUS_UNINITIALIZED, HPA_STATUS_BUFFER_TOO_SMALL, HPA_STATUS_OVERLAP,
      HPA_STATUS_LENGTH_MISMATCH, HPA_STATUS_INVALID_ENUM,   HPA_STATUS_INVALID_FLAG,
      HPA_STATUS_INVALID_UTF8, HPA_STATUS_OUT_OF_RANGE,      HPA_STATUS_TOO_LARGE,
      HPA_STATUS_INVALID_SPEC, HPA_STATUS_INVALID_SETTINGS,  HPA_STATUS_TIME_WENT_BACKWARDS,
      HPA_STATUS_WRONG_VALUES_KIND, HPA_STATUS_NO_PENDING_RESCALE, HPA_STATUS_INVALID_SNAPSHOT,
      HPA_STATUS_SNAPSHOT_VERSION, HPA_STATUS_NOT_CONFIGURED, HPA_STATUS_QUANTITY_FORMAT,
      HPA_STATUS_QUANTITY_SUFFIX, HPA_STATUS_QUANTITY_EXPONENT};
  size_t i, j, n = sizeof statuses / sizeof statuses[0];
  for (i = 0; i < n; i++) {
    const char *s = hpa_status_str(statuses[i]);
    CHECK(s != NULL && strlen(s) > 0 && strcmp(s, "unknown status") != 0);
    for (j = 0; j < i; j++) CHECK(strcmp(s, hpa_status_str(statuses[j])) != 0);
  }
  CHECK_STR(hpa_status_str(HPA_STATUS_OK), "success");
  CHECK_STR(hpa_status_str(999), "unknown status");
  CHECK_STR(hpa_status_str(UINT32_MAX), "unknown status");
  CHECK_STR(hpa_condition_type_str(HPA_CONDITION_TYPE_SCALED_TO_ZERO), "ScaledToZero");
  CHECK_STR(hpa_condition_status_str(HPA_CONDITION_STATUS_UNKNOWN), "Unknown");
  CHECK_STR(hpa_reason_str(HPA_REASON_FAILED_GET_CONTAINER_RESOURCE_METRIC),
            "FailedGetContainerResourceMetric");
  CHECK_STR(hpa_reason_str(HPA_REASON_NOT_SCALED_TO_ZERO), "NotScaledToZero");
  CHECK_STR(hpa_limited_by_str(HPA_LIMITED_BY_RATE_POLICY), "ratePolicy");
  /* Numbers that name nothing still give text a plain printf("%s") can print. */
  CHECK_STR(hpa_condition_type_str(0), "unknown condition type");
  CHECK_STR(hpa_condition_status_str(4), "unknown condition status");
  CHECK_STR(hpa_reason_str(22), "unknown reason");
  CHECK_STR(hpa_limited_by_str(8), "unknown limiting rule");
  CHECK_STR(hpa_limited_by_str(UINT32_MAX), "unknown limiting rule");
  CHECK_STR(hpa_status_name(HPA_STATUS_OK), "HPA_STATUS_OK");
  CHECK_STR(hpa_status_name(HPA_STATUS_INVALID_UTF8), "HPA_STATUS_INVALID_UTF8");
  CHECK_STR(hpa_status_name(HPA_STATUS_QUANTITY_EXPONENT), "HPA_STATUS_QUANTITY_EXPONENT");
  CHECK_STR(hpa_status_name(999), "unknown hpa_status");
}

static void test_storage(void) {
  static union {
    uint64_t align;
    unsigned char bytes[sizeof(hpa_autoscaler) + 16];
  } raw;
  static unsigned char before[sizeof(hpa_autoscaler)];
  hpa_metric m = cpu_metric(60);
  hpa_config c = config_with(&m, 1, 10);
  hpa_metric_values v;
  hpa_observation o;
  hpa_scaling_status st;

  CHECK_STATUS(hpa_autoscaler_init(NULL, sizeof(hpa_autoscaler)), HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_init((hpa_autoscaler *)(void *)(raw.bytes + 1), sizeof(hpa_autoscaler)),
               HPA_STATUS_MISALIGNED);
  CHECK_STATUS(hpa_autoscaler_init(&g_autoscaler, sizeof(hpa_autoscaler) - 1),
               HPA_STATUS_BUFFER_TOO_SMALL);

  /* Storage that never went through hpa_autoscaler_init is refused and left alone. */
  memset(&raw, 0xA5, sizeof raw);
  memcpy(before, raw.bytes, sizeof before);
  make_pods(4, 300);
  v = samples_values(4);
  o = observation(0, 4, 4, &v, 1);
  memset(&g_decision, 0x5A, sizeof g_decision);
  CHECK_STATUS(evaluate((hpa_autoscaler *)(void *)raw.bytes, &c, &o), HPA_STATUS_UNINITIALIZED);
  CHECK(memcmp(before, raw.bytes, sizeof before) == 0);
  CHECK(((unsigned char *)&g_decision)[0] == 0x5A);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded((hpa_autoscaler *)(void *)raw.bytes),
               HPA_STATUS_UNINITIALIZED);
  CHECK_STATUS(hpa_autoscaler_scaling_status((const hpa_autoscaler *)(const void *)raw.bytes, &st),
               HPA_STATUS_UNINITIALIZED);
  memset(&raw, 0, sizeof raw);
  CHECK_STATUS(hpa_autoscaler_restore_scaled_to_zero((hpa_autoscaler *)(void *)raw.bytes),
               HPA_STATUS_UNINITIALIZED);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded(NULL), HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_scaling_status(NULL, &st), HPA_STATUS_NULL_POINTER);

  /* A fresh autoscaler's status. */
  init(&g_autoscaler);
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, NULL), HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, &st), HPA_STATUS_OK);
  CHECK(st.desired_replicas == 0 && st.has_last_scale_time == 0 && st.conditions_len == 0);
  CHECK(st.rescale_pending == 0);
}

static void expect_spec_error(const hpa_config *c, const char *field, uint32_t type,
                              const char *message) {
  memset(&g_error, 0, sizeof g_error);
  CHECK_STATUS(hpa_config_validate(c, &g_error), HPA_STATUS_INVALID_SPEC);
  CHECK(g_error.status == HPA_STATUS_INVALID_SPEC);
  CHECK(g_error.type == type);
  CHECK_STR(g_error.field, field);
  CHECK_STR(g_error.message, message);
}

static void expect_c_error(const hpa_config *c, hpa_status status, const char *field) {
  memset(&g_error, 0, sizeof g_error);
  CHECK_STATUS(hpa_config_validate(c, &g_error), status);
  CHECK(g_error.status == (uint32_t)status);
  CHECK(g_error.type == HPA_FIELD_ERROR_TYPE_NONE);
  CHECK_STR(g_error.field, field);
  CHECK(strncmp(g_error.message, field, strlen(field)) == 0);
}

static void test_validation(void) {
  hpa_metric m[HPA_MAX_METRICS + 1];
  hpa_config c;
  hpa_behavior b;
  hpa_scaling_rules up, down;
  hpa_scaling_policy policies[HPA_MAX_POLICIES + 1];
  hpa_settings settings;
  hpa_object_ref ref;
  size_t i;
  static const char bad_utf8[] = {'c', (char)0xC3, 'u'};

  m[0] = cpu_metric(60);
  c = config_with(m, 1, 10);
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  CHECK_STATUS(hpa_config_validate(&c, NULL), HPA_STATUS_OK);
  CHECK_STATUS(hpa_config_validate(NULL, &g_error), HPA_STATUS_NULL_POINTER);
  CHECK_STR(g_error.field, "config");

  /* Kubernetes' own errors, with its field paths and messages. */
  c.max_replicas = 0;
  expect_spec_error(&c, "spec.maxReplicas", HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.maxReplicas: Invalid value: 0: must be greater than 0");
  c.max_replicas = 10;
  c.has_min_replicas = 1;
  c.min_replicas = 0;
  expect_spec_error(&c, "spec.metrics", HPA_FIELD_ERROR_TYPE_FORBIDDEN,
                    "spec.metrics: Forbidden: must specify at least one Object or External "
                    "metric to support scaling to zero replicas");
  c.min_replicas = 11;
  expect_spec_error(&c, "spec.maxReplicas", HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.maxReplicas: Invalid value: 10: must be greater than or equal to "
                    "`minReplicas`");
  c.has_min_replicas = 0;
  m[0].target.average_utilization = 0;
  expect_spec_error(&c, "spec.metrics[0].resource.target.averageUtilization",
                    HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must "
                    "be greater than 0");
  m[0] = cpu_metric(60);
  m[0].type = HPA_METRIC_SOURCE_TYPE_UNSET;
  expect_spec_error(&c, "spec.metrics[0].type", HPA_FIELD_ERROR_TYPE_REQUIRED,
                    "spec.metrics[0].type: Required value: must specify a metric source type");
  m[0] = cpu_metric(60);
  m[0].target.type = HPA_METRIC_TARGET_TYPE_UNSET;
  m[0].target.fields = HPA_TARGET_FIELD_AVERAGE_UTILIZATION;
  expect_spec_error(&c, "spec.metrics[0].resource.target.type", HPA_FIELD_ERROR_TYPE_REQUIRED,
                    "spec.metrics[0].resource.target.type: Required value: must specify a "
                    "metric target type");
  m[0] = cpu_metric(60);
  m[0].type = HPA_METRIC_SOURCE_TYPE_CONTAINER_RESOURCE;
  m[0].container = S("App_1");
  expect_spec_error(&c, "spec.metrics[0].containerResource.container",
                    HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.metrics[0].containerResource.container: Invalid value: \"App_1\": a "
                    "lowercase RFC 1123 label must consist of lower case alphanumeric "
                    "characters or '-', and must start and end with an alphanumeric character "
                    "(e.g. 'my-name',  or '123-abc', regex used for validation is "
                    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  m[0] = cpu_metric(60);
  for (i = 0; i < HPA_MAX_METRICS + 1; i++) m[i] = cpu_metric(60);
  c.metrics_len = HPA_MAX_METRICS + 1;
  expect_spec_error(&c, "spec.metrics", HPA_FIELD_ERROR_TYPE_TOO_MANY,
                    "spec.metrics: Too many: 9: must have at most 8 items");
  c.metrics_len = 1;

  /* Behavior. */
  memset(&b, 0, sizeof b);
  memset(&up, 0, sizeof up);
  memset(&down, 0, sizeof down);
  b.scale_up = &up;
  b.scale_down = &down;
  c.behavior = &b;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  up.policies = policies;
  up.policies_len = 0;
  expect_spec_error(&c, "spec.behavior.scaleUp.policies", HPA_FIELD_ERROR_TYPE_REQUIRED,
                    "spec.behavior.scaleUp.policies: Required value: must specify at least one "
                    "Policy");
  memset(policies, 0, sizeof policies);
  policies[0].value = 4;
  policies[0].period_seconds = 15;
  up.policies_len = 1;
  expect_spec_error(&c, "spec.behavior.scaleUp.policies[0].type",
                    HPA_FIELD_ERROR_TYPE_UNSUPPORTED,
                    "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"\": "
                    "supported values: \"Percent\", \"Pods\"");
  policies[0].type = HPA_POLICY_TYPE_PODS;
  policies[0].period_seconds = 1801;
  expect_spec_error(&c, "spec.behavior.scaleUp.policies[0].periodSeconds",
                    HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: "
                    "must be less than or equal to 1800");
  policies[0].period_seconds = 15;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  down.has_stabilization_window_seconds = 1;
  down.stabilization_window_seconds = 3601;
  expect_spec_error(&c, "spec.behavior.scaleDown.stabilizationWindowSeconds",
                    HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: "
                    "must be less than or equal to 3600");
  down.stabilization_window_seconds = 60;
  down.has_tolerance = 1;
  down.tolerance.mantissa = -5;
  down.tolerance.exponent = -2;
  expect_spec_error(&c, "spec.behavior.scaleDown.tolerance", HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.behavior.scaleDown.tolerance: Invalid value: -50m: must be greater "
                    "or equal to zero");
  down.tolerance.mantissa = 5;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);

  /* Scale target reference. */
  memset(&ref, 0, sizeof ref);
  ref.name = S("web");
  ref.api_version = S("apps/v1");
  c.scale_target_ref = &ref;
  expect_spec_error(&c, "spec.scaleTargetRef.kind", HPA_FIELD_ERROR_TYPE_REQUIRED,
                    "spec.scaleTargetRef.kind: Required value");
  ref.kind = S("Deployment");
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);

  /* C-level errors: the C field path and what is wrong. */
  m[0].type = 99;
  expect_c_error(&c, HPA_STATUS_INVALID_ENUM, "config.metrics[0].type");
  CHECK_STR(g_error.message, "config.metrics[0].type: holds the unknown value 99");
  m[0] = cpu_metric(60);
  m[0].target.fields = 8;
  expect_c_error(&c, HPA_STATUS_INVALID_ENUM, "config.metrics[0].target.fields");
  m[0] = cpu_metric(60);
  m[0].name.ptr = bad_utf8;
  m[0].name.len = sizeof bad_utf8;
  expect_c_error(&c, HPA_STATUS_INVALID_UTF8, "config.metrics[0].name");
  m[0].name.ptr = NULL;
  m[0].name.len = 3;
  expect_c_error(&c, HPA_STATUS_NULL_POINTER, "config.metrics[0].name");
  CHECK_STR(g_error.message, "config.metrics[0].name: is NULL but its length is 3");
  m[0] = cpu_metric(60);
  c.has_min_replicas = 2;
  expect_c_error(&c, HPA_STATUS_INVALID_FLAG, "config.has_min_replicas");
  CHECK_STR(g_error.message, "config.has_min_replicas: must be 0 or 1, not 2");
  c.has_min_replicas = 0;
  c.metrics = NULL;
  expect_c_error(&c, HPA_STATUS_NULL_POINTER, "config.metrics");
  c.metrics = (const hpa_metric *)(const void *)((const char *)m + 1);
  expect_c_error(&c, HPA_STATUS_MISALIGNED, "config.metrics");
  c.metrics = m;
  up.select_policy = 7;
  expect_c_error(&c, HPA_STATUS_INVALID_ENUM, "config.behavior.scale_up.select_policy");
  up.select_policy = HPA_SELECT_POLICY_MIN;
  policies[0].type = 3;
  expect_c_error(&c, HPA_STATUS_INVALID_ENUM, "config.behavior.scale_up.policies[0].type");
  policies[0].type = HPA_POLICY_TYPE_PERCENT;
  for (i = 0; i <= HPA_MAX_POLICIES; i++) policies[i] = policies[0];
  up.policies_len = HPA_MAX_POLICIES + 1;
  expect_c_error(&c, HPA_STATUS_TOO_LARGE, "config.behavior.scale_up.policies");
  up.policies_len = HPA_MAX_POLICIES;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);

  /* Settings. */
  CHECK_STATUS(hpa_settings_default(NULL), HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_settings_default(&settings), HPA_STATUS_OK);
  CHECK(settings.tolerance.mantissa == 1 && settings.tolerance.exponent == -1);
  CHECK(settings.downscale_stabilization_window_ms == 300000);
  CHECK(settings.cpu_initialization_period_ms == 300000);
  CHECK(settings.initial_readiness_delay_ms == 30000);
  CHECK(settings.scale_to_zero == 1 && settings.configurable_tolerance == 1);
  CHECK(settings.arithmetic == HPA_ARITHMETIC_KUBERNETES);
  CHECK(settings.legacy_scale_up_factor == 2 && settings.legacy_scale_up_minimum == 4);
  c.settings = &settings;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  settings.tolerance.mantissa = -1;
  expect_c_error(&c, HPA_STATUS_INVALID_SETTINGS, "config.settings.tolerance");
  settings.tolerance.mantissa = 1;
  settings.initial_readiness_delay_ms = -1;
  expect_c_error(&c, HPA_STATUS_INVALID_SETTINGS, "config.settings.initial_readiness_delay_ms");
  settings.initial_readiness_delay_ms = 0;
  settings.arithmetic = 3;
  expect_c_error(&c, HPA_STATUS_INVALID_ENUM, "config.settings.arithmetic");
  settings.arithmetic = HPA_ARITHMETIC_EXACT;
  settings.scale_to_zero = 0;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  settings.explicit_zeros = 128;
  expect_c_error(&c, HPA_STATUS_INVALID_FLAG, "config.settings.explicit_zeros");
  settings.explicit_zeros = 0;
  settings.legacy_scale_up_factor = -1;
  expect_c_error(&c, HPA_STATUS_INVALID_SETTINGS, "config.settings.legacy_scale_up_factor");
  settings.legacy_scale_up_factor = 0;
  settings.configurable_tolerance = 2;
  expect_c_error(&c, HPA_STATUS_INVALID_FLAG, "config.settings.configurable_tolerance");
  settings.configurable_tolerance = 0;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  settings.explicit_zeros = HPA_SETTING_SCALE_TO_ZERO; /* the gate off */
  c.has_min_replicas = 1;
  c.min_replicas = 0;
  expect_spec_error(&c, "spec.minReplicas", HPA_FIELD_ERROR_TYPE_INVALID,
                    "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1");
}

/* A zeroed hpa_settings is the controller's defaults; explicit_zeros makes a 0 a value. */
static void check_zero_settings(hpa_config *c) {
  hpa_settings zero, defaults;
  hpa_resolved_config r;
  memset(&zero, 0, sizeof zero);
  CHECK_STATUS(hpa_settings_default(&defaults), HPA_STATUS_OK);
  CHECK(defaults.explicit_zeros == 0);
  c->settings = &zero;
  CHECK_STATUS(hpa_config_resolve(c, &r, NULL), HPA_STATUS_OK);
  CHECK(r.settings.tolerance.mantissa == defaults.tolerance.mantissa &&
        r.settings.tolerance.exponent == defaults.tolerance.exponent);
  CHECK(r.settings.downscale_stabilization_window_ms == defaults.downscale_stabilization_window_ms);
  CHECK(r.settings.cpu_initialization_period_ms == defaults.cpu_initialization_period_ms);
  CHECK(r.settings.initial_readiness_delay_ms == defaults.initial_readiness_delay_ms);
  CHECK(r.settings.scale_to_zero == 1 && r.settings.configurable_tolerance == 1);
  CHECK(r.settings.arithmetic == defaults.arithmetic);
  CHECK(r.settings.legacy_scale_up_factor == defaults.legacy_scale_up_factor);
  CHECK(r.settings.legacy_scale_up_minimum == defaults.legacy_scale_up_minimum);
  CHECK(r.settings.explicit_zeros == 0);
  zero.explicit_zeros = HPA_SETTING_TOLERANCE | HPA_SETTING_DOWNSCALE_STABILIZATION_WINDOW |
                        HPA_SETTING_CPU_INITIALIZATION_PERIOD |
                        HPA_SETTING_INITIAL_READINESS_DELAY | HPA_SETTING_SCALE_TO_ZERO |
                        HPA_SETTING_CONFIGURABLE_TOLERANCE | HPA_SETTING_LEGACY_SCALE_UP_MINIMUM;
  CHECK_STATUS(hpa_config_resolve(c, &r, NULL), HPA_STATUS_OK);
  CHECK(r.settings.tolerance.mantissa == 0 && r.settings.downscale_stabilization_window_ms == 0);
  CHECK(r.settings.cpu_initialization_period_ms == 0 && r.settings.initial_readiness_delay_ms == 0);
  CHECK(r.settings.scale_to_zero == 0 && r.settings.configurable_tolerance == 0);
  CHECK(r.settings.legacy_scale_up_minimum == 0 && r.settings.explicit_zeros == zero.explicit_zeros);
  /* Fields with no valid 0 always take their default. */
  CHECK(r.settings.arithmetic == HPA_ARITHMETIC_KUBERNETES && r.settings.legacy_scale_up_factor == 2);
  c->settings = NULL;
}

static void test_resolve(void) {
  hpa_config c;
  hpa_resolved_config r;
  hpa_behavior b;
  hpa_scaling_rules down;
  memset(&c, 0, sizeof c);
  c.max_replicas = 5;
  memset(&r, 0x5A, sizeof r);
  CHECK_STATUS(hpa_config_resolve(&c, &r, NULL), HPA_STATUS_OK);
  CHECK(r.min_replicas == 1 && r.max_replicas == 5);
  CHECK(r.metrics_len == 1 && r.default_metric == 1 && r.has_behavior == 0);
  CHECK(r.scale_down.tolerance.mantissa == 1 && r.scale_down.tolerance.exponent == -1);
  memset(&b, 0, sizeof b);
  memset(&down, 0, sizeof down);
  down.has_tolerance = 1;
  down.tolerance.mantissa = 35;
  down.tolerance.exponent = -2;
  b.scale_down = &down;
  c.behavior = &b;
  CHECK_STATUS(hpa_config_resolve(&c, &r, NULL), HPA_STATUS_OK);
  CHECK(r.has_behavior == 1);
  CHECK(r.scale_up.stabilization_window_seconds == 0);
  CHECK(r.scale_up.select_policy == HPA_SELECT_POLICY_MAX);
  CHECK(r.scale_up.policies_len == 2);
  CHECK(r.scale_up.policies[0].type == HPA_POLICY_TYPE_PODS && r.scale_up.policies[0].value == 4 &&
        r.scale_up.policies[0].period_seconds == 15);
  CHECK(r.scale_up.policies[1].type == HPA_POLICY_TYPE_PERCENT &&
        r.scale_up.policies[1].value == 100 && r.scale_up.policies[1].period_seconds == 15);
  CHECK(r.scale_down.stabilization_window_seconds == 300);
  CHECK(r.scale_down.policies_len == 1 && r.scale_down.policies[0].value == 100);
  CHECK(r.scale_down.tolerance.mantissa == 350 && r.scale_down.tolerance.exponent == -3);
  CHECK(r.scale_up.tolerance.mantissa == 1 && r.scale_up.tolerance.exponent == -1);
  CHECK(r.settings.arithmetic == HPA_ARITHMETIC_KUBERNETES);
  check_zero_settings(&c);
  c.max_replicas = 0;
  memset(&r, 0x5A, sizeof r);
  CHECK_STATUS(hpa_config_resolve(&c, &r, &g_error), HPA_STATUS_INVALID_SPEC);
  CHECK(((unsigned char *)&r)[0] == 0x5A);
  CHECK_STR(g_error.field, "spec.maxReplicas");
}

static void test_observation_errors(void) {
  hpa_metric m = cpu_metric(60);
  hpa_config c = config_with(&m, 1, 10);
  hpa_metric_values v[2];
  hpa_observation o;
  size_t need = 12345;
  static unsigned char before[sizeof(hpa_autoscaler)];
  static const char bad_utf8[] = {(char)0xFF};

  make_pods(4, 300);
  v[0] = samples_values(4);
  o = observation(0, 4, 4, v, 1);
  CHECK_STATUS(hpa_observation_check(&c, &o, &need, &g_error), HPA_STATUS_OK);
  /* The evaluation reads the pods and samples in place: no workspace. */
  CHECK(need == 0);
  CHECK_STATUS(hpa_observation_check(&c, &o, NULL, &g_error), HPA_STATUS_NULL_POINTER);

  init(&g_autoscaler);
  memcpy(before, &g_autoscaler, sizeof before);
#define REFUSED(status, path)                                                          \
  do {                                                                                  \
    size_t n_ = 777;                                                                    \
    memset(&g_decision, 0x5A, sizeof g_decision);                                       \
    CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), status);                              \
    CHECK(((unsigned char *)&g_decision)[0] == 0x5A &&                                  \
          ((unsigned char *)&g_decision)[sizeof g_decision - 1] == 0x5A);               \
    CHECK(memcmp(before, &g_autoscaler, sizeof before) == 0);                           \
    CHECK_STATUS(hpa_observation_check(&c, &o, &n_, &g_error), status);                 \
    CHECK(n_ == 777);                                                                   \
    CHECK_STR(g_error.field, path);                                                     \
  } while (0)

  v[0].samples_len = 3;
  REFUSED(HPA_STATUS_LENGTH_MISMATCH, "observation.metrics[0].samples_len");
  CHECK_STR(g_error.message,
            "observation.metrics[0].samples_len: has 3 entries but must have 4 (one per pod)");
  v[0].samples_len = 4;
  o.metrics_len = 2;
  v[1] = v[0];
  REFUSED(HPA_STATUS_LENGTH_MISMATCH, "observation.metrics_len");
  o.metrics_len = 1;
  v[0].kind = HPA_VALUES_KIND_OBJECT;
  REFUSED(HPA_STATUS_WRONG_VALUES_KIND, "observation.metrics[0].kind");
  CHECK_STR(g_error.message,
            "observation.metrics[0].kind: holds Object values, which a Resource metric cannot use");
  v[0].kind = 0;
  REFUSED(HPA_STATUS_INVALID_ENUM, "observation.metrics[0].kind");
  v[0].kind = HPA_VALUES_KIND_SAMPLES;
  o.replicas = -1;
  REFUSED(HPA_STATUS_OUT_OF_RANGE, "observation.replicas");
  o.replicas = 4;
  o.has_status_replicas = 1;
  o.status_replicas = -3;
  REFUSED(HPA_STATUS_OUT_OF_RANGE, "observation.status_replicas");
  o.has_status_replicas = 0;
  g_pods[2].containers_len = 0;
  g_pods[2].name.ptr = bad_utf8;
  g_pods[2].name.len = 1;
  {
    /* An evaluation checks pods' names only when its engine may read one, to name a pod in an
       error: no pod lacks the cpu request here (pod 2 has no container, which requests 0), so
       the evaluation (of a copy) goes on. hpa_observation_check checks every name. */
    static hpa_autoscaler copy;
    size_t n_ = 777;
    memcpy(&copy, &g_autoscaler, sizeof copy);
    CHECK_STATUS(evaluate(&copy, &c, &o), HPA_STATUS_OK);
    CHECK_STATUS(hpa_observation_check(&c, &o, &n_, &g_error), HPA_STATUS_INVALID_UTF8);
    CHECK_STR(g_error.field, "observation.pods[2].name");
  }
  {
    /* A container without the cpu request: the engine may name its pod, so every name is
       checked. */
    static hpa_container no_cpu;
    no_cpu.name = S("app");
    g_pods[2].containers = &no_cpu;
    g_pods[2].containers_len = 1;
    REFUSED(HPA_STATUS_INVALID_UTF8, "observation.pods[2].name");
    g_pods[2].containers = &k_container;
    g_pods[2].containers_len = 0;
  }
  g_pods[2].name = S("web");
  g_pods[1].phase = 9;
  REFUSED(HPA_STATUS_INVALID_ENUM, "observation.pods[1].phase");
  g_pods[1].phase = HPA_POD_PHASE_RUNNING;
  g_pods[3].ready = 4;
  REFUSED(HPA_STATUS_INVALID_ENUM, "observation.pods[3].ready");
  g_pods[3].ready = HPA_READY_TRUE;
  g_pods[0].deleted = 3;
  REFUSED(HPA_STATUS_INVALID_FLAG, "observation.pods[0].deleted");
  g_pods[0].deleted = 0;
  g_pods[3].containers = NULL;
  REFUSED(HPA_STATUS_NULL_POINTER, "observation.pods[3].containers");
  g_pods[3].containers = &k_container;
  g_samples[1].present = 2;
  REFUSED(HPA_STATUS_INVALID_FLAG, "observation.metrics[0].samples[1].present");
  g_samples[1].present = 1;
  g_samples[2].has_window = 1;
  g_samples[2].window_ms = -1;
  REFUSED(HPA_STATUS_OUT_OF_RANGE, "observation.metrics[0].samples[2].window_ms");
  g_samples[2].has_window = 0;
  v[0].orphans = g_samples;
  v[0].orphans_len = 1;
  g_samples[0].present = 1;
  CHECK_STATUS(hpa_observation_check(&c, &o, &need, &g_error), HPA_STATUS_OK);
  g_samples[5].present = 0;
  v[0].orphans = g_samples + 5;
  REFUSED(HPA_STATUS_INVALID_FLAG, "observation.metrics[0].orphans[0].present");
  v[0].orphans_len = 0;
  o.pods = NULL;
  REFUSED(HPA_STATUS_NULL_POINTER, "observation.pods");
  o.pods = g_pods;
  m.target.average_utilization = 0;
  memset(&g_decision, 0x5A, sizeof g_decision);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_INVALID_SPEC);
  CHECK(memcmp(before, &g_autoscaler, sizeof before) == 0);
  m.target.average_utilization = 60;

  /* Arguments of the evaluation itself. */
  CHECK_STATUS(hpa_observation_check(&c, &o, &need, &g_error), HPA_STATUS_OK);
  memset(&g_decision, 0x5A, sizeof g_decision);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, g_workspace, sizeof g_workspace, NULL),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, NULL, &o, g_workspace, sizeof g_workspace,
                                       &g_decision),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, NULL, g_workspace, sizeof g_workspace,
                                       &g_decision),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 100, &g_decision),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, &g_decision, sizeof g_decision,
                                       &g_decision),
               HPA_STATUS_OVERLAP);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, &g_autoscaler, sizeof g_autoscaler,
                                       &g_decision),
               HPA_STATUS_OVERLAP);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, g_workspace, sizeof g_workspace,
                                       (hpa_decision *)(void *)(g_workspace + 1)),
               HPA_STATUS_MISALIGNED);
  CHECK(((unsigned char *)&g_decision)[0] == 0x5A);
  CHECK(memcmp(before, &g_autoscaler, sizeof before) == 0);

  /* No workspace works, and so does one of any size (older callers pass one). */
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, g_workspace + 3, 5, &g_decision),
               HPA_STATUS_OK);
#undef REFUSED
}

static void test_time_and_rescale(void) {
  hpa_metric m = cpu_metric(60);
  hpa_config c = config_with(&m, 1, 10);
  hpa_metric_values v;
  hpa_observation o;
  hpa_scaling_status st;
  static unsigned char before[sizeof(hpa_autoscaler)];

  init(&g_autoscaler);
  make_pods(3, 500);
  v = samples_values(3);
  o = observation(10000, 3, 3, &v, 1);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&g_autoscaler), HPA_STATUS_NO_PENDING_RESCALE);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  /* 3 pods at 100 % of their request against 60 %: ceil(3 × 100 / 60) = 5. */
  CHECK(g_decision.rescale == 1 && g_decision.desired_replicas == 5);
  CHECK(g_decision.current_replicas == 3 && g_decision.at_ms == 10000);
  CHECK(g_decision.rescale_reason == HPA_RESCALE_REASON_ABOVE_TARGET);
  CHECK_STR(g_decision.reason, "cpu resource utilization (percentage of request) above target");
  CHECK(g_decision.metrics_len == 1);
  CHECK(g_decision.metrics[0].outcome == HPA_METRIC_OUTCOME_PROPOSAL);
  CHECK(g_decision.metrics[0].source == HPA_METRIC_SOURCE_TYPE_RESOURCE);
  CHECK(g_decision.metrics[0].replicas == 5);
  CHECK(g_decision.metrics[0].has_current_average_utilization == 1 &&
        g_decision.metrics[0].current_average_utilization == 100);
  CHECK(g_decision.metrics[0].has_current_average_value == 1 &&
        g_decision.metrics[0].current_average_value_milli == 500);
  CHECK_STR(g_decision.metrics[0].current_average_value_text, "500m");
  CHECK_STR(g_decision.metrics[0].name, "cpu resource utilization (percentage of request)");
  CHECK(g_decision.has_proposal == 1 && g_decision.proposal == 5);
  CHECK(g_decision.limited_by == HPA_LIMITED_BY_NOTHING);
  CHECK(g_decision.conditions_len == 3);
  CHECK(g_decision.conditions[1].type == HPA_CONDITION_TYPE_SCALING_ACTIVE);
  CHECK_STR(g_decision.conditions[1].message,
            "the HPA was able to successfully calculate a replica count from cpu resource "
            "utilization (percentage of request)");

  /* Time going backwards is refused and changes nothing. */
  memcpy(before, &g_autoscaler, sizeof before);
  o.now_ms = 9999;
  memset(&g_decision, 0x5A, sizeof g_decision);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_TIME_WENT_BACKWARDS);
  CHECK(memcmp(before, &g_autoscaler, sizeof before) == 0);
  CHECK(((unsigned char *)&g_decision)[0] == 0x5A);
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, &st), HPA_STATUS_OK);
  CHECK(st.rescale_pending == 1);

  /* A failed update. */
  CHECK_STATUS(hpa_autoscaler_rescale_failed(&g_autoscaler, "quota exceeded", 14), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_rescale_failed(&g_autoscaler, "again", 5),
               HPA_STATUS_NO_PENDING_RESCALE);
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, &st), HPA_STATUS_OK);
  CHECK(st.desired_replicas == 0 && st.has_last_scale_time == 0 && st.rescale_pending == 0);
  CHECK(st.conditions[0].type == HPA_CONDITION_TYPE_ABLE_TO_SCALE);
  CHECK(st.conditions[0].status == HPA_CONDITION_STATUS_FALSE);
  CHECK(st.conditions[0].reason == HPA_REASON_FAILED_UPDATE_SCALE);
  CHECK_STR(st.conditions[0].message,
            "the HPA controller was unable to update the target scale: quota exceeded");

  /* Then a successful one, 15 s later. */
  o.now_ms = 25000;
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  CHECK(g_decision.rescale == 1 && g_decision.desired_replicas == 5);
  CHECK_STATUS(hpa_autoscaler_rescale_failed(&g_autoscaler, "\xff", 1), HPA_STATUS_INVALID_UTF8);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&g_autoscaler), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&g_autoscaler), HPA_STATUS_NO_PENDING_RESCALE);
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, &st), HPA_STATUS_OK);
  CHECK(st.desired_replicas == 5 && st.has_last_scale_time == 1 && st.last_scale_time_ms == 25000);
  CHECK(st.conditions_len == 4);
  CHECK(st.conditions[0].reason == HPA_REASON_SUCCEEDED_RESCALE);
  CHECK_STR(st.conditions[0].message, "the HPA controller was able to update the target scale to 5");
  CHECK(st.conditions[3].type == HPA_CONDITION_TYPE_SCALED_TO_ZERO);
  CHECK_STR(st.conditions[3].message, "the HPA controller did not scale the workload to zero");

  /* Equal times are separate evaluations; the copy of an autoscaler is independent. */
  {
    static hpa_autoscaler copy;
    static hpa_decision first;
    make_pods(5, 300);
    v = samples_values(5);
    o = observation(25000, 5, 5, &v, 1);
    memcpy(&copy, &g_autoscaler, sizeof copy);
    CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
    memcpy(&first, &g_decision, sizeof first);
    CHECK_STATUS(evaluate(&copy, &c, &o), HPA_STATUS_OK);
    CHECK(decision_equal(&first, &g_decision));
    CHECK(g_decision.rescale == 0 && g_decision.desired_replicas == 5);
    CHECK(g_decision.limited_by == HPA_LIMITED_BY_TOLERANCE);
  }
}

/* The decision a copy of `before` makes of `o`, written into memory never initialized (malloc)
 * and into memory full of 0xFF bytes, says what g_decision says, and so does the status: the
 * library writes every member a caller reads (valgrind reports any read it left unwritten). */
static void check_written_in_place(const hpa_autoscaler *before, const hpa_config *c,
                                   const hpa_observation *o) {
  static hpa_autoscaler copy;
  static hpa_decision filled;
  hpa_decision *fresh = (hpa_decision *)malloc(sizeof *fresh);
  hpa_scaling_status *status = (hpa_scaling_status *)malloc(sizeof *status);
  hpa_scaling_status zeroed;
  CHECK(fresh != NULL && status != NULL);
  if (fresh != NULL && status != NULL) {
    memcpy(&copy, before, sizeof copy);
    CHECK_STATUS(hpa_autoscaler_evaluate(&copy, c, o, g_workspace, sizeof g_workspace, fresh),
                 HPA_STATUS_OK);
    CHECK(decision_equal(fresh, &g_decision));
    memset(&filled, 0xFF, sizeof filled);
    memcpy(&copy, before, sizeof copy);
    CHECK_STATUS(hpa_autoscaler_evaluate(&copy, c, o, g_workspace, sizeof g_workspace, &filled),
                 HPA_STATUS_OK);
    CHECK(decision_equal(&filled, &g_decision));
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_STATUS(hpa_autoscaler_scaling_status(&copy, status), HPA_STATUS_OK);
    CHECK_STATUS(hpa_autoscaler_scaling_status(&copy, &zeroed), HPA_STATUS_OK);
    CHECK(scaling_status_equal(status, &zeroed));
  }
  free(fresh);
  free(status);
}

static void test_all_sources(void) {
  hpa_metric m[7];
  hpa_metric_values v[7];
  hpa_config c;
  hpa_observation o;
  hpa_container_usage usage[2];
  static const int64_t series[] = {30000, 50000};
  size_t i;

  memset(m, 0, sizeof m);
  /* Resource cpu utilization 50 %, Resource memory AverageValue 128Mi, ContainerResource cpu of
   * "app" 50 %, Pods "qps" AverageValue 10, Object Value 100 on an Ingress, External Value 20,
   * External AverageValue 5. */
  m[0] = cpu_metric(50);
  m[1].type = HPA_METRIC_SOURCE_TYPE_RESOURCE;
  m[1].name = S("memory");
  m[1].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  m[1].target.average_value_milli = 134217728000LL;
  m[2] = cpu_metric(50);
  m[2].type = HPA_METRIC_SOURCE_TYPE_CONTAINER_RESOURCE;
  m[2].container = S("app");
  m[3].type = HPA_METRIC_SOURCE_TYPE_PODS;
  m[3].name = S("qps");
  m[3].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  m[3].target.average_value_milli = 10000;
  m[4].type = HPA_METRIC_SOURCE_TYPE_OBJECT;
  m[4].name = S("requests");
  m[4].described_object.kind = S("Ingress");
  m[4].described_object.name = S("main");
  m[4].described_object.api_version = S("networking.k8s.io/v1");
  m[4].target.type = HPA_METRIC_TARGET_TYPE_VALUE;
  m[4].target.value_milli = 100000;
  m[5].type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
  m[5].name = S("queue_length");
  m[5].target.type = HPA_METRIC_TARGET_TYPE_VALUE;
  m[5].target.value_milli = 20000;
  m[6] = m[5];
  m[6].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  m[6].target.average_value_milli = 5000;
  c = config_with(m, 7, 100);
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);

  /* 4 ready pods: cpu 250m of 500m (50 %), container "app" the same, memory 256Mi. */
  make_pods(4, 250);
  usage[0].name = S("app");
  usage[0].milli = 250;
  usage[1].name = S("sidecar");
  usage[1].milli = 0;
  for (i = 0; i < 4; i++) {
    g_samples[i].containers = usage;
    g_samples[i].containers_len = 2;
  }
  {
    static hpa_sample mem[4], qps[4];
    for (i = 0; i < 4; i++) {
      mem[i] = g_samples[i];
      mem[i].milli = 268435456000LL; /* 256Mi: 2 × the target */
      qps[i] = g_samples[i];
      qps[i].milli = 15000; /* 15 per pod against 10 */
    }
    for (i = 0; i < 7; i++) memset(&v[i], 0, sizeof v[i]);
    v[0] = samples_values(4);
    v[1] = samples_values(4);
    v[1].samples = mem;
    v[2] = samples_values(4);
    v[3] = samples_values(4);
    v[3].samples = qps;
    v[4].kind = HPA_VALUES_KIND_OBJECT;
    v[4].value_milli = 150000; /* 1.5 × the target */
    v[5].kind = HPA_VALUES_KIND_EXTERNAL;
    v[5].values_milli = series; /* 80 in total against 20 */
    v[5].values_len = 2;
    v[6] = v[5];
    o = observation(0, 4, 4, v, 7);
    init(&g_autoscaler);
    CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  }
  CHECK(g_decision.metrics_len == 7);
  for (i = 0; i < 7; i++) CHECK(g_decision.metrics[i].outcome == HPA_METRIC_OUTCOME_PROPOSAL);
  CHECK(g_decision.metrics[0].replicas == 4 && g_decision.metrics[0].within_tolerance == 1);
  CHECK(g_decision.metrics[1].replicas == 8);
  CHECK_STR(g_decision.metrics[1].current_average_value_text, "256Mi");
  CHECK_STR(g_decision.metrics[1].name, "memory resource");
  CHECK(g_decision.metrics[2].replicas == 4);
  CHECK_STR(g_decision.metrics[2].name,
            "cpu container resource utilization (percentage of request)");
  CHECK(g_decision.metrics[3].replicas == 6);
  CHECK_STR(g_decision.metrics[3].name, "pods metric qps");
  CHECK(g_decision.metrics[4].replicas == 6);
  CHECK(g_decision.metrics[4].has_current_value == 1);
  CHECK_STR(g_decision.metrics[4].current_value_text, "150");
  CHECK_STR(g_decision.metrics[4].name, "Ingress metric requests");
  CHECK(g_decision.metrics[5].replicas == 16);
  CHECK_STR(g_decision.metrics[5].name, "external metric queue_length(<nil>)");
  CHECK(g_decision.metrics[6].replicas == 16);
  CHECK_STR(g_decision.metrics[6].current_average_value_text, "20");
  CHECK(g_decision.desired_replicas == 8); /* legacy rate limit: max(2 × 4, 4) */
  CHECK(g_decision.limited_by == HPA_LIMITED_BY_RATE_POLICY);
  CHECK(g_decision.conditions[2].type == HPA_CONDITION_TYPE_SCALING_LIMITED);
  CHECK(g_decision.conditions[2].reason == HPA_REASON_SCALE_UP_LIMIT);
  CHECK_STR(g_decision.conditions[2].message,
            "the desired replica count is increasing faster than the maximum scale rate");

  /* A failing metric: its error, the aggregate, and the condition's message. */
  {
    static char long_message[2000];
    static hpa_autoscaler before;
    memset(long_message, 'x', sizeof long_message);
    v[5].kind = HPA_VALUES_KIND_ERROR;
    v[5].error.ptr = long_message;
    v[5].error.len = sizeof long_message;
    v[6].kind = HPA_VALUES_KIND_ERROR;
    v[6].error = S("adapter unavailable");
    o.now_ms = 15000;
    memcpy(&before, &g_autoscaler, sizeof before);
    CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
    check_written_in_place(&before, &c, &o);
    CHECK(g_decision.metrics[6].outcome == HPA_METRIC_OUTCOME_ERROR);
    CHECK(g_decision.metrics[6].error_reason == HPA_REASON_FAILED_GET_EXTERNAL_METRIC);
    CHECK_STR(g_decision.metrics[6].error,
              "failed to get queue_length external metric value: failed to get queue_length "
              "external metric: unable to get external metric queue_length/<nil>: adapter "
              "unavailable");
    CHECK(strlen(g_decision.metrics[5].error) < HPA_MESSAGE_CAPACITY);
    CHECK(strcmp(g_decision.metrics[5].error + strlen(g_decision.metrics[5].error) - 3, "...") == 0);
    CHECK(g_decision.invalid_metrics == 2);
    CHECK(strncmp(g_decision.metrics_error, "invalid metrics (2 invalid out of 7), first error is: ",
                  54) == 0);
    /* The other metrics still scale up: scaling goes on. */
    CHECK(g_decision.conditions[1].reason == HPA_REASON_VALID_METRIC_FOUND);
  }
  {
    /* Only the failing metrics: no decision, ScalingActive False with upstream's message. */
    hpa_config only = config_with(m + 6, 1, 100);
    hpa_observation o2 = observation(30000, 4, 4, v + 6, 1);
    CHECK_STATUS(evaluate(&g_autoscaler, &only, &o2), HPA_STATUS_OK);
    CHECK(g_decision.limited_by == HPA_LIMITED_BY_INVALID_METRICS);
    CHECK(g_decision.rescale == 0);
    CHECK(g_decision.conditions[1].status == HPA_CONDITION_STATUS_FALSE);
    CHECK(g_decision.conditions[1].reason == HPA_REASON_FAILED_GET_EXTERNAL_METRIC);
    CHECK_STR(g_decision.conditions[1].message,
              "the HPA was unable to compute the replica count: failed to get queue_length "
              "external metric: unable to get external metric queue_length/<nil>: adapter "
              "unavailable");
  }
}

/* A ContainerResource sample without the metric's container (none listed, a NULL array, or
 * another container only) is a pod without a sample, as upstream since PR #127193: the
 * decision is byte for byte the one of the same observation with that sample absent, scaling
 * up and down, also with an orphan sample lacking the container. When no pod has the
 * container, the metric fails as upstream's does. */
static void test_missing_container(void) {
  static const int64_t usages[] = {400, 50};
  /* Pod 1 missing: at 0 % scaling up (80 % measured, 60 % rebalanced: 4 × 1.2 → 5), at its
   * request scaling down (10 % measured, 32.5 % rebalanced: 4 × 0.65 → 3). */
  static const int32_t replicas[] = {5, 3};
  static hpa_autoscaler absent;
  static hpa_decision expected;
  hpa_metric m = cpu_metric(50);
  hpa_config c;
  hpa_metric_values v;
  hpa_observation o;
  hpa_container_usage used[2], sidecar_only[1];
  size_t u, form, i;

  m.type = HPA_METRIC_SOURCE_TYPE_CONTAINER_RESOURCE;
  m.container = S("app");
  c = config_with(&m, 1, 10);
  sidecar_only[0].name = S("sidecar");
  sidecar_only[0].milli = 90;
  used[0] = sidecar_only[0];
  used[1].name = S("app");
  for (u = 0; u < 2; u++) {
    used[1].milli = usages[u];
    for (form = 0; form < 4; form++) {
      make_pods(4, 900);
      for (i = 0; i < 4; i++) {
        g_samples[i].containers = used;
        g_samples[i].containers_len = 2;
      }
      v = samples_values(4);
      o = observation(0, 4, 4, &v, 1);
      g_samples[1].present = 0;
      init(&absent);
      CHECK_STATUS(evaluate(&absent, &c, &o), HPA_STATUS_OK);
      memcpy(&expected, &g_decision, sizeof expected);
      CHECK(expected.metrics[0].outcome == HPA_METRIC_OUTCOME_PROPOSAL);
      CHECK(expected.metrics[0].replicas == replicas[u]);
      /* Forms: an empty array, a NULL one, another container only, and the last with an
       * orphan sample that lacks the container as well. */
      g_samples[1].present = 1;
      g_samples[1].containers = form == 0 ? used : form == 1 ? NULL : sidecar_only;
      g_samples[1].containers_len = form < 2 ? 0 : 1;
      if (form == 3) {
        v.orphans = &g_samples[1];
        v.orphans_len = 1;
      }
      init(&g_autoscaler);
      CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
      CHECK(decision_equal(&expected, &g_decision));
    }
  }
  /* No pod has the container: the metrics API answered, no pod has a sample. */
  for (i = 0; i < 4; i++) {
    g_samples[i].present = 1;
    g_samples[i].containers = sidecar_only;
    g_samples[i].containers_len = 1;
  }
  v = samples_values(4);
  o = observation(0, 4, 4, &v, 1);
  init(&g_autoscaler);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  CHECK(g_decision.metrics[0].outcome == HPA_METRIC_OUTCOME_ERROR);
  CHECK(g_decision.metrics[0].error_reason == HPA_REASON_FAILED_GET_CONTAINER_RESOURCE_METRIC);
  CHECK_STR(g_decision.metrics[0].error,
            "failed to get app container metric value: failed to get cpu utilization: did not "
            "receive metrics for targeted pods (pods might be unready)");
  CHECK(g_decision.rescale == 0 && g_decision.limited_by == HPA_LIMITED_BY_INVALID_METRICS);
}

/* Readings upstream's arithmetic takes as they are: an External AverageValue series with a
 * negative entry, which upstream's guard takes as MaxInt64 (the largest proposal); a negative
 * Object value; a pod with a negative request. Each proposal says so in `reading`. */
static void test_readings(void) {
  static const int64_t series[] = {2000, -5000};
  hpa_metric m[3];
  hpa_metric_values v[3];
  hpa_config c;
  hpa_observation o;

  memset(m, 0, sizeof m);
  memset(v, 0, sizeof v);
  m[0].type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
  m[0].name = S("queue_length");
  m[0].target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  m[0].target.average_value_milli = 1000;
  m[1].type = HPA_METRIC_SOURCE_TYPE_OBJECT;
  m[1].name = S("requests");
  m[1].described_object.kind = S("Ingress");
  m[1].described_object.name = S("main");
  m[1].described_object.api_version = S("networking.k8s.io/v1");
  m[1].target.type = HPA_METRIC_TARGET_TYPE_VALUE;
  m[1].target.value_milli = 10000;
  m[2] = cpu_metric(50);
  c = config_with(m, 3, 100);
  make_pods(4, 250);
  v[0].kind = HPA_VALUES_KIND_EXTERNAL;
  v[0].values_milli = series;
  v[0].values_len = 2;
  v[1].kind = HPA_VALUES_KIND_OBJECT;
  v[1].value_milli = -5000;
  v[2] = samples_values(4);
  o = observation(0, 4, 4, v, 3);
  init(&g_autoscaler);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  CHECK(g_decision.metrics[0].outcome == HPA_METRIC_OUTCOME_PROPOSAL);
  CHECK(g_decision.metrics[0].reading == HPA_READING_TREATED_AS_OVERFLOW);
  CHECK(g_decision.metrics[0].replicas == 2147483647);
  CHECK(g_decision.metrics[1].reading == HPA_READING_NEGATIVE);
  CHECK(g_decision.metrics[1].replicas <= 0);
  CHECK(g_decision.metrics[2].reading == HPA_READING_PLAIN);
  CHECK_STR(hpa_reading_str(g_decision.metrics[0].reading), "treatedAsOverflow");
  CHECK_STR(hpa_reading_str(HPA_READING_NEGATIVE), "negative");
  CHECK_STR(hpa_reading_str(3), "unknown reading");

  /* A negative sample of a ready pod. */
  g_samples[2].milli = -250;
  init(&g_autoscaler);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  CHECK(g_decision.metrics[2].outcome == HPA_METRIC_OUTCOME_PROPOSAL);
  CHECK(g_decision.metrics[2].reading == HPA_READING_NEGATIVE);
}

static void test_behavior_and_zero(void) {
  hpa_metric m;
  hpa_config c;
  hpa_behavior b;
  hpa_scaling_rules up;
  hpa_scaling_policy pol = {HPA_POLICY_TYPE_PODS, 2, 60};
  hpa_metric_values v;
  hpa_observation o;
  static const int64_t queue[] = {100000};
  static const int64_t empty_queue[] = {0};
  hpa_scaling_status st;

  memset(&m, 0, sizeof m);
  m.type = HPA_METRIC_SOURCE_TYPE_EXTERNAL;
  m.name = S("queue");
  m.target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
  m.target.average_value_milli = 10000;
  c = config_with(&m, 1, 20);
  scale_up_with(&c, &b, &up, &pol);
  memset(&v, 0, sizeof v);
  v.kind = HPA_VALUES_KIND_EXTERNAL;
  v.values_milli = queue;
  v.values_len = 1;
  make_pods(0, 0);
  o = observation(0, 2, 0, &v, 1);
  init(&g_autoscaler);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  /* 100 / 10 = 10 replicas wanted, 2 more pods per 60 s allowed. */
  CHECK(g_decision.has_proposal && g_decision.proposal == 10);
  CHECK(g_decision.desired_replicas == 4 && g_decision.limited_by == HPA_LIMITED_BY_RATE_POLICY);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&g_autoscaler), HPA_STATUS_OK);
  o.now_ms = 15000;
  o.replicas = 4;
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  CHECK(g_decision.desired_replicas == 4 && g_decision.rescale == 0);

  /* Scale to zero and back (HPAScaleToZero, minReplicas 0, an External metric). */
  c.has_min_replicas = 1;
  c.min_replicas = 0;
  c.behavior = NULL;
  CHECK_STATUS(hpa_config_validate(&c, &g_error), HPA_STATUS_OK);
  v.values_milli = empty_queue;
  o.now_ms = 400000;
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  CHECK(g_decision.desired_replicas == 0 && g_decision.rescale == 1);
  CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&g_autoscaler), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, &st), HPA_STATUS_OK);
  CHECK(st.conditions[3].type == HPA_CONDITION_TYPE_SCALED_TO_ZERO &&
        st.conditions[3].status == HPA_CONDITION_STATUS_TRUE);
  CHECK_STR(st.conditions[3].message, "the HPA controller scaled the workload to zero");
  v.values_milli = queue;
  o.now_ms = 415000;
  o.replicas = 0;
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  /* 10 wanted; the legacy rate limit allows max(2 × 0, 4). */
  CHECK(g_decision.rescale == 1 && g_decision.proposal == 10 && g_decision.desired_replicas == 4);

  /* A new autoscaler for a target at zero scales up only once ScaledToZero is restored. */
  init(&g_autoscaler);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  CHECK(g_decision.rescale == 0 && g_decision.limited_by == HPA_LIMITED_BY_SCALING_DISABLED);
  CHECK_STR(g_decision.conditions[1].message,
            "scaling is disabled since the replica count of the target is zero");
  init(&g_autoscaler);
  CHECK_STATUS(hpa_autoscaler_restore_scaled_to_zero(&g_autoscaler), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_evaluate(&g_autoscaler, &c, &o, NULL, 0, &g_decision), HPA_STATUS_OK);
  CHECK(g_decision.rescale == 1 && g_decision.desired_replicas == 4);
}

static void test_quantities(void) {
  int64_t milli = 42;
  char buf[HPA_QUANTITY_TEXT_CAPACITY];
  size_t len = 0;

  CHECK_STATUS(hpa_quantity_parse("250m", 4, &milli), HPA_STATUS_OK);
  CHECK(milli == 250);
  CHECK_STATUS(hpa_quantity_parse("1.5", 3, &milli), HPA_STATUS_OK);
  CHECK(milli == 1500);
  CHECK_STATUS(hpa_quantity_parse("2Gi", 3, &milli), HPA_STATUS_OK);
  CHECK(milli == 2147483648000LL);
  CHECK_STATUS(hpa_quantity_parse(" 1e3 ", 5, &milli), HPA_STATUS_OK);
  CHECK(milli == 1000000);
  CHECK_STATUS(hpa_quantity_parse("0.1m", 4, &milli), HPA_STATUS_OK);
  CHECK(milli == 1);
  CHECK_STATUS(hpa_quantity_parse("-0.1m", 5, &milli), HPA_STATUS_OK);
  CHECK(milli == -1);
  CHECK_STATUS(hpa_quantity_parse("100E", 4, &milli), HPA_STATUS_OK);
  CHECK(milli == INT64_MAX);
  milli = 42;
  CHECK_STATUS(hpa_quantity_parse("", 0, &milli), HPA_STATUS_QUANTITY_FORMAT);
  CHECK_STATUS(hpa_quantity_parse(NULL, 0, &milli), HPA_STATUS_QUANTITY_FORMAT);
  CHECK_STATUS(hpa_quantity_parse("1.2.3", 5, &milli), HPA_STATUS_QUANTITY_FORMAT);
  CHECK_STATUS(hpa_quantity_parse("1i", 2, &milli), HPA_STATUS_QUANTITY_SUFFIX);
  CHECK_STATUS(hpa_quantity_parse("1e9999999999", 12, &milli), HPA_STATUS_QUANTITY_EXPONENT);
  CHECK_STATUS(hpa_quantity_parse("\xc3", 1, &milli), HPA_STATUS_INVALID_UTF8);
  CHECK_STATUS(hpa_quantity_parse(NULL, 3, &milli), HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_quantity_parse("1", 1, NULL), HPA_STATUS_NULL_POINTER);
  CHECK(milli == 42);

  CHECK_STATUS(hpa_quantity_write(1500, HPA_QUANTITY_FORMAT_DECIMAL_SI, buf, sizeof buf, &len),
               HPA_STATUS_OK);
  CHECK_STR(buf, "1500m");
  CHECK(len == 5);
  CHECK_STATUS(hpa_quantity_write(524288000000LL, HPA_QUANTITY_FORMAT_BINARY_SI, buf, sizeof buf, NULL),
               HPA_STATUS_OK);
  CHECK_STR(buf, "500Mi");
  CHECK_STATUS(hpa_quantity_write(12000000000LL, HPA_QUANTITY_FORMAT_DECIMAL_EXPONENT, buf, sizeof buf,
                                  NULL),
               HPA_STATUS_OK);
  CHECK_STR(buf, "12e6");
  CHECK_STATUS(hpa_quantity_write(INT64_MIN, HPA_QUANTITY_FORMAT_DECIMAL_SI, buf, sizeof buf, NULL),
               HPA_STATUS_OK);
  CHECK_STR(buf, "-9223372036854775808m");
  memset(buf, '#', sizeof buf);
  CHECK_STATUS(hpa_quantity_write(1500, HPA_QUANTITY_FORMAT_DECIMAL_SI, buf, 5, &len),
               HPA_STATUS_BUFFER_TOO_SMALL);
  CHECK(buf[0] == '#' && len == 5);
  CHECK_STATUS(hpa_quantity_write(1500, 0, buf, sizeof buf, NULL), HPA_STATUS_INVALID_ENUM);
  CHECK_STATUS(hpa_quantity_write(1500, HPA_QUANTITY_FORMAT_DECIMAL_SI, NULL, 0, NULL),
               HPA_STATUS_NULL_POINTER);

  CHECK_STATUS(hpa_milli_from_double(0.007, &milli), HPA_STATUS_OK);
  CHECK(milli == 7);
  CHECK_STATUS(hpa_milli_from_double(0.1, &milli), HPA_STATUS_OK);
  CHECK(milli == 100);
  CHECK_STATUS(hpa_milli_from_double(0.1234, &milli), HPA_STATUS_OK);
  CHECK(milli == 124);
  CHECK_STATUS(hpa_milli_from_double(-0.0001, &milli), HPA_STATUS_OK);
  CHECK(milli == -1);
  CHECK_STATUS(hpa_milli_from_double(1e300, &milli), HPA_STATUS_OK);
  CHECK(milli == INT64_MAX);
  milli = 42;
  CHECK_STATUS(hpa_milli_from_double(NAN, &milli), HPA_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(hpa_milli_from_double(-INFINITY, &milli), HPA_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(hpa_milli_from_double(1.0, NULL), HPA_STATUS_NULL_POINTER);
  CHECK(milli == 42);
}

static void test_many_autoscalers(void) {
  /* An array of autoscalers, each with its own history. */
  static hpa_autoscaler pool[3];
  hpa_metric m = cpu_metric(50);
  hpa_config c = config_with(&m, 1, 10);
  hpa_metric_values v;
  hpa_observation o;
  static const int32_t expected[3] = {2, 4, 4}; /* 50 %, 100 %, 150 % (rate-limited to 4) */
  size_t i;
  for (i = 0; i < 3; i++) init(&pool[i]);
  for (i = 0; i < 3; i++) {
    make_pods(2, (int64_t)(250 * (i + 1)));
    v = samples_values(2);
    o = observation(0, 2, 2, &v, 1);
    CHECK_STATUS(evaluate(&pool[i], &c, &o), HPA_STATUS_OK);
    CHECK(g_decision.desired_replicas == expected[i]);
  }
}

/* Every test, by name: `api_test NAME` runs only that one. */
static const struct {
  const char *name;
  void (*run)(void);
} k_tests[] = {
    {"version_and_sizes", test_version_and_sizes},
    {"strings", test_strings},
    {"storage", test_storage},
    {"validation", test_validation},
    {"resolve", test_resolve},
    {"observation_errors", test_observation_errors},
    {"time_and_rescale", test_time_and_rescale},
    {"all_sources", test_all_sources},
    {"missing_container", test_missing_container},
    {"readings", test_readings},
    {"behavior_and_zero", test_behavior_and_zero},
    {"quantities", test_quantities},
    {"many_autoscalers", test_many_autoscalers},
    {"input_overlap", test_input_overlap},
    {"snapshot_round_trip", test_snapshot_round_trip},
    {"snapshot_damage", test_snapshot_damage},
    {"snapshot_arguments", test_snapshot_arguments},
    {"stack", test_stack},
};

int main(int argc, char **argv) {
  size_t i, ran = 0;
  for (i = 0; i < sizeof k_tests / sizeof k_tests[0]; i++) {
    if (argc > 1 && strcmp(argv[1], k_tests[i].name) != 0) continue;
    k_tests[i].run();
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "api_test: no test named %s\n", argv[1]);
    return 2;
  }
  printf("api_test: %d checks passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
