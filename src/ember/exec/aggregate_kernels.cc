// Spark's aggregates that arrow lacks, as arrow aggregate functions (grouped and not), so that
// Acero's aggregate node runs them like its own. A call's constant arguments (percentages, a
// delimiter) come as columns beside its values, so that the types say all a kernel needs. Each
// keeps its group's rows in input order and computes the result from them at the end, with
// Spark's arithmetic step by step where the bits of a double depend on it (the moments of corr,
// covar_*, regr_*).
//
//   [hash_]ember_max_by, ember_min_by (struct<value, ordering>) -> value
//   [hash_]ember_corr, _covar_pop, _covar_samp, _regr_sxx, _regr_syy, _regr_sxy, _regr_slope,
//       _regr_intercept, _regr_r2 (struct<double, double>: the call's two arguments) -> double
//   [hash_]ember_bit_and, _bit_or, _bit_xor (integer) -> the same integer type
//   [hash_]ember_percentile (struct<double, frequency, percentages>) -> double or list<double>
//   [hash_]ember_approx_percentile (struct<value, percentages, accuracy>) -> value or list<value>
//   [hash_]ember_mode (value) -> value
//   [hash_]ember_string_agg (struct<text, delimiter>) -> text
#include <arrow/array.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_nested.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/exec/kernels.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

using ArrayPtr = std::shared_ptr<arrow::Array>;
using Groups = std::vector<std::vector<int64_t>>;  // each group's rows, in input order

// What an aggregate computes from all its groups' rows: one result per group.
using Reduce = std::function<Result<ArrayPtr>(const ArrayPtr& values, const Groups& groups,
                                              const std::shared_ptr<arrow::DataType>& out_type)>;

// The rows of every group: the input batches (copied: a batch's buffers may not outlive it) and
// each row's group.
struct Rows : cp::KernelState {
  Reduce reduce;
  std::shared_ptr<arrow::DataType> in_type, out_type;
  arrow::ArrayVector chunks;
  std::vector<uint32_t> group_of;
  int64_t num_groups = 0;

  Result<ArrayPtr> Finish(arrow::MemoryPool* pool) const {
    ArrayPtr values;
    if (chunks.empty()) {
      ARROW_ASSIGN_OR_RAISE(values, arrow::MakeEmptyArray(in_type, pool));
    } else {
      ARROW_ASSIGN_OR_RAISE(values, arrow::Concatenate(chunks, pool));
    }
    Groups groups(static_cast<size_t>(num_groups));
    for (size_t row = 0; row < group_of.size(); ++row) {
      groups[group_of[row]].push_back(static_cast<int64_t>(row));
    }
    return reduce(values, groups, out_type);
  }
};

Rows& StateOf(cp::KernelContext* ctx) { return *static_cast<Rows*>(ctx->state()); }

Status Append(Rows& state, const cp::ExecSpan& batch, const uint32_t* groups) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(values, arrow::Concatenate({values}));
  for (int64_t i = 0; i < values->length(); ++i) state.group_of.push_back(groups ? groups[i] : 0);
  state.chunks.push_back(std::move(values));
  return Status::OK();
}

void MergeRows(Rows& into, Rows&& from, const uint32_t* mapping) {
  for (uint32_t g : from.group_of) into.group_of.push_back(mapping ? mapping[g] : 0);
  for (auto& chunk : from.chunks) into.chunks.push_back(std::move(chunk));
}

// --- the reductions ---------------------------------------------------------------------------

// Each value's place in the ascending order of all values, equal values equal (NaN the
// largest, as in Spark): a comparison of any orderable type as one of integers.
Result<std::vector<uint64_t>> DenseRanks(const ArrayPtr& values) {
  cp::RankOptions options(cp::SortOrder::Ascending, cp::NullPlacement::AtEnd,
                          cp::RankOptions::Dense);
  ARROW_ASSIGN_OR_RAISE(auto ranked, cp::CallFunction("rank", {values}, &options));
  const auto& ranks = static_cast<const arrow::UInt64Array&>(*ranked.make_array());
  return std::vector<uint64_t>(ranks.raw_values(), ranks.raw_values() + ranks.length());
}

// The values at `rows`, NULL where a row is -1.
Result<ArrayPtr> Pick(const ArrayPtr& values, const std::vector<int64_t>& rows) {
  arrow::Int64Builder indices;
  for (int64_t row : rows) {
    ARROW_RETURN_NOT_OK(row < 0 ? indices.AppendNull() : indices.Append(row));
  }
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(values, index_array));
  return taken.make_array();
}

// max_by / min_by: the value of the row of the largest (smallest) non-NULL ordering; of equal
// ones the last, as Spark's buffer takes a row whose ordering is not worse than its own.
Reduce ExtremumBy(bool largest) {
  return [largest](const ArrayPtr& values, const Groups& groups,
                   const std::shared_ptr<arrow::DataType>&) -> Result<ArrayPtr> {
    const auto& pairs = static_cast<const arrow::StructArray&>(*values);
    ARROW_ASSIGN_OR_RAISE(auto ordering, pairs.GetFlattenedField(1));
    ARROW_ASSIGN_OR_RAISE(auto ranks, DenseRanks(ordering));
    std::vector<int64_t> picked;
    for (const auto& rows : groups) {
      int64_t best = -1;
      for (int64_t row : rows) {
        if (ordering->IsNull(row)) continue;
        auto r = ranks[static_cast<size_t>(row)], b = best < 0 ? 0 : ranks[static_cast<size_t>(best)];
        if (best < 0 || (largest ? r >= b : r <= b)) best = row;
      }
      picked.push_back(best);
    }
    ARROW_ASSIGN_OR_RAISE(auto value, pairs.GetFlattenedField(0));
    return Pick(value, picked);
  };
}

// mode: the most frequent non-NULL value; the smallest of equally frequent ones.
Result<ArrayPtr> Mode(const ArrayPtr& values, const Groups& groups,
                      const std::shared_ptr<arrow::DataType>&) {
  ARROW_ASSIGN_OR_RAISE(auto ranks, DenseRanks(values));
  std::vector<int64_t> picked;
  std::vector<int64_t> counts;
  for (const auto& rows : groups) {
    counts.clear();
    int64_t best = -1, best_count = 0;
    for (int64_t row : rows) {
      if (values->IsNull(row)) continue;
      auto rank = static_cast<size_t>(ranks[static_cast<size_t>(row)]);
      if (counts.size() <= rank) counts.resize(rank + 1, 0);
      int64_t count = ++counts[rank];
      if (count > best_count ||
          (count == best_count && rank < ranks[static_cast<size_t>(best)])) {
        best = row;
        best_count = count;
      }
    }
    picked.push_back(best);
  }
  return Pick(values, picked);
}

// A division as Spark's under ANSI: by zero is DIVIDE_BY_ZERO, for doubles too.
Result<double> Divide(double a, double b) {
  if (b == 0) {
    return UserError(ErrorKind::kArithmetic, "DIVIDE_BY_ZERO",
                     "Division by zero. Use `try_divide` to tolerate divisor being 0 and return "
                     "NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to "
                     "bypass this error.",
                     "22012");
  }
  return a / b;
}

// Spark's buffer of corr and covariance (Corr.scala, Covariance.scala): its update per pair, then
// the final aggregation's merge of that buffer into an empty one, operation by operation.
struct CoMoments {
  double n = 0, x_avg = 0, y_avg = 0, ck = 0, x_mk = 0, y_mk = 0;

  void Add(double x, double y) {
    double new_n = n + 1.0;
    double dx = x - x_avg, dy = y - y_avg;
    double dx_n = dx / new_n, dy_n = dy / new_n;
    x_avg = x_avg + dx_n;
    y_avg = y_avg + dy_n;
    ck = ck + dx * (y - y_avg);
    x_mk = x_mk + dx * (x - x_avg);
    y_mk = y_mk + dy * (y - y_avg);
    n = new_n;
  }
  CoMoments Merged() const {
    const double n1 = 0, n2 = n;
    CoMoments m;
    m.n = n1 + n2;
    double dx = x_avg - 0.0, dy = y_avg - 0.0;
    double dx_n = m.n == 0.0 ? 0.0 : dx / m.n, dy_n = m.n == 0.0 ? 0.0 : dy / m.n;
    m.x_avg = 0.0 + dx_n * n2;
    m.y_avg = 0.0 + dy_n * n2;
    m.ck = 0.0 + ck + dx * dy_n * n1 * n2;
    m.x_mk = 0.0 + x_mk + dx * dx_n * n1 * n2;
    m.y_mk = 0.0 + y_mk + dy * dy_n * n1 * n2;
    return m;
  }
};

// Spark's buffer of a second central moment (CentralMomentAgg.scala), likewise.
struct Moment {
  double n = 0, avg = 0, m2 = 0;

  void Add(double x) {
    double new_n = n + 1.0;
    double delta = x - avg, delta_n = delta / new_n;
    avg = avg + delta_n;
    m2 = m2 + delta * (delta - delta_n);
    n = new_n;
  }
  Moment Merged() const {
    const double n1 = 0, n2 = n;
    Moment m;
    m.n = n1 + n2;
    double delta = avg - 0.0, delta_n = m.n == 0.0 ? 0.0 : delta / m.n;
    m.avg = 0.0 + delta_n * n2;
    m.m2 = 0.0 + m2 + delta * delta_n * n1 * n2;
    return m;
  }
};

enum class Statistic {
  kCorr, kCovarPop, kCovarSamp, kRegrSxx, kRegrSyy, kRegrSxy, kRegrSlope, kRegrIntercept, kRegrR2
};

// The statistic of one group's pairs (a, b): the call's first and second arguments. The regr_
// functions take (y, x). NULL: std::nullopt.
Result<std::optional<double>> PairStatistic(Statistic s, const arrow::DoubleArray& a,
                                            const arrow::DoubleArray& b,
                                            const std::vector<int64_t>& rows) {
  CoMoments pairs;     // over the rows where both are non-NULL
  CoMoments reversed;  // the same as (b, a): regr_slope's CovPopulation(x, y)
  Moment of_pairs_a, of_pairs_b;
  for (int64_t row : rows) {
    if (a.IsNull(row) || b.IsNull(row)) continue;
    pairs.Add(a.Value(row), b.Value(row));
    reversed.Add(b.Value(row), a.Value(row));
    of_pairs_a.Add(a.Value(row));
    of_pairs_b.Add(b.Value(row));
  }
  const CoMoments m = pairs.Merged();
  using Out = std::optional<double>;
  switch (s) {
    case Statistic::kCorr: {
      if (m.n == 0.0 || m.n == 1.0) return Out();
      ARROW_ASSIGN_OR_RAISE(double r, Divide(m.ck, std::sqrt(m.x_mk * m.y_mk)));
      return Out(r);
    }
    case Statistic::kCovarPop:
      if (m.n == 0.0) return Out();
      return Out(m.ck / m.n);
    case Statistic::kCovarSamp:
      if (m.n == 0.0 || m.n == 1.0) return Out();
      return Out(m.ck / (m.n - 1.0));
    case Statistic::kRegrSxy:
      if (m.n == 0.0) return Out();
      return Out(m.ck);
    case Statistic::kRegrSxx:
    case Statistic::kRegrSyy: {
      const Moment v = (s == Statistic::kRegrSxx ? of_pairs_b : of_pairs_a).Merged();
      if (v.n == 0.0) return Out();
      return Out(v.m2);
    }
    case Statistic::kRegrR2: {
      // PearsonCorrelation(y, x): its "x" is y.
      if (m.x_mk == 0.0) return Out();
      if (m.y_mk == 0.0) return Out(1.0);
      ARROW_ASSIGN_OR_RAISE(double r, Divide(m.ck, std::sqrt(m.x_mk * m.y_mk)));
      return Out(r * r);
    }
    case Statistic::kRegrSlope:
    case Statistic::kRegrIntercept: {
      const CoMoments c = reversed.Merged();
      const Moment v = of_pairs_b.Merged();  // VariancePop(x) of the pairs
      if (v.m2 == 0.0) return Out();
      double slope = c.ck / v.m2;
      if (s == Statistic::kRegrSlope) return Out(slope);
      return Out(c.y_avg - slope * c.x_avg);
    }
  }
  return Out();
}

Reduce PairReduce(Statistic s) {
  return [s](const ArrayPtr& values, const Groups& groups,
             const std::shared_ptr<arrow::DataType>&) -> Result<ArrayPtr> {
    const auto& pairs = static_cast<const arrow::StructArray&>(*values);
    ARROW_ASSIGN_OR_RAISE(auto a, pairs.GetFlattenedField(0));
    ARROW_ASSIGN_OR_RAISE(auto b, pairs.GetFlattenedField(1));
    arrow::DoubleBuilder out;
    for (const auto& rows : groups) {
      ARROW_ASSIGN_OR_RAISE(auto value,
                            PairStatistic(s, static_cast<const arrow::DoubleArray&>(*a),
                                          static_cast<const arrow::DoubleArray&>(*b), rows));
      ARROW_RETURN_NOT_OK(value ? out.Append(*value) : out.AppendNull());
    }
    return out.Finish();
  };
}

// bit_and / bit_or / bit_xor of the non-NULL values, NULL for none; in 64 bits, then narrowed
// back to the input's type (the low bits do not depend on the width).
Reduce BitReduce(char op) {
  return [op](const ArrayPtr& values, const Groups& groups,
              const std::shared_ptr<arrow::DataType>& out_type) -> Result<ArrayPtr> {
    ARROW_ASSIGN_OR_RAISE(auto wide, cp::Cast(*values, arrow::int64()));
    const auto& ints = static_cast<const arrow::Int64Array&>(*wide);
    arrow::Int64Builder out;
    for (const auto& rows : groups) {
      bool any = false;
      int64_t acc = op == '&' ? -1 : 0;
      for (int64_t row : rows) {
        if (ints.IsNull(row)) continue;
        any = true;
        int64_t v = ints.Value(row);
        acc = op == '&' ? (acc & v) : op == '|' ? (acc | v) : (acc ^ v);
      }
      ARROW_RETURN_NOT_OK(any ? out.Append(acc) : out.AppendNull());
    }
    ARROW_ASSIGN_OR_RAISE(auto result, out.Finish());
    return cp::Cast(*result, out_type, cp::CastOptions::Unsafe());
  };
}

// Spark's ordering of doubles: NaN the largest, -0.0 equal to 0.0.
bool DoubleLess(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

bool SameKey(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// percentile (PercentileBase.getPercentile): the position maxPosition * p among the values
// counted by frequency, interpolated linearly between its neighbours.
double PercentileOf(const std::vector<std::pair<double, int64_t>>& sorted,
                    const std::vector<int64_t>& cumulative, double percentage) {
  const double position = static_cast<double>(cumulative.back() - 1) * percentage;
  const auto lower = static_cast<int64_t>(std::floor(position));
  const auto higher = static_cast<int64_t>(std::ceil(position));
  auto at = [&](int64_t pos) {  // the first entry whose cumulative count exceeds pos
    size_t i = static_cast<size_t>(
        std::lower_bound(cumulative.begin(), cumulative.end(), pos + 1) - cumulative.begin());
    return sorted[i].first;
  };
  double low = at(lower);
  if (higher == lower) return low;
  double high = at(higher);
  if (SameKey(low, high)) return low;
  return (static_cast<double>(higher) - position) * low +
         (position - static_cast<double>(lower)) * high;
}

// The percentages of a group: its first row's (a constant of the call, as a column).
Result<std::vector<double>> Percentages(const arrow::Array& column, int64_t row) {
  if (column.type_id() == arrow::Type::DOUBLE) {
    return std::vector<double>{static_cast<const arrow::DoubleArray&>(column).Value(row)};
  }
  const auto& lists = static_cast<const arrow::ListArray&>(column);
  ARROW_ASSIGN_OR_RAISE(auto items, cp::Cast(*lists.value_slice(row), arrow::float64()));
  const auto& doubles = static_cast<const arrow::DoubleArray&>(*items);
  return std::vector<double>(doubles.raw_values(), doubles.raw_values() + doubles.length());
}

// percentile: struct<value double, frequency int64, percentages double | list<double>>.
Result<ArrayPtr> PercentileReduce(const ArrayPtr& values, const Groups& groups,
                                  const std::shared_ptr<arrow::DataType>& out_type) {
  const auto& parts = static_cast<const arrow::StructArray&>(*values);
  ARROW_ASSIGN_OR_RAISE(auto numbers, parts.GetFlattenedField(0));
  ARROW_ASSIGN_OR_RAISE(auto frequencies, parts.GetFlattenedField(1));
  ARROW_ASSIGN_OR_RAISE(auto percentages, parts.GetFlattenedField(2));
  const auto& v = static_cast<const arrow::DoubleArray&>(*numbers);
  const auto& f = static_cast<const arrow::Int64Array&>(*frequencies);
  const bool many = out_type->id() == arrow::Type::LIST;
  arrow::DoubleBuilder single;
  arrow::ListBuilder list(arrow::default_memory_pool(), std::make_shared<arrow::DoubleBuilder>(),
                          many ? out_type : arrow::list(arrow::float64()));
  auto& items = static_cast<arrow::DoubleBuilder&>(*list.value_builder());
  std::vector<std::pair<double, int64_t>> sorted;
  std::vector<int64_t> cumulative;
  for (const auto& rows : groups) {
    sorted.clear();
    cumulative.clear();
    for (int64_t row : rows) {
      if (v.IsNull(row) || f.IsNull(row)) continue;
      int64_t count = f.Value(row);
      if (count < 0) {
        return UserError(ErrorKind::kRuntime, "NEGATIVE_VALUES_IN_FREQUENCY_EXPRESSION",
                         "Found the negative value in the frequency expression: " +
                             std::to_string(count) + ", but expected a positive integral value.",
                         "22003");
      }
      if (count > 0) sorted.emplace_back(v.Value(row), count);
    }
    if (sorted.empty()) {
      ARROW_RETURN_NOT_OK(many ? list.AppendNull() : single.AppendNull());
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto qs, Percentages(*percentages, rows[0]));
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return DoubleLess(a.first, b.first); });
    int64_t total = 0;
    for (const auto& entry : sorted) cumulative.push_back(total += entry.second);
    if (!many) {
      ARROW_RETURN_NOT_OK(single.Append(PercentileOf(sorted, cumulative, qs[0])));
      continue;
    }
    ARROW_RETURN_NOT_OK(list.Append());
    for (double q : qs) ARROW_RETURN_NOT_OK(items.Append(PercentileOf(sorted, cumulative, q)));
  }
  if (many) return list.Finish();
  return single.Finish();
}

// percentile_approx: struct<value, percentages double | list<double>, accuracy int64>. Spark's
// Greenwald-Khanna summary (QuantileSummaries.query) holds every value while a group has fewer
// than accuracy / 2 of them, and then answers the value of rank ceil(p * n); the smallest for
// p <= 1 / accuracy, the largest for p >= 1 - 1 / accuracy. Ember always answers so: exact,
// where Spark's summary of more values is approximate.
Result<ArrayPtr> ApproxPercentileReduce(const ArrayPtr& values, const Groups& groups,
                                        const std::shared_ptr<arrow::DataType>& out_type) {
  const auto& parts = static_cast<const arrow::StructArray&>(*values);
  ARROW_ASSIGN_OR_RAISE(auto items, parts.GetFlattenedField(0));
  ARROW_ASSIGN_OR_RAISE(auto percentages, parts.GetFlattenedField(1));
  ARROW_ASSIGN_OR_RAISE(auto accuracies, parts.GetFlattenedField(2));
  const auto& accuracy = static_cast<const arrow::Int64Array&>(*accuracies);
  ARROW_ASSIGN_OR_RAISE(auto ranks, DenseRanks(items));
  const bool many = out_type->id() == arrow::Type::LIST;
  std::vector<int64_t> picked, offsets{0};
  std::vector<int64_t> sorted;
  for (const auto& rows : groups) {
    sorted.clear();
    for (int64_t row : rows) {
      if (items->IsValid(row)) sorted.push_back(row);
    }
    std::stable_sort(sorted.begin(), sorted.end(), [&](int64_t a, int64_t b) {
      return ranks[static_cast<size_t>(a)] < ranks[static_cast<size_t>(b)];
    });
    const auto n = static_cast<int64_t>(sorted.size());
    if (n == 0) {
      if (!many) picked.push_back(-1);
      offsets.push_back(static_cast<int64_t>(picked.size()));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto qs, Percentages(*percentages, rows[0]));
    const double relative_error = 1.0 / static_cast<double>(accuracy.Value(rows[0]));
    for (double q : qs) {
      int64_t i = n - 1;
      if (q <= relative_error) {
        i = 0;
      } else if (q < 1 - relative_error) {
        i = std::min(n - 1, static_cast<int64_t>(std::ceil(q * static_cast<double>(n))) - 1);
      }
      picked.push_back(sorted[static_cast<size_t>(i)]);
    }
    offsets.push_back(static_cast<int64_t>(picked.size()));
  }
  ARROW_ASSIGN_OR_RAISE(auto chosen, Pick(items, picked));
  if (!many) return chosen;
  // One list per group; a NULL offset makes a group without values a NULL list.
  arrow::Int32Builder list_offsets;
  for (size_t g = 0; g < groups.size(); ++g) {
    ARROW_RETURN_NOT_OK(offsets[g + 1] > offsets[g]
                            ? list_offsets.Append(static_cast<int32_t>(offsets[g]))
                            : list_offsets.AppendNull());
  }
  ARROW_RETURN_NOT_OK(list_offsets.Append(static_cast<int32_t>(offsets.back())));
  ARROW_ASSIGN_OR_RAISE(auto offset_array, list_offsets.Finish());
  ARROW_ASSIGN_OR_RAISE(auto lists, arrow::ListArray::FromArrays(out_type, *offset_array, *chosen));
  return lists;
}

// string_agg / listagg: the non-NULL values joined by the delimiter (NULL: none), NULL for none.
Result<ArrayPtr> StringAggReduce(const ArrayPtr& values, const Groups& groups,
                                 const std::shared_ptr<arrow::DataType>& out_type) {
  const auto& pairs = static_cast<const arrow::StructArray&>(*values);
  ARROW_ASSIGN_OR_RAISE(auto texts, pairs.GetFlattenedField(0));
  ARROW_ASSIGN_OR_RAISE(auto delimiters, pairs.GetFlattenedField(1));
  ARROW_ASSIGN_OR_RAISE(texts, cp::Cast(*texts, arrow::binary()));
  ARROW_ASSIGN_OR_RAISE(delimiters, cp::Cast(*delimiters, arrow::binary()));
  const auto& text = static_cast<const arrow::BinaryArray&>(*texts);
  const auto& delimiter = static_cast<const arrow::BinaryArray&>(*delimiters);
  arrow::BinaryBuilder out;
  std::string joined;
  for (const auto& rows : groups) {
    bool any = false;
    joined.clear();
    for (int64_t row : rows) {
      if (text.IsNull(row)) continue;
      if (any && delimiter.IsValid(row)) joined += delimiter.GetView(row);
      joined += text.GetView(row);
      any = true;
    }
    ARROW_RETURN_NOT_OK(any ? out.Append(joined) : out.AppendNull());
  }
  ARROW_ASSIGN_OR_RAISE(auto result, out.Finish());
  return cp::Cast(*result, out_type);
}

// --- registration -----------------------------------------------------------------------------

std::shared_ptr<arrow::DataType> InputType(const cp::KernelInitArgs& args) {
  return args.inputs[0].GetSharedPtr();
}

struct Spec {
  std::string name;
  Reduce reduce;
  // The result's type from the value's type.
  std::function<std::shared_ptr<arrow::DataType>(const std::shared_ptr<arrow::DataType>&)> result;
};

Result<std::unique_ptr<cp::KernelState>> InitRows(const Spec& spec,
                                                  const cp::KernelInitArgs& args) {
  auto state = std::make_unique<Rows>();
  state->reduce = spec.reduce;
  state->in_type = InputType(args);
  state->out_type = spec.result(state->in_type);
  return state;
}

Status AddSpec(cp::FunctionRegistry* registry, const Spec& spec) {
  auto resolve = [result = spec.result](cp::KernelContext*, const std::vector<arrow::TypeHolder>&
                                                                types) -> Result<arrow::TypeHolder> {
    return arrow::TypeHolder(result(types[0].GetSharedPtr()));
  };
  // Grouped.
  cp::HashAggregateKernel grouped(
      {cp::InputType::Any(), cp::InputType(arrow::Type::UINT32)}, cp::OutputType(resolve),
      [spec](cp::KernelContext*, const cp::KernelInitArgs& args) { return InitRows(spec, args); },
      [](cp::KernelContext* ctx, const cp::ExecSpan& batch) {
        return Append(StateOf(ctx), batch, batch[1].array.GetValues<uint32_t>(1));
      },
      [](cp::KernelContext* ctx, int64_t groups) {
        StateOf(ctx).num_groups = groups;
        return Status::OK();
      },
      [](cp::KernelContext* ctx, cp::KernelState&& other, const arrow::ArrayData& mapping) {
        MergeRows(StateOf(ctx), static_cast<Rows&&>(other), mapping.GetValues<uint32_t>(1));
        return Status::OK();
      },
      [](cp::KernelContext* ctx, arrow::Datum* out) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto result, StateOf(ctx).Finish(ctx->memory_pool()));
        *out = result;
        return Status::OK();
      },
      /*ordered=*/true);
  auto hash_fn = std::make_shared<cp::HashAggregateFunction>(
      "hash_" + spec.name, cp::Arity::Binary(), cp::FunctionDoc::Empty());
  ARROW_RETURN_NOT_OK(hash_fn->AddKernel(std::move(grouped)));
  ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(hash_fn)));
  // Not grouped: one group.
  cp::ScalarAggregateKernel one(
      {cp::InputType::Any()}, cp::OutputType(resolve),
      [spec](cp::KernelContext*, const cp::KernelInitArgs& args) -> Result<std::unique_ptr<cp::KernelState>> {
        ARROW_ASSIGN_OR_RAISE(auto state, InitRows(spec, args));
        static_cast<Rows&>(*state).num_groups = 1;
        return state;
      },
      [](cp::KernelContext* ctx, const cp::ExecSpan& batch) {
        return Append(StateOf(ctx), batch, nullptr);
      },
      [](cp::KernelContext*, cp::KernelState&& src, cp::KernelState* dst) {
        MergeRows(*static_cast<Rows*>(dst), static_cast<Rows&&>(src), nullptr);
        return Status::OK();
      },
      [](cp::KernelContext* ctx, arrow::Datum* out) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto result, StateOf(ctx).Finish(ctx->memory_pool()));
        ARROW_ASSIGN_OR_RAISE(auto value, result->GetScalar(0));
        *out = value;
        return Status::OK();
      },
      /*ordered=*/true);
  auto scalar_fn = std::make_shared<cp::ScalarAggregateFunction>(
      spec.name, cp::Arity::Unary(), cp::FunctionDoc::Empty());
  ARROW_RETURN_NOT_OK(scalar_fn->AddKernel(std::move(one)));
  return registry->AddFunction(std::move(scalar_fn));
}

std::shared_ptr<arrow::DataType> Same(const std::shared_ptr<arrow::DataType>& t) { return t; }
std::shared_ptr<arrow::DataType> Double(const std::shared_ptr<arrow::DataType>&) {
  return arrow::float64();
}
std::shared_ptr<arrow::DataType> FirstField(const std::shared_ptr<arrow::DataType>& t) {
  return t->field(0)->type();
}

}  // namespace

Status RegisterAggregateKernels(cp::FunctionRegistry* registry) {
  std::vector<Spec> specs = {
      {"ember_max_by", ExtremumBy(true), FirstField},
      {"ember_min_by", ExtremumBy(false), FirstField},
      {"ember_bit_and", BitReduce('&'), Same},
      {"ember_bit_or", BitReduce('|'), Same},
      {"ember_bit_xor", BitReduce('^'), Same},
      {"ember_mode", Mode, Same},
      {"ember_string_agg", StringAggReduce, FirstField},
      {"ember_percentile", PercentileReduce,
       [](const std::shared_ptr<arrow::DataType>& t) -> std::shared_ptr<arrow::DataType> {
         if (t->field(2)->type()->id() != arrow::Type::LIST) return arrow::float64();
         return arrow::list(arrow::field("element", arrow::float64(), false));
       }},
      {"ember_approx_percentile", ApproxPercentileReduce,
       [](const std::shared_ptr<arrow::DataType>& t) -> std::shared_ptr<arrow::DataType> {
         auto value = t->field(0)->type();
         if (t->field(1)->type()->id() != arrow::Type::LIST) return value;
         return arrow::list(arrow::field("element", value, false));
       }},
  };
  for (auto [name, statistic] :
       {std::pair{"corr", Statistic::kCorr}, {"covar_pop", Statistic::kCovarPop},
        {"covar_samp", Statistic::kCovarSamp}, {"regr_sxx", Statistic::kRegrSxx},
        {"regr_syy", Statistic::kRegrSyy}, {"regr_sxy", Statistic::kRegrSxy},
        {"regr_slope", Statistic::kRegrSlope}, {"regr_intercept", Statistic::kRegrIntercept},
        {"regr_r2", Statistic::kRegrR2}}) {
    specs.push_back({std::string("ember_") + name, PairReduce(statistic), Double});
  }
  for (const auto& spec : specs) ARROW_RETURN_NOT_OK(AddSpec(registry, spec));
  return Status::OK();
}

}  // namespace ember::exec
