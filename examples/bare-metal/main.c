/*
 * libhpa in a bare-metal C program: the README's evaluation, without stdio, with every object
 * in static storage. .ci/c-cross links it for a Cortex-M0 (thumbv6m-none-eabi) and a
 * Cortex-M4F (thumbv7em-none-eabihf) with arm-none-eabi-gcc and newlib; it is not run.
 */
#include <stdint.h>

#include "hpa.h"

static hpa_autoscaler autoscaler;
static hpa_decision decision;

/* Where a firmware would act on the decision; volatile so that nothing is optimized away. */
volatile int32_t desired_replicas;
volatile uint32_t last_status;

int main(void) {
  hpa_metric cpu = {0};
  hpa_config config = {0};
  hpa_resource_request request = {HPA_STR_INIT("cpu"), 500};
  hpa_container container = {HPA_STR_INIT("app"), HPA_CONTAINER_KIND_REGULAR, &request, 1};
  static hpa_pod pods[3];
  static hpa_sample usage[3];
  hpa_metric_values values = {0};
  hpa_observation now = {0};
  hpa_status s;
  int i;

  cpu.type = HPA_METRIC_SOURCE_TYPE_RESOURCE;
  cpu.name = HPA_STR("cpu");
  cpu.target.type = HPA_METRIC_TARGET_TYPE_UTILIZATION;
  cpu.target.average_utilization = 60;
  config.max_replicas = 10;
  config.metrics = &cpu;
  config.metrics_len = 1;
  for (i = 0; i < 3; i++) {
    pods[i].name = HPA_STR("web");
    pods[i].ready = HPA_READY_TRUE;
    pods[i].has_start_time = 1;
    pods[i].start_time_ms = -600000;
    pods[i].containers = &container;
    pods[i].containers_len = 1;
    usage[i].present = 1;
    usage[i].milli = 500;
  }
  values.kind = HPA_VALUES_KIND_SAMPLES;
  values.samples = usage;
  values.samples_len = 3;
  now.replicas = 3;
  now.pods = pods;
  now.pods_len = 3;
  now.metrics = &values;
  now.metrics_len = 1;

  s = hpa_autoscaler_init(&autoscaler, sizeof autoscaler);
  if (s == HPA_STATUS_OK) {
    s = hpa_autoscaler_evaluate(&autoscaler, &config, &now, NULL, 0, &decision);
  }
  if (s == HPA_STATUS_OK && decision.rescale) {
    desired_replicas = decision.desired_replicas;
    s = hpa_autoscaler_rescale_succeeded(&autoscaler);
  }
  last_status = (uint32_t)s;
  return s == HPA_STATUS_OK ? 0 : 1;
}
