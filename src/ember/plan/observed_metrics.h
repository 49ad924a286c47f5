// Spark's rules for observed metrics (Dataset.observe, the CollectMetrics node), as its
// CheckAnalysis applies them: what a metric may be, and when two observations may share a name.
#pragma once

#include <arrow/status.h>

#include "ember/plan/logical_plan.h"

namespace ember::plan {

/// Spark's checkMetric for one metric: `named` as resolved (an alias or an attribute), `original`
/// as the user wrote it (for the message, which shows the user's expression). A metric is an
/// aggregate of the rows, so every column must sit inside an aggregate function, and the
/// aggregates may not nest or be DISTINCT: INVALID_OBSERVED_METRICS.* otherwise.
arrow::Status CheckObservedMetric(const Expr& named, const Expr& original);

/// DUPLICATED_METRICS_NAME when two observations in `plan` share a name but not the observing
/// DataFrame (Spark 4.0.1 compares dataframeIds, whatever the metrics): one DataFrame observed
/// twice, or joined or unioned with itself, is fine.
arrow::Status CheckObservationNames(const LogicalPlan& plan);

}  // namespace ember::plan
