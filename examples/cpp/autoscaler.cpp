// autoscaler.cpp: libhpa from C++11. A small RAII-style wrapper owns the autoscaler's storage
// and its decision (no heap inside libhpa), turns statuses into exceptions, and scales a pool of request handlers on a Pods metric:
// in-flight requests per pod, 10 each.
//
//   c++ -std=c++11 -Iinclude examples/cpp/autoscaler.cpp target/release/libhpa.a -Wl,--gc-sections
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpa.h"

namespace {

void check(hpa_status status, const char *what) {
  if (status != HPA_STATUS_OK) throw std::runtime_error(std::string(what) + ": " + hpa_status_str(status));
}

hpa_str str(const std::string &s) {
  hpa_str r;
  r.ptr = s.data();
  r.len = s.size();
  return r;
}

// One HPA: its configuration and its caller-owned state.
class Autoscaler {
 public:
  explicit Autoscaler(const hpa_config &config) : config_(config) {
    hpa_field_error error;
    if (hpa_config_validate(&config_, &error) != HPA_STATUS_OK) throw std::invalid_argument(error.message);
    check(hpa_autoscaler_init(&state_, sizeof state_), "hpa_autoscaler_init");
  }

  // Evaluates one period and applies the decision through `apply`, which returns whether
  // setting the new size worked.
  template <typename Apply>
  const hpa_decision &evaluate(const hpa_observation &observation, Apply apply) {
    // The check names the field at fault; the evaluation needs no workspace.
    size_t needed = 0;
    hpa_field_error error;
    if (hpa_observation_check(&config_, &observation, &needed, &error) != HPA_STATUS_OK) {
      throw std::invalid_argument(error.message);
    }
    check(hpa_autoscaler_evaluate(&state_, &config_, &observation, nullptr, 0, &decision_),
          "hpa_autoscaler_evaluate");
    if (decision_.rescale) {
      if (apply(decision_.desired_replicas)) {
        check(hpa_autoscaler_rescale_succeeded(&state_), "rescale_succeeded");
      } else {
        check(hpa_autoscaler_rescale_failed(&state_, "apply failed", 12), "rescale_failed");
      }
    }
    return decision_;
  }

 private:
  hpa_config config_;
  hpa_autoscaler state_;
  hpa_decision decision_;
};

}  // namespace

int main() {
  try {
    hpa_metric metric;
    std::memset(&metric, 0, sizeof metric);
    metric.type = HPA_METRIC_SOURCE_TYPE_PODS;
    const std::string metric_name = "inflight_requests";
    metric.name = str(metric_name);
    metric.target.type = HPA_METRIC_TARGET_TYPE_AVERAGE_VALUE;
    metric.target.average_value_milli = 10 * 1000;

    hpa_config config;
    std::memset(&config, 0, sizeof config);
    config.max_replicas = 8;
    config.metrics = &metric;
    config.metrics_len = 1;

    Autoscaler hpa(config);
    std::vector<std::string> names;
    int replicas = 2;
    // Total in-flight requests, one value per minute.
    const int64_t inflight[] = {12, 35, 60, 41, 8, 8, 8, 8, 8, 8};

    for (int step = 0; step < 10; ++step) {
      std::vector<hpa_pod> pods(replicas);
      std::vector<hpa_sample> samples(replicas);
      names.resize(replicas);
      for (int i = 0; i < replicas; ++i) {
        names[i] = "handler-" + std::to_string(i);
        std::memset(&pods[i], 0, sizeof pods[i]);
        pods[i].name = str(names[i]);
        pods[i].ready = HPA_READY_TRUE;
        std::memset(&samples[i], 0, sizeof samples[i]);
        samples[i].present = 1;
        samples[i].milli = inflight[step] * 1000 / replicas;
      }
      hpa_metric_values values;
      std::memset(&values, 0, sizeof values);
      values.kind = HPA_VALUES_KIND_SAMPLES;
      values.samples = samples.data();
      values.samples_len = samples.size();
      hpa_observation observation;
      std::memset(&observation, 0, sizeof observation);
      observation.now_ms = step * 60000;  // one evaluation per minute
      observation.replicas = replicas;
      observation.pods = pods.data();
      observation.pods_len = pods.size();
      observation.metrics = &values;
      observation.metrics_len = 1;

      const hpa_decision &d = hpa.evaluate(observation, [&](int32_t n) {
        replicas = n;
        return true;
      });
      std::printf("minute %d: %2lld in flight, %5s per pod -> ", step,
                  static_cast<long long>(inflight[step]), d.metrics[0].current_average_value_text);
      if (d.rescale) {
        std::printf("%d replica%s (%s)\n", d.desired_replicas, d.desired_replicas == 1 ? "" : "s",
                    d.reason);
      } else {
        std::printf("keep %d (%s)\n", d.desired_replicas, hpa_limited_by_str(d.limited_by));
      }
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
