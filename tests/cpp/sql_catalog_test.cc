// The SQL catalog's contract (ICEBERG.md 4.2): a commit is a compare-and-swap on the table's
// metadata location, so a writer holding a stale base loses, whichever connection it uses; and
// the catalog URIs Spark and PyIceberg write name the SQLite file.
#include "ember/iceberg/sql_catalog.h"

#include <arrow/api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace ember::iceberg {
namespace {

namespace fs = std::filesystem;

class SqlCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ember_sql_catalog_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<SqlCatalog> Open(const std::string& name = "local") {
    SqlCatalogOptions options;
    options.uri = "jdbc:sqlite:" + (dir_ / "catalog.db").string();
    options.uri_option = "spark.sql.catalog.local.uri";
    options.warehouse = (dir_ / "wh").string();
    options.warehouse_option = "spark.sql.catalog.local.warehouse";
    auto catalog = SqlCatalog::Open(name, options);
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return *catalog;
  }

  static std::string FileName(const std::string& path) {
    return fs::path(path).filename().string();
  }

  fs::path dir_;
};

TEST_F(SqlCatalogTest, CommitIsACompareAndSwap) {
  auto writer = Open();
  auto other = Open();  // a second connection, as another process has
  ASSERT_TRUE(writer->CreateNamespace({"db"}, false).ok());
  auto schema = arrow::schema({arrow::field("id", arrow::int64())});
  ASSERT_TRUE(writer->CreateTable({"db", "t"}, *schema, {}, false).ok());

  auto base = writer->LoadTable({"db", "t"});
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_EQ(base->version, 0);
  EXPECT_EQ(FileName(base->metadata_path).substr(0, 6), "00000-");
  auto stale = other->LoadTable({"db", "t"});
  ASSERT_TRUE(stale.ok());

  TableMetadata first = base->metadata;
  first.properties["writer"] = "first";
  ASSERT_EQ(writer->Commit(*base, first).ValueOr(false), true);
  TableMetadata second = stale->metadata;
  second.properties["writer"] = "second";
  auto lost = other->Commit(*stale, second);
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_FALSE(*lost);
  // The losing attempt's metadata file is gone; the winner's is current, as both connections see.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "wh" / "db" / "t" / "metadata")) {
    files += entry.path().string().ends_with(".metadata.json");
  }
  EXPECT_EQ(files, 2);
  for (auto* catalog : {writer.get(), other.get()}) {
    auto current = catalog->LoadTable({"db", "t"});
    ASSERT_TRUE(current.ok());
    EXPECT_EQ(current->version, 1);
    EXPECT_EQ(current->metadata.properties.at("writer"), "first");
    ASSERT_EQ(current->metadata.metadata_log.size(), 1u);
    EXPECT_EQ(current->metadata.metadata_log[0].second, base->metadata_path);
  }
  // Retried on the fresh base, the second writer wins.
  auto fresh = other->LoadTable({"db", "t"});
  ASSERT_EQ(other->Commit(*fresh, second).ValueOr(false), true);
  EXPECT_EQ(FileName(writer->LoadTable({"db", "t"})->metadata_path).substr(0, 6), "00002-");
}

TEST_F(SqlCatalogTest, CreatingATableTwiceLosesAndCatalogsAreSeparate) {
  auto catalog = Open();
  auto other_catalog = Open("other");
  ASSERT_TRUE(catalog->CreateNamespace({"db"}, false).ok());
  auto schema = arrow::schema({arrow::field("id", arrow::int64())});
  auto metadata = NewTableMetadata(*schema, catalog->TableLocation({"db", "t"}).ValueOrDie(), {}).ValueOrDie();
  LoadedTable none;
  none.ident = {"db", "t"};
  EXPECT_EQ(catalog->Commit(none, metadata).ValueOr(false), true);
  EXPECT_EQ(catalog->Commit(none, metadata).ValueOr(true), false);
  EXPECT_EQ(catalog->ListTables({"db"}).ValueOr({}), std::vector<std::string>{"t"});
  // Rows are keyed by the catalog's name.
  EXPECT_EQ(other_catalog->TableExists({"db", "t"}).ValueOr(true), false);
  EXPECT_EQ(other_catalog->NamespaceExists({"db"}).ValueOr(true), false);
  EXPECT_EQ(catalog->TableLocation({"a", "b", "t"}).ValueOrDie(), (dir_ / "wh" / "a" / "b" / "t").string());
  // A nested namespace makes its parents exist.
  ASSERT_TRUE(catalog->CreateNamespace({"x", "y"}, false).ok());
  EXPECT_EQ(catalog->NamespaceExists({"x"}).ValueOr(false), true);
  EXPECT_EQ(catalog->NamespaceExists({"x", "y", "z"}).ValueOr(true), false);
  EXPECT_EQ(catalog->ListNamespaces({}).ValueOr({}), (std::vector<std::string>{"db", "x"}));
  EXPECT_EQ(catalog->ListNamespaces({"x"}).ValueOr({}), std::vector<std::string>{"y"});
}

TEST(SqliteUri, SparkAndPyIcebergForms) {
  const std::string option = "spark.sql.catalog.c.uri";
  EXPECT_EQ(SqliteFileFromUri("jdbc:sqlite:/data/c.db", option).ValueOr(""), "/data/c.db");
  EXPECT_EQ(SqliteFileFromUri("jdbc:sqlite:file:/data/c.db?mode=rw", option).ValueOr(""),
            "/data/c.db");
  EXPECT_EQ(SqliteFileFromUri("jdbc:sqlite:rel.db", option).ValueOr(""), "rel.db");
  EXPECT_EQ(SqliteFileFromUri("sqlite:////data/c.db", option).ValueOr(""), "/data/c.db");
  EXPECT_EQ(SqliteFileFromUri("sqlite:///rel.db", option).ValueOr(""), "rel.db");
  EXPECT_EQ(SqliteFileFromUri("sqlite+pysqlite:////data/c.db", option).ValueOr(""), "/data/c.db");
  EXPECT_EQ(SqliteFileFromUri("sqlite://", option).ValueOr(""), ":memory:");
  for (const auto& [uri, why] : std::vector<std::pair<std::string, std::string>>{
           {"jdbc:postgresql://h/db", "'jdbc:postgresql' is not SQLite"},
           {"postgresql+psycopg2://h/db", "'postgresql+psycopg2' is not SQLite"},
           {"sqlite://host/c.db", "names no host"},
           {"jdbc:sqlite:", "names no database file"},
           {"/data/c.db", "not a database URI"}}) {
    auto file = SqliteFileFromUri(uri, option);
    ASSERT_FALSE(file.ok()) << uri;
    EXPECT_NE(file.status().message().find("'" + uri + "' in " + option), std::string::npos)
        << file.status().message();
    EXPECT_NE(file.status().message().find(why), std::string::npos) << file.status().message();
  }
}

}  // namespace
}  // namespace ember::iceberg
