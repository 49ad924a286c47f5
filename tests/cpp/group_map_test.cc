// Rows grouped for a user's function of groups (exec/group_map.h): which rows each group gets,
// in which order, and how two sides' groups meet in a cogroup. Expected groups are written out
// by hand from each test's rows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "ember/exec/group_map.h"

namespace ember::exec {
namespace {

// A table of `schema` from a JSON list of objects.
std::shared_ptr<arrow::Table> Table(const std::shared_ptr<arrow::Schema>& schema, const std::string& json) {
  auto structs = *arrow::json::ArrayFromJSONString(arrow::struct_(schema->fields()), json);
  auto batch = *arrow::RecordBatch::FromStructArray(structs);
  return *arrow::Table::FromRecordBatches(std::vector<std::shared_ptr<arrow::RecordBatch>>{batch});
}

std::vector<std::string> Values(const std::shared_ptr<arrow::Array>& array) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < array->length(); ++i) {
    out.push_back(array->IsNull(i) ? "null" : (*array->GetScalar(i))->ToString());
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(GroupRows, GroupsInTheOrderOfTheirFirstRowsWithNullAKey) {
  auto schema = arrow::schema({arrow::field("k", arrow::utf8()), arrow::field("v", arrow::int64())});
  auto table = Table(schema, R"([{"k": "b", "v": 1}, {"k": "a", "v": 2}, {"k": "b", "v": 3}, {"k": null, "v": 4},
                                   {"k": "a", "v": 5}])");
  auto grouped = *GroupRows({table, {0}, {1, 0}, {"v", "k"}});
  EXPECT_EQ(Values(grouped.groups->column(0)), (Strings{"b", "a", "null"}));
  EXPECT_EQ(Values(grouped.groups->GetColumnByName("offset")), (Strings{"0", "2", "4"}));
  EXPECT_EQ(Values(grouped.groups->GetColumnByName("length")), (Strings{"2", "2", "1"}));
  // A group's rows keep their order; the data columns come as asked, named as asked.
  EXPECT_EQ(grouped.rows->schema()->field_names(), (Strings{"v", "k"}));
  EXPECT_EQ(Values(grouped.rows->column(0)), (Strings{"1", "3", "2", "5", "4"}));
}

TEST(ApplyToGroups, CoGroupsMeetByKeyAndASideWithoutTheKeyHasNoRows) {
  auto left_schema = arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s", arrow::utf8())});
  auto right_schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("w", arrow::int32())});
  auto left = Table(left_schema, R"([{"id": 1, "s": "x"}, {"id": 2, "s": "y"}, {"id": 1, "s": "z"}])");
  auto right = Table(right_schema, R"([{"id": 3, "w": 30}, {"id": 2, "w": 20}, {"id": 2, "w": 21}])");
  GroupedRows seen;
  UserGroupFunction function;
  function.name = "f";
  function.output_schema = arrow::schema({arrow::field("n", arrow::int64())});
  function.call = [&](const GroupedRows& groups) -> arrow::Result<GroupedResult> {
    seen = groups;
    GroupedResult result;
    ARROW_ASSIGN_OR_RAISE(result.rows, arrow::RecordBatch::MakeEmpty(function.output_schema));
    return result;
  };
  ASSERT_TRUE(ApplyToGroups(function, {{left, {0}, {0, 1}, {"id", "s"}}, {right, {0}, {0, 1}, {"id", "w"}}}).ok());
  // Keys 1 and 2 of the left side, then the right side's 3; the key as the left side types it.
  EXPECT_EQ(Values(seen.groups->column(0)), (Strings{"1", "2", "3"}));
  EXPECT_EQ(Values(seen.groups->GetColumnByName("offset")), (Strings{"0", "2", "3"}));
  EXPECT_EQ(Values(seen.groups->GetColumnByName("length")), (Strings{"2", "1", "0"}));
  EXPECT_EQ(Values(seen.groups->GetColumnByName("other_offset")), (Strings{"3", "1", "0"}));
  EXPECT_EQ(Values(seen.groups->GetColumnByName("other_length")), (Strings{"0", "2", "1"}));
  // The right side's own key, where it has the key.
  auto other_key = seen.groups->GetColumnByName("other_key");
  EXPECT_EQ(other_key->type()->id(), arrow::Type::INT64);
  EXPECT_EQ(Values(other_key), (Strings{"null", "2", "3"}));
  EXPECT_EQ(Values(seen.rows->column(1)), (Strings{"x", "z", "y"}));
  EXPECT_EQ(Values(seen.other_rows->column(1)), (Strings{"30", "20", "21"}));
}

}  // namespace
}  // namespace ember::exec
