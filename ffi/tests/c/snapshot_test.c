/*
 * Snapshots from C: an autoscaler saved and restored on a clock that restarted decides as
 * one that ran on; every damaged, truncated or padded snapshot is refused and changes
 * nothing; bad arguments are refused and write nothing (docs/c-api.md, "Saving and
 * restoring").
 */
#include <stdint.h>

#include "api_test.h"

/* Storage that is not aligned by its type alone, to fill with garbage. */
typedef union {
  uint64_t align;
  unsigned char bytes[sizeof(hpa_autoscaler) + 16];
} raw_storage;

#define AS_AUTOSCALER(raw) ((hpa_autoscaler *)(void *)(raw).bytes)

/* CRC-32/ISO-HDLC, to forge snapshots that pass the checksum (docs/spec/snapshot.md#layout). */
static uint32_t crc32_of(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  size_t i;
  int k;
  for (i = 0; i < n; i++) {
    c ^= p[i];
    for (k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

/* Rewrites the length field and the CRC-32 of `len` bytes after an edit. */
static void seal(uint8_t *s, size_t len) {
  uint32_t crc;
  size_t i;
  for (i = 0; i < 4; i++) s[5 + i] = (uint8_t)(len >> (8 * i));
  crc = crc32_of(s, len - 4);
  for (i = 0; i < 4; i++) s[len - 4 + i] = (uint8_t)(crc >> (8 * i));
}

static size_t save(const hpa_autoscaler *a, int64_t now, uint8_t *buf) {
  size_t len = 0;
  CHECK_STATUS(hpa_autoscaler_save(a, now, buf, HPA_SNAPSHOT_MAX_BYTES, &len), HPA_STATUS_OK);
  CHECK(len > 0 && len <= HPA_SNAPSHOT_MAX_BYTES);
  return len;
}

/* Whether `a` saved at `now` is the `len` bytes of `expected`. */
static int saves_as(const hpa_autoscaler *a, int64_t now, const uint8_t *expected, size_t len) {
  static uint8_t buf[HPA_SNAPSHOT_MAX_BYTES];
  size_t got = 0;
  return hpa_autoscaler_save(a, now, buf, HPA_SNAPSHOT_MAX_BYTES, &got) == HPA_STATUS_OK && got == len &&
         memcmp(buf, expected, len) == 0;
}

/* Saves `b` at `at` on its clock, restores the snapshot into garbage at `now` (a clock that
 * restarted, or ran on) and moves the result into `b`; returns the clock's shift, now - at. */
static int64_t restart(hpa_autoscaler *b, int64_t at, int64_t now) {
  static raw_storage fresh;
  static uint8_t snap[HPA_SNAPSHOT_MAX_BYTES];
  size_t len = save(b, at, snap);
  memset(&fresh, 0xA5, sizeof fresh);
  CHECK_STATUS(hpa_autoscaler_restore(AS_AUTOSCALER(fresh), sizeof(hpa_autoscaler), snap, len, now),
               HPA_STATUS_OK);
  /* One state has one snapshot: saved again at the restore's instant, the same bytes. */
  CHECK(saves_as(AS_AUTOSCALER(fresh), now, snap, len));
  memcpy(b, fresh.bytes, sizeof *b);
  return now - at;
}

/* `b`'s status is `a`'s with its instants moved by `shift`. */
static void same_status(const hpa_autoscaler *a, const hpa_autoscaler *b, int64_t shift) {
  hpa_scaling_status sa, sb;
  CHECK_STATUS(hpa_autoscaler_scaling_status(a, &sa), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_scaling_status(b, &sb), HPA_STATUS_OK);
  if (sa.has_last_scale_time) {
    CHECK(sb.last_scale_time_ms == sa.last_scale_time_ms + shift);
    sb.last_scale_time_ms = sa.last_scale_time_ms;
  }
  CHECK(scaling_status_equal(&sa, &sb));
}

/* Per-pod CPU (milli; 250 is the 50 % target of the 500m request) at each 15 s step: at
 * target, a burst, a lull the stabilization window holds, then quiet. */
static int64_t load_at(size_t step) {
  if (step < 4) return 250;
  if (step < 10) return 500;
  if (step < 20) return 150;
  return 100;
}

void test_snapshot_round_trip(void) {
  static hpa_autoscaler a, b; /* a runs on; b is saved and restored three times */
  static hpa_decision first;
  hpa_metric m = cpu_metric(50);
  hpa_config c = config_with(&m, 1, 16);
  hpa_behavior behavior;
  hpa_scaling_rules up;
  hpa_scaling_policy pods_per_minute = {HPA_POLICY_TYPE_PODS, 2, 60};
  hpa_metric_values v;
  hpa_observation o;
  hpa_scaling_status st;
  int64_t shift = 0;
  int32_t replicas = 2;
  int rescales = 0, restores = 0, stabilized_after_restore = 0;
  size_t step;

  scale_up_with(&c, &behavior, &up, &pods_per_minute);
  init(&a);
  init(&b);
  for (step = 0; step < 40; step++) {
    int64_t t = (int64_t)step * 15000;
    make_pods((size_t)replicas, load_at(step));
    v = samples_values((size_t)replicas);
    o = observation(t, replicas, (size_t)replicas, &v, 1);
    CHECK_STATUS(evaluate(&a, &c, &o), HPA_STATUS_OK);
    memcpy(&first, &g_decision, sizeof first);
    o.now_ms = t + shift;
    CHECK_STATUS(evaluate(&b, &c, &o), HPA_STATUS_OK);
    CHECK(g_decision.at_ms == first.at_ms + shift);
    g_decision.at_ms = first.at_ms;
    CHECK(decision_equal(&first, &g_decision));
    stabilized_after_restore += restores > 0 && first.limited_by == HPA_LIMITED_BY_STABILIZATION;
    if (first.rescale) rescales++;
    if (first.rescale && rescales == 2) {
      /* Saved 5 s after an evaluation with a rescale pending, restored on a clock that
       * restarted at 0 (1 s after boot): the rescale is still pending. */
      shift += restart(&b, t + shift + 5000, 1000);
      restores++;
      CHECK_STATUS(hpa_autoscaler_scaling_status(&b, &st), HPA_STATUS_OK);
      CHECK(st.rescale_pending == 1);
    }
    if (first.rescale && rescales == 1) {
      CHECK_STATUS(hpa_autoscaler_rescale_failed(&a, "quota exceeded", 14), HPA_STATUS_OK);
      CHECK_STATUS(hpa_autoscaler_rescale_failed(&b, "quota exceeded", 14), HPA_STATUS_OK);
      /* The caller's message travels in the snapshot; restored on a clock far ahead. */
      shift += restart(&b, t + shift, 1000000000000LL);
      restores++;
      CHECK_STATUS(hpa_autoscaler_scaling_status(&b, &st), HPA_STATUS_OK);
      CHECK_STR(st.conditions[0].message,
                "the HPA controller was unable to update the target scale: quota exceeded");
    } else if (first.rescale) {
      CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&a), HPA_STATUS_OK);
      CHECK_STATUS(hpa_autoscaler_rescale_succeeded(&b), HPA_STATUS_OK);
      replicas = first.desired_replicas;
    }
    if (step == 25) {
      /* Within the scale-down window, on the same clock. */
      shift += restart(&b, t + shift + 14999, t + shift + 14999);
      restores++;
    }
    same_status(&a, &b, shift);
  }
  CHECK(restores == 3);
  CHECK(rescales >= 4);
  CHECK(stabilized_after_restore > 0);
}

void test_snapshot_damage(void) {
  static raw_storage target, garbage, garbage_before;
  static uint8_t snap[HPA_SNAPSHOT_MAX_BYTES], copy[HPA_SNAPSHOT_MAX_BYTES + 1];
  static uint8_t before[HPA_SNAPSHOT_MAX_BYTES];
  hpa_metric m = cpu_metric(60);
  hpa_config c = config_with(&m, 1, 10);
  hpa_metric_values v;
  hpa_observation o;
  hpa_scaling_status st;
  size_t len, before_len, i, refused = 0, unchanged = 0, annex;
  char expected[HPA_MESSAGE_CAPACITY];

  /* The snapshot: a history, a failed rescale's message, then a pending rescale. */
  init(&g_autoscaler);
  make_pods(3, 500);
  v = samples_values(3);
  o = observation(0, 3, 3, &v, 1);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_rescale_failed(&g_autoscaler, "quota exceeded", 14), HPA_STATUS_OK);
  o.now_ms = 15000;
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  len = save(&g_autoscaler, 20000, snap);
  /* The target: another autoscaler, compared through its own snapshot. */
  make_pods(2, 100);
  v = samples_values(2);
  o = observation(90000, 2, 2, &v, 1);
  CHECK_STATUS(hpa_autoscaler_init(AS_AUTOSCALER(target), sizeof(hpa_autoscaler)), HPA_STATUS_OK);
  CHECK_STATUS(evaluate(AS_AUTOSCALER(target), &c, &o), HPA_STATUS_OK);
  before_len = save(AS_AUTOSCALER(target), 100000, before);
  memset(&garbage, 0xA5, sizeof garbage);
  memcpy(&garbage_before, &garbage, sizeof garbage);

#define REFUSED_WHOLE(bytes, n, status)                                                       \
  do {                                                                                        \
    hpa_status s_ = hpa_autoscaler_restore(AS_AUTOSCALER(target), sizeof(hpa_autoscaler),     \
                                           (bytes), (n), 50000);                              \
    refused += s_ == (status);                                                                \
    unchanged += saves_as(AS_AUTOSCALER(target), 100000, before, before_len);                 \
    if (s_ != (status))                                                                       \
      fprintf(stderr, "%s:%d: restore returned %u\n", __FILE__, __LINE__, (unsigned)s_);     \
  } while (0)

  /* Every single-bit flip. */
  for (i = 0; i < len * 8; i++) {
    memcpy(copy, snap, len);
    copy[i / 8] ^= (uint8_t)(1u << (i % 8));
    REFUSED_WHOLE(copy, len, HPA_STATUS_INVALID_SNAPSHOT);
    CHECK_STATUS(hpa_autoscaler_restore(AS_AUTOSCALER(garbage), sizeof(hpa_autoscaler), copy, len, 0),
                 HPA_STATUS_INVALID_SNAPSHOT);
  }
  CHECK(refused == len * 8 && unchanged == len * 8);
  /* Every truncation, and one byte too many. */
  refused = unchanged = 0;
  memcpy(copy, snap, len);
  for (i = 0; i <= len + 1; i++) {
    if (i != len) REFUSED_WHOLE(copy, i, HPA_STATUS_INVALID_SNAPSHOT);
  }
  CHECK(refused == len + 1 && unchanged == len + 1);
  CHECK(memcmp(&garbage, &garbage_before, sizeof garbage) == 0);
  CHECK_STATUS(hpa_autoscaler_save(AS_AUTOSCALER(garbage), 0, copy, sizeof copy, &i),
               HPA_STATUS_UNINITIALIZED);

  /* What is wrong, from hpa_snapshot_check. */
  memcpy(copy, snap, len);
  copy[len / 2] ^= 0x10;
  CHECK_STATUS(hpa_snapshot_check(copy, len, 0, &g_error), HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STR(g_error.field, "snapshot");
  CHECK(strncmp(g_error.message, "snapshot: checksum mismatch (stored 0x", 38) == 0);
  CHECK_STATUS(hpa_snapshot_check(snap, len - 1, 0, &g_error), HPA_STATUS_INVALID_SNAPSHOT);
  sprintf(expected, "snapshot: the snapshot states %u bytes but has %u: truncated or padded",
          (unsigned)len, (unsigned)(len - 1));
  CHECK_STR(g_error.message, expected);

  /* Forged snapshots whose checksum matches: a newer format version, then broken messages. */
  refused = unchanged = 0;
  memcpy(copy, snap, len);
  copy[4] = 2;
  seal(copy, len);
  REFUSED_WHOLE(copy, len, HPA_STATUS_SNAPSHOT_VERSION);
  CHECK_STATUS(hpa_snapshot_check(copy, len, 0, &g_error), HPA_STATUS_SNAPSHOT_VERSION);
  CHECK_STR(g_error.message,
            "snapshot: snapshot format version 2 is not supported (this engine reads 1 to 1)");
  copy[4] = 0;
  seal(copy, len);
  REFUSED_WHOLE(copy, len, HPA_STATUS_SNAPSHOT_VERSION);
  /* The annex ends with the update-failure message, after its 2-byte length. */
  memcpy(copy, snap, len);
  CHECK(memcmp(copy + len - 4 - 14, "quota exceeded", 14) == 0 && copy[len - 4 - 16] == 14);
  copy[len - 4 - 14] = 0xFF;
  seal(copy, len);
  REFUSED_WHOLE(copy, len, HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STATUS(hpa_snapshot_check(copy, len, 0, &g_error), HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STR(g_error.message,
            "snapshot: snapshot field `annex.updateFailure`: not encoded as a save encodes it");
  memcpy(copy, snap, len);
  copy[len - 4 - 16] = 0;
  copy[len - 4 - 15] = 2; /* 512 bytes: longer than a message's array holds */
  seal(copy, len);
  REFUSED_WHOLE(copy, len, HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STATUS(hpa_snapshot_check(copy, len, 0, &g_error), HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STR(g_error.message, "snapshot: snapshot field `annex.updateFailure`: out of range");
  /* The annex's version byte, before the ScalingActive message and its length. */
  CHECK_STATUS(hpa_autoscaler_scaling_status(&g_autoscaler, &st), HPA_STATUS_OK);
  CHECK(st.conditions[1].type == HPA_CONDITION_TYPE_SCALING_ACTIVE);
  annex = 1 + 2 + strlen(st.conditions[1].message) + 2 + 14;
  memcpy(copy, snap, len);
  CHECK(copy[len - 4 - annex] == 1);
  copy[len - 4 - annex] = 2;
  seal(copy, len);
  REFUSED_WHOLE(copy, len, HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STATUS(hpa_snapshot_check(copy, len, 0, &g_error), HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STR(g_error.message, "snapshot: snapshot field `annex.version`: out of range");
  CHECK(refused == 5 && unchanged == 5);

  /* The snapshot itself restores over the other autoscaler, and saves as it was. */
  CHECK_STATUS(hpa_snapshot_check(snap, len, 20000, NULL), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_restore(AS_AUTOSCALER(target), sizeof(hpa_autoscaler), snap, len, 20000),
               HPA_STATUS_OK);
  CHECK(saves_as(AS_AUTOSCALER(target), 20000, snap, len));

  /* A snapshot without an annex (the Rust API's) restores with no messages: a new
   * autoscaler's, whose annex is the version and two empty messages. */
  init(&g_autoscaler);
  len = save(&g_autoscaler, 5, snap);
  CHECK(len == 29 && snap[len - 10] == 5 && snap[len - 9] == 1);
  memcpy(copy, snap, len - 10);
  copy[len - 10] = 0;
  seal(copy, len - 5);
  CHECK_STATUS(hpa_autoscaler_restore(AS_AUTOSCALER(target), sizeof(hpa_autoscaler), copy, len - 5, 5),
               HPA_STATUS_OK);
  CHECK(saves_as(AS_AUTOSCALER(target), 5, snap, len));
#undef REFUSED_WHOLE
}

void test_snapshot_arguments(void) {
  static raw_storage raw, raw_before;
  static uint8_t snap[HPA_SNAPSHOT_MAX_BYTES];
  /* An aligned buffer, and an autoscaler with bytes before it. */
  static union {
    size_t align;
    uint8_t bytes[HPA_SNAPSHOT_MAX_BYTES];
  } aligned;
  static struct {
    uint8_t before[64];
    hpa_autoscaler autoscaler;
  } framed;
  uint8_t *buf = aligned.bytes;
  hpa_metric m = cpu_metric(60);
  hpa_config c = config_with(&m, 1, 10);
  hpa_metric_values v;
  hpa_observation o;
  size_t len, written = 777, i;
  int untouched = 1;

  init(&g_autoscaler);
  make_pods(3, 500);
  v = samples_values(3);
  o = observation(10000, 3, 3, &v, 1);
  CHECK_STATUS(evaluate(&g_autoscaler, &c, &o), HPA_STATUS_OK);
  len = save(&g_autoscaler, 15000, snap);

  /* Saving: nothing is written on any refusal. */
  memset(buf, 0x5A, HPA_SNAPSHOT_MAX_BYTES);
  memset(&raw, 0, sizeof raw);
  CHECK_STATUS(hpa_autoscaler_save(NULL, 15000, buf, HPA_SNAPSHOT_MAX_BYTES, &written), HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_save((const hpa_autoscaler *)(const void *)(raw.bytes + 4), 15000, buf,
                                   HPA_SNAPSHOT_MAX_BYTES, &written),
               HPA_STATUS_MISALIGNED);
  CHECK_STATUS(hpa_autoscaler_save(AS_AUTOSCALER(raw), 15000, buf, HPA_SNAPSHOT_MAX_BYTES, &written),
               HPA_STATUS_UNINITIALIZED);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, NULL, HPA_SNAPSHOT_MAX_BYTES, &written),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, HPA_SNAPSHOT_MAX_BYTES, NULL),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, HPA_SNAPSHOT_MAX_BYTES,
                                   (size_t *)(void *)(buf + 1)),
               HPA_STATUS_MISALIGNED);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, len - 1, &written),
               HPA_STATUS_BUFFER_TOO_SMALL);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, 0, &written),
               HPA_STATUS_BUFFER_TOO_SMALL);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 9999, buf, HPA_SNAPSHOT_MAX_BYTES, &written),
               HPA_STATUS_TIME_WENT_BACKWARDS);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, HPA_SNAPSHOT_MAX_BYTES, (size_t *)(void *)buf),
               HPA_STATUS_OVERLAP);
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, HPA_SNAPSHOT_MAX_BYTES,
                                   (size_t *)(void *)&g_autoscaler),
               HPA_STATUS_OVERLAP);
  for (i = 0; i < HPA_SNAPSHOT_MAX_BYTES; i++) untouched &= buf[i] == 0x5A;
  CHECK(untouched && written == 777);
  memcpy(&framed.autoscaler, &g_autoscaler, sizeof g_autoscaler);
  CHECK_STATUS(hpa_autoscaler_save(&framed.autoscaler, 15000,
                                   (uint8_t *)(void *)&framed.autoscaler + 100, len, &written),
               HPA_STATUS_OVERLAP);
  CHECK_STATUS(hpa_autoscaler_save(&framed.autoscaler, 15000, framed.before + 56, len, &written),
               HPA_STATUS_OVERLAP);
  CHECK(written == 777 && saves_as(&framed.autoscaler, 15000, snap, len));
  CHECK_STATUS(hpa_autoscaler_save(&g_autoscaler, 15000, buf, len, &written), HPA_STATUS_OK);
  CHECK(written == len && memcmp(buf, snap, len) == 0 && buf[len] == 0x5A);

  /* Restoring: the storage's arguments, then the snapshot's. */
  CHECK_STATUS(hpa_autoscaler_restore(NULL, sizeof(hpa_autoscaler), snap, len, 0),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_restore((hpa_autoscaler *)(void *)(raw.bytes + 4),
                                      sizeof(hpa_autoscaler), snap, len, 0),
               HPA_STATUS_MISALIGNED);
  CHECK_STATUS(hpa_autoscaler_restore(&g_autoscaler, sizeof(hpa_autoscaler) - 1, snap, len, 0),
               HPA_STATUS_BUFFER_TOO_SMALL);
  CHECK_STATUS(hpa_autoscaler_restore(&g_autoscaler, sizeof(hpa_autoscaler), NULL, len, 0),
               HPA_STATUS_NULL_POINTER);
  CHECK_STATUS(hpa_autoscaler_restore(&g_autoscaler, sizeof(hpa_autoscaler), NULL, 0, 0),
               HPA_STATUS_INVALID_SNAPSHOT);
  /* Saved 5 s after the evaluation: restored at INT64_MIN, it would be before any instant. */
  CHECK_STATUS(hpa_autoscaler_restore(&g_autoscaler, sizeof(hpa_autoscaler), snap, len, INT64_MIN),
               HPA_STATUS_OUT_OF_RANGE);
  CHECK(saves_as(&g_autoscaler, 15000, snap, len));
  CHECK_STATUS(hpa_snapshot_check(snap, len, INT64_MIN, &g_error), HPA_STATUS_OUT_OF_RANGE);
  CHECK_STR(g_error.field, "now_ms");
  CHECK_STATUS(hpa_snapshot_check(NULL, 0, 0, &g_error), HPA_STATUS_INVALID_SNAPSHOT);
  CHECK_STR(g_error.message, "snapshot: 0 bytes are too few for a snapshot");
  CHECK_STATUS(hpa_snapshot_check(NULL, 3, 0, &g_error), HPA_STATUS_NULL_POINTER);
  CHECK_STR(g_error.message, "snapshot: is NULL but its length is 3");
  memset(&g_error, 0x5A, sizeof g_error);
  CHECK_STATUS(hpa_snapshot_check(snap, len, 0, &g_error), HPA_STATUS_OK);
  CHECK(g_error.status == 0x5A5A5A5Au);
  /* A snapshot inside the storage it would replace. */
  memset(&raw, 0xA5, sizeof raw);
  memcpy(raw.bytes + 64, snap, len);
  memcpy(&raw_before, &raw, sizeof raw);
  CHECK_STATUS(hpa_autoscaler_restore(AS_AUTOSCALER(raw), sizeof(hpa_autoscaler), raw.bytes + 64, len, 0),
               HPA_STATUS_OVERLAP);
  CHECK(memcmp(&raw_before, &raw, sizeof raw) == 0);

  /* The clock rule: restored at 1000, the evaluation saved 5 s before the save was at -4000. */
  CHECK_STATUS(hpa_autoscaler_restore(AS_AUTOSCALER(raw), sizeof(hpa_autoscaler), snap, len, 1000),
               HPA_STATUS_OK);
  o.now_ms = -4001;
  CHECK_STATUS(evaluate(AS_AUTOSCALER(raw), &c, &o), HPA_STATUS_TIME_WENT_BACKWARDS);
  o.now_ms = -4000;
  CHECK_STATUS(evaluate(AS_AUTOSCALER(raw), &c, &o), HPA_STATUS_OK);
  CHECK_STATUS(hpa_autoscaler_save(AS_AUTOSCALER(raw), -4001, buf, HPA_SNAPSHOT_MAX_BYTES, &written),
               HPA_STATUS_TIME_WENT_BACKWARDS);
}
