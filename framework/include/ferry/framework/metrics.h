#pragma once

// Ferry's metrics: families of counters, gauges and histograms registered in a MetricsRegistry
// (the process-wide one is Metrics()), updated on the hot path through cells the caller keeps,
// and rendered in Prometheus' text format for /metrics. docs/metrics.md has the names Ferry
// exports and what an update costs.

#include "ferry/framework/metrics/callback_family.h"
#include "ferry/framework/metrics/counter.h"
#include "ferry/framework/metrics/family.h"
#include "ferry/framework/metrics/gauge.h"
#include "ferry/framework/metrics/histogram.h"
#include "ferry/framework/metrics/process_metrics.h"
#include "ferry/framework/metrics/registry.h"
#include "ferry/framework/metrics/snapshot.h"
#include "ferry/framework/metrics/text_format.h"
#include "ferry/framework/metrics/up_down_counter.h"
