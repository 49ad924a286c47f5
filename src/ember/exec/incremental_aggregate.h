// A streaming aggregation computed batch by batch, as Spark's partial/merge/final aggregation
// around the state store. Each step works on "buffer" tables: the grouping keys first (a struct
// key such as a window split into its fields, since Acero cannot group by structs), then each
// aggregate's partial values (avg keeps a sum and a count).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/plan/functions.h"
#include "ember/plan/logical_plan.h"

namespace arrow::acero {
struct Declaration;
}
namespace arrow::compute {
class FunctionOptions;
class Grouper;
}

namespace ember::exec {

/// A state partition's groups, kept from one batch's merge to the next: the state's rows are
/// its groups in order, so that a merge hashes the batch's keys only, not the state's again.
class GroupIndex {
 public:
  GroupIndex();
  ~GroupIndex();
  GroupIndex(GroupIndex&&) noexcept;
  GroupIndex& operator=(GroupIndex&&) noexcept;

 private:
  friend class IncrementalAggregate;
  std::unique_ptr<arrow::compute::Grouper> grouper_;
  std::weak_ptr<arrow::Table> rows_;  // the state whose groups the grouper holds, in order
};

class IncrementalAggregate {
 public:
  /// Fails with Spark's error for aggregates a stream cannot keep (DISTINCT). approx_count_distinct
  /// keeps its HyperLogLog++ sketch as the buffer (a binary column), so it survives restarts.
  static arrow::Result<IncrementalAggregate> Make(const plan::LogicalPlan& aggregate);

  /// Buffers of one batch: `input` holds the aggregate's child output, column by column.
  arrow::Result<std::shared_ptr<arrow::Table>> Partial(std::shared_ptr<arrow::Table> input,
                                                       const plan::EvalContext& ctx) const;
  /// Whether RowBuffers can stand for Partial: keys, no session window, and buffers whose merge
  /// kernel also takes one row's value (not a sketch).
  bool MergesRows() const;
  /// A buffer row per input row, ungrouped: for a batch of mostly distinct keys, where grouping
  /// it first would hash every key once more than the merge into the state does.
  arrow::Result<std::shared_ptr<arrow::Table>> RowBuffers(std::shared_ptr<arrow::Table> input,
                                                          const plan::EvalContext& ctx) const;
  /// Combines rows with equal keys; for first/last, earlier rows come first. With a session
  /// window, a key's overlapping sessions become one first.
  arrow::Result<std::shared_ptr<arrow::Table>> Merge(std::shared_ptr<arrow::Table> buffers) const;
  /// Merges a batch's buffers into a partition's state (not for session windows): every group
  /// afterwards, and the groups the batch touched. The batch may hold a group more than once
  /// (partials of several slices); its rows combine in order, after the state's. `index` holds
  /// the partition's groups from the previous merge; it is rebuilt when `state` is another.
  arrow::Result<std::pair<std::shared_ptr<arrow::Table>, std::shared_ptr<arrow::Table>>> MergeInto(
      std::shared_ptr<arrow::Table> state, std::shared_ptr<arrow::Table> fresh,
      GroupIndex& index) const;
  /// The aggregate's output rows from buffers.
  arrow::Result<std::shared_ptr<arrow::Table>> Finalize(std::shared_ptr<arrow::Table> buffers) const;

  const std::shared_ptr<arrow::Schema>& buffer_schema() const { return buffer_schema_; }
  int num_keys() const { return static_cast<int>(key_names_.size()); }
  /// The buffer column holding grouping `i`'s event time: the key itself, or its window's end.
  int EventTimeColumn(int grouping) const;
  /// Whether a grouping is a session window, whose bounds change as sessions merge.
  bool has_sessions() const { return session_grouping_ >= 0; }
  /// The key columns that identify a group whatever its session: all but the session's bounds.
  const std::vector<int>& group_columns() const { return group_columns_; }

 private:
  struct Buffer {
    std::string name;
    // Arrow's hash kernels (the ungrouped kernel drops "hash_") and their options.
    std::string partial;
    std::shared_ptr<arrow::compute::FunctionOptions> partial_options;
    std::string merge;
    std::shared_ptr<arrow::compute::FunctionOptions> merge_options;
    // A scalar function from the merged buffer to the aggregate's value (a sketch's estimate).
    std::string finalize = {};
  };
  IncrementalAggregate() = default;
  // The keys and each call's argument, named as Aggregate reads them; with `per_row`, each
  // buffer's value for one row instead of the argument.
  arrow::Result<arrow::acero::Declaration> Arguments(std::shared_ptr<arrow::Table> input,
                                                     const plan::EvalContext& ctx, bool per_row) const;
  // Each column cast to the buffer schema's type.
  arrow::Result<std::shared_ptr<arrow::Table>> ToBufferTypes(const arrow::Table& table) const;
  arrow::Result<std::shared_ptr<arrow::Table>> MergeSessions(std::shared_ptr<arrow::Table> rows) const;
  // With `marked`, the input's "__fresh" column (0 or 1) is kept per group as its maximum.
  arrow::Result<std::shared_ptr<arrow::Table>> Aggregate(const arrow::acero::Declaration& input,
                                                         bool partial, bool marked = false) const;

  const plan::LogicalPlan* node_ = nullptr;
  std::vector<std::string> key_names_;
  std::vector<std::vector<int>> grouping_columns_;  // per grouping: its key columns
  int session_grouping_ = -1;
  std::vector<int> group_columns_;
  std::vector<std::vector<Buffer>> buffers_;        // per aggregate call
  std::shared_ptr<arrow::Schema> buffer_schema_;
};

}  // namespace ember::exec
