// Ember's Avro encoding and object container files. Expected bytes come from the Avro 1.11
// specification's examples and from IEEE 754, never from the code under test; files are also
// read back by avrocat (Debian avro-bin), an independent implementation, when it is installed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "ember/iceberg/avro.h"

namespace ember::iceberg::avro {
namespace {

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(static_cast<uint8_t>(c)));
    if (!out.empty()) out += " ";
    out += buf;
  }
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

std::shared_ptr<const Schema> Parse(const std::string& json) {
  auto schema = ParseSchema(json);
  EXPECT_TRUE(schema.ok()) << schema.status();
  return schema.ok() ? *schema : nullptr;
}

std::string Encode(const std::string& schema_json, const Datum& value) {
  auto schema = Parse(schema_json);
  if (schema == nullptr) return "";
  std::string out;
  auto st = EncodeDatum(*schema, value, &out);
  EXPECT_TRUE(st.ok()) << st;
  return Hex(out);
}

Datum Decode(const std::string& schema_json, std::string_view hex) {
  auto schema = Parse(schema_json);
  if (schema == nullptr) return {};
  auto value = DecodeDatum(*schema, Unhex(hex));
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *value : Datum();
}

// ---------------------------------------------------------------------------------------------
// Encodings from the specification

TEST(AvroEncodingTest, LongsAreZigZagVarints) {
  // The table in the spec's "Primitive Types" section, and its neighbours.
  EXPECT_EQ(Encode("\"long\"", int64_t{0}), "00");
  EXPECT_EQ(Encode("\"long\"", int64_t{-1}), "01");
  EXPECT_EQ(Encode("\"long\"", int64_t{1}), "02");
  EXPECT_EQ(Encode("\"long\"", int64_t{-2}), "03");
  EXPECT_EQ(Encode("\"long\"", int64_t{2}), "04");
  EXPECT_EQ(Encode("\"long\"", int64_t{-64}), "7f");
  EXPECT_EQ(Encode("\"long\"", int64_t{64}), "80 01");
  EXPECT_EQ(Encode("\"int\"", int32_t{-64}), "7f");
  EXPECT_EQ(Encode("\"int\"", int32_t{64}), "80 01");
  // Extremes: zig-zag maps them to 2^64-1 and 2^64-2, ten varint bytes.
  EXPECT_EQ(Encode("\"long\"", std::numeric_limits<int64_t>::min()),
            "ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(Encode("\"long\"", std::numeric_limits<int64_t>::max()),
            "fe ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(Encode("\"int\"", std::numeric_limits<int32_t>::min()), "ff ff ff ff 0f");
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{300}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    auto schema = Parse("\"long\"");
    std::string bytes;
    ASSERT_TRUE(EncodeDatum(*schema, v, &bytes).ok());
    EXPECT_EQ(DecodeDatum(*schema, bytes).ValueOrDie(), Datum(v));
  }
}

TEST(AvroEncodingTest, PrimitivesFromTheSpec) {
  EXPECT_EQ(Encode("\"string\"", "foo"), "06 66 6f 6f");
  EXPECT_EQ(Encode("\"bytes\"", Datum::Binary("\x01\x02")), "04 01 02");
  EXPECT_EQ(Encode("\"boolean\"", true), "01");
  EXPECT_EQ(Encode("\"boolean\"", false), "00");
  EXPECT_EQ(Encode("\"null\"", nullptr), "");
  // IEEE 754 little-endian: 1.0f is 0x3f800000, 1.0 is 0x3ff0000000000000.
  EXPECT_EQ(Encode("\"float\"", 1.0f), "00 00 80 3f");
  EXPECT_EQ(Encode("\"double\"", 1.0), "00 00 00 00 00 00 f0 3f");
  EXPECT_EQ(Encode("{\"type\":\"fixed\",\"name\":\"f\",\"size\":3}", Datum::Binary("abc")),
            "61 62 63");
  EXPECT_EQ(Encode("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"B\",\"C\"]}", "C"),
            "04");
}

TEST(AvroEncodingTest, ComplexTypesFromTheSpec) {
  // The spec's record example: {"a": 27, "b": "foo"} -> 36 06 66 6f 6f.
  const std::string record =
      R"({"type":"record","name":"test","fields":[{"name":"a","type":"long"},)"
      R"({"name":"b","type":"string"}]})";
  EXPECT_EQ(Encode(record, Record{{int64_t{27}, "foo"}}), "36 06 66 6f 6f");
  // The spec's array example: [3, 27] -> 04 06 36 00.
  EXPECT_EQ(Encode(R"({"type":"array","items":"long"})", Array{{int64_t{3}, int64_t{27}}}),
            "04 06 36 00");
  EXPECT_EQ(Encode(R"({"type":"array","items":"long"})", Array{}), "00");
  // The spec's union example: null -> 00, "a" -> 02 02 61.
  EXPECT_EQ(Encode(R"(["null","string"])", nullptr), "00");
  EXPECT_EQ(Encode(R"(["null","string"])", "a"), "02 02 61");
  // A map is blocks of key/value pairs: one pair "a" -> 1.
  EXPECT_EQ(Encode(R"({"type":"map","values":"long"})", Map{{{"a", int64_t{1}}}}),
            "02 02 61 02 00");
}

TEST(AvroEncodingTest, ReadsBlocksWithNegativeCounts) {
  // Count -2 (zig-zag 03) is followed by the block's size in bytes (2, zig-zag 04).
  EXPECT_EQ(Decode(R"({"type":"array","items":"long"})", "03 04 06 36 00"),
            Datum(Array{{int64_t{3}, int64_t{27}}}));
  // Two blocks, the second with a negative count.
  EXPECT_EQ(Decode(R"({"type":"array","items":"long"})", "02 06 01 02 36 00"),
            Datum(Array{{int64_t{3}, int64_t{27}}}));
  EXPECT_EQ(Decode(R"({"type":"map","values":"long"})", "01 06 02 61 02 00"),
            Datum(Map{{{"a", int64_t{1}}}}));
}

TEST(AvroEncodingTest, ChoosesTheUnionBranchByType) {
  const std::string schema = R"(["null","int","long","string"])";
  EXPECT_EQ(Encode(schema, int32_t{1}), "02 02");
  EXPECT_EQ(Encode(schema, int64_t{1}), "04 02");
  EXPECT_EQ(Encode(schema, "x"), "06 02 78");
  EXPECT_EQ(Decode(schema, "04 02"), Datum(int64_t{1}));
}

TEST(AvroEncodingTest, ValidationNamesTheFieldPath) {
  auto schema = Parse(R"({"type":"record","name":"outer","fields":[
      {"name":"id","type":"long"},
      {"name":"items","type":{"type":"array","items":{"type":"record","name":"inner","fields":[
          {"name":"bound","type":["null","bytes"]},
          {"name":"tag","type":{"type":"fixed","name":"tag4","size":4}}]}}},
      {"name":"props","type":{"type":"map","values":"int"}},
      {"name":"kind","type":{"type":"enum","name":"kind","symbols":["A","B"]}}]})");
  ASSERT_NE(schema, nullptr);
  auto item = [](Datum bound, Datum tag) { return Datum(Record{{bound, tag}}); };
  auto value = [&](Datum id, Datum bound, Datum tag, Datum prop, Datum kind) {
    return Datum(Record{{id, Array{{item(nullptr, Datum::Binary("abcd")), item(bound, tag)}},
                         Map{{{"k", prop}}}, kind}});
  };
  auto error = [&](const Datum& v) {
    std::string out;
    auto st = EncodeDatum(*schema, v, &out);
    EXPECT_FALSE(st.ok());
    EXPECT_TRUE(st.IsInvalid());
    return st.message();
  };
  std::string ok;
  ASSERT_TRUE(
      EncodeDatum(*schema,
                  value(int64_t{1}, Datum::Binary("x"), Datum::Binary("wxyz"), int32_t{5}, "B"),
                  &ok)
          .ok());
  EXPECT_NE(error(value(int32_t{1}, nullptr, Datum::Binary("wxyz"), int32_t{5}, "A"))
                .find("outer.id expects long but the value is int"),
            std::string::npos);
  EXPECT_NE(error(value(int64_t{1}, "text", Datum::Binary("wxyz"), int32_t{5}, "A"))
                .find("outer.items[1].bound expects union [null, bytes] but the value is string"),
            std::string::npos);
  EXPECT_NE(error(value(int64_t{1}, nullptr, Datum::Binary("xyz"), int32_t{5}, "A"))
                .find("outer.items[1].tag expects fixed tag4 of 4 bytes but the value has 3"),
            std::string::npos);
  EXPECT_NE(error(value(int64_t{1}, nullptr, Datum::Binary("wxyz"), int64_t{5}, "A"))
                .find("outer.props[\"k\"] expects int"),
            std::string::npos);
  EXPECT_NE(error(value(int64_t{1}, nullptr, Datum::Binary("wxyz"), int32_t{5}, "C"))
                .find("outer.kind expects a symbol of enum kind but the value is 'C'"),
            std::string::npos);
  EXPECT_NE(error(Record{{int64_t{1}}}).find("outer expects record outer with 4 fields"),
            std::string::npos);
  EXPECT_NE(error(nullptr).find("outer expects record outer but the value is null"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Schemas

TEST(AvroSchemaTest, KeepsIdsLogicalTypesDefaultsAndAttributes) {
  auto schema = Parse(R"({"type":"record","name":"r","namespace":"ns","doc":"d","fields":[
      {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},
       "field-id":1,"doc":"when"},
      {"name":"ids","type":["null",{"type":"array","items":"int","element-id":3}],
       "default":null,"field-id":"2"},
      {"name":"m","type":{"type":"map","values":"string","key-id":5,"value-id":6},"field-id":4},
      {"name":"d","type":{"type":"fixed","name":"dec","size":5,"logicalType":"decimal",
       "precision":10,"scale":2},"field-id":7}]})");
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->type(), Schema::Type::kRecord);
  EXPECT_EQ(schema->name(), "ns.r");
  EXPECT_EQ(schema->attributes().at("doc"), "\"d\"");
  const auto& f = schema->fields();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].field_id, 1);
  EXPECT_EQ(f[0].attributes.at("doc"), "\"when\"");
  EXPECT_EQ(f[0].schema->logical_type(), "timestamp-micros");
  EXPECT_EQ(f[0].schema->attributes().at("adjust-to-utc"), "true");
  EXPECT_EQ(f[1].field_id, 2);  // written as a string, as Java also accepts
  EXPECT_EQ(f[1].default_json, "null");
  EXPECT_TRUE(f[1].schema->IsNullable());
  EXPECT_EQ(f[1].schema->NonNull().type(), Schema::Type::kArray);
  EXPECT_EQ(f[1].schema->NonNull().element_id(), 3);
  EXPECT_EQ(f[2].schema->key_id(), 5);
  EXPECT_EQ(f[2].schema->value_id(), 6);
  EXPECT_EQ(f[3].schema->name(), "ns.dec");
  EXPECT_EQ(f[3].schema->fixed_size(), 5);
  EXPECT_EQ(f[3].schema->logical_type(), "decimal");
  EXPECT_EQ(f[3].schema->attributes().at("scale"), "2");
  EXPECT_EQ(schema->FieldIndexById(7), 3);
  EXPECT_EQ(schema->FieldIndexById(99), -1);
  EXPECT_EQ(schema->FieldIndex("m"), 2);
}

TEST(AvroSchemaTest, ResolvesNamedTypesAndRecursion) {
  // A linked list: the record refers to itself through a nullable field.
  const std::string list =
      R"({"type":"record","name":"node","namespace":"a.b","fields":[
          {"name":"value","type":"long"},
          {"name":"next","type":["null","node"]},
          {"name":"tags","type":{"type":"fixed","name":"c.tag","size":2}},
          {"name":"again","type":"c.tag"},
          {"name":"self","type":{"type":"array","items":"a.b.node"}}]})";
  auto schema = Parse(list);
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(&schema->fields()[1].schema->NonNull(), schema.get());
  EXPECT_EQ(schema->fields()[2].schema, schema->fields()[3].schema);
  EXPECT_EQ(schema->fields()[3].schema->name(), "c.tag");
  Datum tail = Record{{int64_t{2}, nullptr, Datum::Binary("yy"), Datum::Binary("zz"), Array{}}};
  Datum head = Record{{int64_t{1}, tail, Datum::Binary("ab"), Datum::Binary("cd"), Array{{tail}}}};
  auto container = WriteContainer(list, {}, {head, tail}, Codec::kNull);
  ASSERT_TRUE(container.ok()) << container.status();
  auto read = ReadContainer(*container);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->records, (std::vector<Datum>{head, tail}));
}

TEST(AvroSchemaTest, RejectsBadSchemas) {
  auto fails = [](const std::string& json, const std::string& needle) {
    auto schema = ParseSchema(json);
    ASSERT_FALSE(schema.ok()) << json;
    EXPECT_TRUE(schema.status().IsInvalid());
    EXPECT_NE(schema.status().message().find(needle), std::string::npos)
        << schema.status().message();
  };
  fails("{\"type\":", "not valid JSON");
  fails("\"integer\"", "unknown type 'integer'");
  fails(R"({"type":"record","name":"r"})", "record r has no \"fields\" array");
  fails(R"({"type":"record","name":"r","fields":[{"name":"a"}]})", "field r.a has no type");
  fails(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},)"
        R"({"name":"a","type":"int"}]})",
        "two fields named 'a'");
  fails(R"(["null",["int"]])", "a union may not hold a union");
  fails(R"(["null","int","null"])", "repeats null");
  fails(R"({"type":"array"})", "array without \"items\"");
  fails(R"({"type":"fixed","name":"f"})", "fixed f needs a non-negative integer \"size\"");
  fails(R"({"type":"enum","name":"e","symbols":["A","A"]})", "repeats symbol");
  fails(R"([{"type":"fixed","name":"f","size":1},{"type":"fixed","name":"f","size":2}])",
        "type 'f' is defined twice");
  fails(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","field-id":"x"}]})",
        "id of r.a is not an integer");
}

TEST(AvroSchemaTest, WriterRefusesNamesOtherReadersReject) {
  // Readable (lenient), but Java's and avro-c's readers would refuse the file.
  const std::string json =
      R"({"type":"record","name":"r","fields":[{"name":"my-col","type":"int"}]})";
  EXPECT_TRUE(ParseSchema(json).ok());
  auto written = WriteContainer(json, {}, {Record{{int32_t{1}}}}, Codec::kNull);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("field name 'my-col'"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Containers

const char* kAllTypes = R"({"type":"record","name":"all","namespace":"ember.test","fields":[
    {"name":"b","type":"boolean"},
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"f","type":"float"},
    {"name":"d","type":"double"},
    {"name":"s","type":"string"},
    {"name":"y","type":"bytes"},
    {"name":"x","type":{"type":"fixed","name":"md5","size":16}},
    {"name":"e","type":{"type":"enum","name":"color","symbols":["RED","GREEN","BLUE"]}},
    {"name":"n","type":["null","long"],"default":null},
    {"name":"ns","type":["null","string"],"default":null},
    {"name":"rec","type":{"type":"record","name":"inner","fields":[
        {"name":"a","type":"int"},
        {"name":"deeper","type":["null",{"type":"record","name":"deepest","fields":[
            {"name":"z","type":"double"}]}]}]}},
    {"name":"recs","type":{"type":"array","items":"inner"}},
    {"name":"longs","type":{"type":"array","items":"long"}},
    {"name":"m","type":{"type":"map","values":["null","string"]}},
    {"name":"mm","type":{"type":"map","values":{"type":"array","items":"md5"}}},
    {"name":"nul","type":"null"}]})";

Datum AllTypesRecord(int i) {
  std::string md5(16, static_cast<char>(i));
  Datum inner = Record{{int32_t{i}, i % 2 == 0 ? Datum(nullptr) : Datum(Record{{i * 0.25}})}};
  Array recs;
  for (int k = 0; k < i % 4; ++k) recs.items.push_back(inner);
  Array longs;
  for (int k = 0; k < i % 5; ++k) longs.items.push_back(int64_t{k} * int64_t{-1000000007} * i);
  Map m;
  if (i % 3 != 0) m.entries = {{"a", nullptr}, {"b", "x" + std::to_string(i)}, {"", ""}};
  Map mm;
  mm.entries = {{"h", Array{{Datum::Binary(md5), Datum::Binary(std::string(16, 'q'))}}}};
  std::string bytes;
  for (int k = 0; k < i % 7; ++k) bytes.push_back(static_cast<char>(k * 37 + i));
  return Record{{
      i % 2 == 0,
      i % 2 == 0 ? int32_t{-i} : std::numeric_limits<int32_t>::max() - i,
      i % 3 == 0 ? std::numeric_limits<int64_t>::min() + i : int64_t{i} << 40,
      static_cast<float>(i) / 8.0f,
      i == 7 ? std::numeric_limits<double>::infinity() : -static_cast<double>(i) / 3.0,
      i % 5 == 0 ? std::string() : "s\xc3\xa9-" + std::to_string(i) + std::string("\0z", 2),
      Datum::Binary(bytes),
      Datum::Binary(md5),
      i % 3 == 0 ? "RED" : (i % 3 == 1 ? "GREEN" : "BLUE"),
      i % 4 == 0 ? Datum(nullptr) : Datum(int64_t{i * 11}),
      i % 6 == 0 ? Datum(nullptr) : Datum("n" + std::to_string(i)),
      inner,
      recs,
      longs,
      m,
      mm,
      nullptr,
  }};
}

class AvroContainerTest : public ::testing::TestWithParam<Codec> {};

TEST_P(AvroContainerTest, RoundTripsEveryType) {
  std::vector<Datum> records;
  for (int i = 0; i < 250; ++i) records.push_back(AllTypesRecord(i));
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"schema", "{\"type\":\"struct\"}"},
      {"format-version", "2"},
      {"content", "data"},
      {"binary", std::string("\0\xff", 2)}};
  auto written = WriteContainer(kAllTypes, metadata, records, GetParam());
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->substr(0, 4), std::string("Obj\x01", 4));

  auto read = ReadContainer(*written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->schema_json, kAllTypes);
  EXPECT_EQ(read->schema->name(), "ember.test.all");
  EXPECT_EQ(read->metadata.at("avro.schema"), kAllTypes);
  EXPECT_EQ(read->metadata.at("avro.codec"), GetParam() == Codec::kNull ? "null" : "deflate");
  for (const auto& [key, value] : metadata) EXPECT_EQ(read->metadata.at(key), value);
  ASSERT_EQ(read->records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(read->records[i], records[i])
        << i << ": " << read->records[i].ToString() << " vs " << records[i].ToString();
  }
}

TEST_P(AvroContainerTest, WritesAHeaderOnlyFileForNoRecords) {
  auto written = WriteContainer("\"long\"", {}, {}, GetParam());
  ASSERT_TRUE(written.ok()) << written.status();
  auto read = ReadContainer(*written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->records.empty());
  EXPECT_EQ(read->schema->type(), Schema::Type::kLong);
}

INSTANTIATE_TEST_SUITE_P(AvroCodecs, AvroContainerTest,
                         ::testing::Values(Codec::kNull, Codec::kDeflate), [](const auto& info) {
                           return info.param == Codec::kNull ? "Null" : "Deflate";
                         });

// Splits a null-codec file into its parts by the layout in the spec, independently of the reader:
// returns the record count of each block.
std::vector<int64_t> BlockCounts(const std::string& file, const std::string& sync) {
  std::vector<int64_t> counts;
  size_t pos = file.find(sync) + sync.size();
  auto read_long = [&]() {
    uint64_t z = 0;
    for (int shift = 0;; shift += 7) {
      auto b = static_cast<uint8_t>(file[pos++]);
      z |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  };
  while (pos < file.size()) {
    counts.push_back(read_long());
    int64_t size = read_long();
    pos += static_cast<size_t>(size);
    EXPECT_EQ(file.substr(pos, 16), sync);
    pos += 16;
  }
  return counts;
}

TEST(AvroBlockTest, HeaderLayoutAndBlockSizes) {
  std::vector<Datum> small(250, Datum(int64_t{7}));
  auto written = WriteContainer("\"long\"", {{"k", "v"}}, small, Codec::kNull);
  ASSERT_TRUE(written.ok()) << written.status();
  // Magic, a map block of 3 entries (zig-zag 06), each a length-prefixed key and value, then 0.
  std::string header = std::string("Obj\x01", 4) + "\x06" + "\x16" + "avro.schema" + "\x0c" +
                       "\"long\"" + "\x14" + "avro.codec" + "\x08" + "null" + "\x02" + "k" +
                       "\x02" + "v" + std::string(1, '\0');
  ASSERT_EQ(written->substr(0, header.size()), header);
  std::string sync = written->substr(header.size(), 16);
  EXPECT_EQ(BlockCounts(*written, sync), (std::vector<int64_t>{100, 100, 50}));
  // Each block: count 100 (c8 01), size 100 (c8 01), a hundred 0e (7), the sync marker.
  std::string first = written->substr(header.size() + 16, 4 + 100 + 16);
  EXPECT_EQ(Hex(first.substr(0, 5)), "c8 01 c8 01 0e");
  EXPECT_EQ(first.substr(104), sync);

  // Records of 300 kB: a block closes once it reaches 1 MiB, after four of them.
  std::vector<Datum> big(10, Datum(std::string(300000, 'a')));
  written = WriteContainer("\"string\"", {}, big, Codec::kNull);
  ASSERT_TRUE(written.ok()) << written.status();
  auto read = ReadContainer(*written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->records, big);
  sync = written->substr(written->size() - 16);
  EXPECT_EQ(BlockCounts(*written, sync), (std::vector<int64_t>{4, 4, 2}));

  // Repetitive data shrinks under deflate.
  auto deflated = WriteContainer("\"string\"", {}, big, Codec::kDeflate);
  ASSERT_TRUE(deflated.ok()) << deflated.status();
  EXPECT_LT(deflated->size(), written->size() / 100);
  EXPECT_EQ(ReadContainer(*deflated).ValueOrDie().records, big);
}

TEST(AvroBlockTest, RefusesReservedAndRepeatedMetadataKeys) {
  auto reserved = WriteContainer("\"long\"", {{"avro.codec", "snappy"}}, {}, Codec::kNull);
  ASSERT_FALSE(reserved.ok());
  EXPECT_NE(reserved.status().message().find("'avro.codec' is reserved"), std::string::npos);
  auto repeated = WriteContainer("\"long\"", {{"a", "1"}, {"a", "2"}}, {}, Codec::kNull);
  ASSERT_FALSE(repeated.ok());
  auto bad = WriteContainer(R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"}]})",
                            {}, {Record{{int64_t{1}}}, Record{{"x"}}}, Codec::kNull);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("record 1: r.a expects long but the value is string"),
            std::string::npos)
      << bad.status().message();
}

// ---------------------------------------------------------------------------------------------
// Iceberg-shaped files (ICEBERG.md 2.2 and 2.3)

// The v2 manifest list schema as Java writes it, with its names for 504-506.
const char* kManifestFile = R"({"type":"record","name":"manifest_file","fields":[
{"name":"manifest_path","type":"string","doc":"Location URI with FS scheme","field-id":500},
{"name":"manifest_length","type":"long","field-id":501},
{"name":"partition_spec_id","type":"int","field-id":502},
{"name":"content","type":"int","field-id":517},
{"name":"sequence_number","type":"long","field-id":515},
{"name":"min_sequence_number","type":"long","field-id":516},
{"name":"added_snapshot_id","type":"long","field-id":503},
{"name":"added_data_files_count","type":"int","field-id":504},
{"name":"existing_data_files_count","type":"int","field-id":505},
{"name":"deleted_data_files_count","type":"int","field-id":506},
{"name":"added_rows_count","type":"long","field-id":512},
{"name":"existing_rows_count","type":"long","field-id":513},
{"name":"deleted_rows_count","type":"long","field-id":514},
{"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508",
 "fields":[{"name":"contains_null","type":"boolean","field-id":509},
 {"name":"contains_nan","type":["null","boolean"],"default":null,"field-id":518},
 {"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},
 {"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]},
 "element-id":508}],"default":null,"field-id":507},
{"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":519}]})";

std::string Le32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (8 * i)) & 0xff);
  return out;
}

Datum ManifestFile(int i, bool partitioned) {
  Datum partitions = nullptr;
  if (partitioned) {
    partitions = Array{{Record{{false, nullptr, Datum::Binary(Le32(i)), Datum::Binary(Le32(1337))}},
                        Record{{true, false, nullptr, nullptr}}}};
  }
  return Record{{"/wh/db/t/metadata/m" + std::to_string(i) + ".avro", int64_t{6000 + i}, int32_t{0},
                 int32_t{0}, int64_t{i}, int64_t{1}, int64_t{8888000000 + i}, int32_t{1},
                 int32_t{0}, int32_t{0}, int64_t{10 * i}, int64_t{0}, int64_t{0}, partitions,
                 nullptr}};
}

// ---------------------------------------------------------------------------------------------
// Malformed input

std::string SmallFile(Codec codec) {
  std::vector<Datum> records;
  for (int i = 0; i < 120; ++i) records.push_back(AllTypesRecord(i));
  return WriteContainer(kAllTypes, {{"format-version", "2"}}, records, codec).ValueOrDie();
}

void ExpectInvalid(std::string_view bytes, const std::string& needle) {
  auto read = ReadContainer(bytes);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().IsInvalid()) << read.status();
  EXPECT_NE(read.status().message().find(needle), std::string::npos) << read.status().message();
}

TEST(AvroMalformedTest, BadMagic) {
  ExpectInvalid("", "bad magic at byte offset 0");
  ExpectInvalid("Obj", "bad magic");
  std::string file = SmallFile(Codec::kNull);
  file[3] = '\x02';
  ExpectInvalid(file, "bad magic");
}

// Where the header and each block end: after each copy of the sync marker.
std::vector<size_t> SyncEnds(const std::string& file) {
  std::string sync = file.substr(file.size() - 16);
  std::vector<size_t> ends;
  for (size_t at = file.find(sync); at != std::string::npos; at = file.find(sync, at + 1)) {
    ends.push_back(at + 16);
  }
  return ends;
}

TEST(AvroMalformedTest, TruncatedFilesFailOrEndAtABlockBoundary) {
  // Manifest-list rows decode quickly enough under the sanitizers to try nearly every cut.
  std::vector<Datum> rows;
  for (int i = 0; i < 101; ++i) rows.push_back(ManifestFile(i, i % 3 == 0));
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    std::string file = WriteContainer(kManifestFile, {}, rows, codec).ValueOrDie();
    std::vector<size_t> ends = SyncEnds(file);
    ASSERT_EQ(ends.size(), 3u);  // the header and two blocks
    // A cut at a block end is a valid, shorter file; every other cut fails cleanly.
    for (size_t n = 0; n < file.size(); n += (n < ends[0] + 100 || n + 100 > ends[1]) ? 1 : 37) {
      auto read = ReadContainer(std::string_view(file).substr(0, n));
      if (n == ends[0] || n == ends[1]) {
        ASSERT_TRUE(read.ok()) << read.status();
        size_t expected = n == ends[0] ? 0 : 100;
        ASSERT_EQ(read->records.size(), expected);
        for (size_t i = 0; i < expected; ++i) ASSERT_EQ(read->records[i], rows[i]);
      } else {
        ASSERT_FALSE(read.ok()) << n;
        ASSERT_TRUE(read.status().IsInvalid()) << n << ": " << read.status();
        ASSERT_NE(read.status().message().find("byte offset"), std::string::npos)
            << read.status().message();
      }
    }
  }
  std::string file = SmallFile(Codec::kNull);
  ExpectInvalid(std::string_view(file).substr(0, file.size() - 10),
                "truncated sync marker at byte offset " + std::to_string(file.size() - 16));
  ExpectInvalid(std::string_view(file).substr(0, 10), "at byte offset");
}

TEST(AvroMalformedTest, TruncatedOrCorruptValuesFailCleanly) {
  auto schema = Parse(kAllTypes);
  ASSERT_NE(schema, nullptr);
  for (int i : {1, 3, 6}) {
    std::string bytes;
    ASSERT_TRUE(EncodeDatum(*schema, AllTypesRecord(i), &bytes).ok());
    ASSERT_EQ(DecodeDatum(*schema, bytes).ValueOrDie(), AllTypesRecord(i));
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto value = DecodeDatum(*schema, std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(value.ok()) << n;
      ASSERT_TRUE(value.status().IsInvalid());
      ASSERT_NE(value.status().message().find("byte offset"), std::string::npos);
    }
    // Any single corrupt byte decodes to something or fails with Invalid; the sanitizers check
    // that nothing reads out of bounds on the way.
    for (size_t k = 0; k < bytes.size(); ++k) {
      for (char mask : {'\x01', '\x80', '\xff'}) {
        std::string bad = bytes;
        bad[k] = static_cast<char>(bad[k] ^ mask);
        auto value = DecodeDatum(*schema, bad);
        ASSERT_TRUE(value.ok() || value.status().IsInvalid()) << value.status();
      }
    }
  }
}

TEST(AvroMalformedTest, WrongSyncMarker) {
  std::string file = SmallFile(Codec::kNull);
  file[file.size() - 1] ^= 0x55;
  ExpectInvalid(file, "sync marker mismatch at byte offset " + std::to_string(file.size() - 16));
}

// A file with schema "long" and one null-codec block whose body is `body`.
std::string LongFile(const std::string& count_and_body) {
  std::string file = WriteContainer("\"long\"", {}, {}, Codec::kNull).ValueOrDie();
  std::string sync = file.substr(file.size() - 16);
  return file + count_and_body + sync;
}

TEST(AvroMalformedTest, BadVarints) {
  // Eleven continuation bytes: no long is that long.
  std::string eleven(10, '\xff');
  eleven.push_back('\x01');
  std::string file = LongFile("\x02\x16" + eleven);
  size_t body_offset = file.size() - 16 - eleven.size();
  ExpectInvalid(file, "varint overflows 64 bits at byte offset " + std::to_string(body_offset));
  // A varint cut off by the end of its block.
  ExpectInvalid(LongFile(std::string("\x02\x02\x80", 3)), "truncated varint");
  // An int beyond 32 bits.
  auto schema = Parse("\"int\"");
  auto value = DecodeDatum(*schema, Unhex("80 80 80 80 20"));
  ASSERT_FALSE(value.ok());
  EXPECT_NE(value.status().message().find("out of 32-bit range"), std::string::npos);
  // Bytes left over in a block, a negative count, a size past the end.
  ExpectInvalid(LongFile(std::string("\x02\x04\x02\x02", 4)), "1 bytes left over");
  ExpectInvalid(LongFile(std::string("\x01\x02\x02", 3)), "negative record count");
  ExpectInvalid(LongFile(std::string("\x02\x40\x02", 3)), "runs past the end");
}

TEST(AvroMalformedTest, BadValues) {
  auto decode_error = [](const std::string& schema_json, std::string_view hex) {
    auto schema = ParseSchema(schema_json).ValueOrDie();
    auto value = DecodeDatum(*schema, Unhex(hex));
    EXPECT_FALSE(value.ok()) << hex;
    return value.status().message();
  };
  EXPECT_NE(decode_error(R"(["null","long"])", "04").find("union branch 2 out of range"),
            std::string::npos);
  EXPECT_NE(decode_error("\"boolean\"", "02").find("neither 0 nor 1"), std::string::npos);
  EXPECT_NE(decode_error(R"({"type":"enum","name":"e","symbols":["A"]})", "02")
                .find("enum index 1 out of range"),
            std::string::npos);
  EXPECT_NE(decode_error("\"string\"", "03").find("negative length"), std::string::npos);
  EXPECT_NE(decode_error("\"long\"", "02 02").find("1 bytes after the value"), std::string::npos);
  // A field path in a read error.
  EXPECT_NE(decode_error(R"({"type":"record","name":"r","fields":[{"name":"a","type":"double"}]})",
                         "00 00")
                .find("(reading r.a)"),
            std::string::npos);
  // A huge count of items that take no bytes stops instead of looping for ages.
  EXPECT_NE(decode_error(R"({"type":"array","items":"null"})", "fe ff ff ff ff ff ff ff 7f")
                .find("too many empty items"),
            std::string::npos);
  // And a huge count of real items stops at the end of the data.
  EXPECT_NE(decode_error(R"({"type":"array","items":"long"})", "fe ff ff ff ff ff ff ff 7f 02")
                .find("truncated varint"),
            std::string::npos);
}

TEST(AvroMalformedTest, BadHeaderAndCodec) {
  std::string no_schema = std::string("Obj\x01", 4) + "\x02\x14" + "avro.codec" + "\x08" + "null" +
                          std::string(1, '\0') + std::string(16, 's');
  ExpectInvalid(no_schema, "no avro.schema");
  std::string bad_schema = std::string("Obj\x01", 4) + "\x02\x16" + "avro.schema" + "\x08" +
                           "\"xy\"" + std::string(1, '\0') + std::string(16, 's');
  ExpectInvalid(bad_schema, "avro.schema in the file header: Avro schema: unknown type 'xy'");
  std::string snappy = std::string("Obj\x01", 4) + "\x04\x16" + "avro.schema" + "\x0c" +
                       "\"long\"" + "\x14" + "avro.codec" + "\x0c" + "snappy" +
                       std::string(1, '\0') + std::string(16, 's');
  auto snappy_read = ReadContainer(snappy);
  ASSERT_FALSE(snappy_read.ok());
  EXPECT_TRUE(snappy_read.status().IsNotImplemented());
  EXPECT_NE(snappy_read.status().message().find("codec 'snappy' is not supported"),
            std::string::npos);
}

TEST(AvroMalformedTest, CorruptDeflateData) {
  // One block whose compressed body is replaced by bytes that are not a deflate stream.
  std::string header = WriteContainer("\"long\"", {}, {}, Codec::kDeflate).ValueOrDie();
  std::string sync = header.substr(header.size() - 16);
  ExpectInvalid(header + "\x02\x06" + "\xff\xff\xff" + sync, "is not valid deflate data");
  // A deflate stream cut short: its final block never ends.
  std::string good =
      WriteContainer("\"string\"", {}, {Datum(std::string(1000, 'x'))}, Codec::kDeflate)
          .ValueOrDie();
  auto read = ReadContainer(good).ValueOrDie();
  ASSERT_EQ(read.records.size(), 1u);
  std::string good_sync = good.substr(good.size() - 16);
  size_t body_start = good.find(good_sync) + 16;
  // count 02, then the size varint (one byte for a short body), then the body.
  auto size = static_cast<uint8_t>(good[body_start + 1]) >> 1;
  std::string body = good.substr(body_start + 2, size);
  std::string cut = body.substr(0, body.size() - 2);
  std::string file = good.substr(0, body_start) + "\x02" +
                     std::string(1, static_cast<char>(cut.size() * 2)) + cut + good_sync;
  ExpectInvalid(file, "ends inside its deflate stream");
}

TEST(AvroIcebergTest, ManifestListFieldsById) {
  std::vector<Datum> rows = {ManifestFile(1, true), ManifestFile(2, false)};
  std::vector<std::pair<std::string, std::string>> metadata = {{"snapshot-id", "8888000002"},
                                                               {"parent-snapshot-id", "null"},
                                                               {"sequence-number", "2"},
                                                               {"format-version", "2"}};
  auto written = WriteContainer(kManifestFile, metadata, rows, Codec::kDeflate);
  ASSERT_TRUE(written.ok()) << written.status();
  auto read = ReadContainer(*written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->metadata.at("parent-snapshot-id"), "null");
  EXPECT_EQ(read->metadata.at("format-version"), "2");
  ASSERT_EQ(read->records.size(), 2u);
  const Schema& schema = *read->schema;
  const Datum& first = read->records[0];
  EXPECT_EQ(FieldById(schema, first, 500)->as<std::string>(), "/wh/db/t/metadata/m1.avro");
  EXPECT_EQ(FieldById(schema, first, 501)->as<int64_t>(), 6001);
  // 504 is named added_data_files_count here and added_files_count in the spec: ids agree.
  EXPECT_EQ(FieldById(schema, first, 504)->as<int32_t>(), 1);
  EXPECT_EQ(FieldByName(schema, first, "added_data_files_count"), FieldById(schema, first, 504));
  EXPECT_TRUE(FieldById(schema, first, 519)->is_null());
  EXPECT_EQ(FieldById(schema, first, 9999), nullptr);
  EXPECT_EQ(FieldById(schema, Datum(int64_t{1}), 500), nullptr);

  ASSERT_NE(schema.FieldWithId(507), nullptr);
  EXPECT_EQ(schema.FieldWithId(507)->name, "partitions");
  EXPECT_EQ(schema.FieldWithId(9999), nullptr);
  const Schema& partitions_schema = *schema.FieldWithId(507)->schema;
  EXPECT_EQ(partitions_schema.NonNull().element_id(), 508);
  const Schema& summary = partitions_schema.NonNull().items();
  EXPECT_EQ(summary.name(), "r508");
  const auto& summaries = FieldById(schema, first, 507)->as<Array>().items;
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(FieldById(summary, summaries[0], 509)->as<bool>(), false);
  EXPECT_TRUE(FieldById(summary, summaries[0], 518)->is_null());
  EXPECT_EQ(FieldById(summary, summaries[0], 510)->as<Bytes>().data, Le32(1));
  EXPECT_EQ(FieldById(summary, summaries[0], 511)->as<Bytes>().data, Le32(1337));
  EXPECT_EQ(FieldById(summary, summaries[1], 518)->as<bool>(), false);
  EXPECT_TRUE(FieldById(schema, read->records[1], 507)->is_null());
  EXPECT_EQ(read->records, rows);
}

// A manifest entry with a data_file holding int-keyed maps written as arrays of k/v records.
const char* kManifestEntry = R"({"type":"record","name":"manifest_entry","fields":[
{"name":"status","type":"int","field-id":0},
{"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
{"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},
{"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},
{"name":"data_file","type":{"type":"record","name":"r2","fields":[
 {"name":"content","type":"int","field-id":134},
 {"name":"file_path","type":"string","field-id":100},
 {"name":"file_format","type":"string","field-id":101},
 {"name":"partition","type":{"type":"record","name":"r102","fields":[
  {"name":"id_bucket","type":["null","int"],"default":null,"field-id":1000},
  {"name":"ts_day","type":["null",{"type":"int","logicalType":"date"}],"default":null,
   "field-id":1001}]},"field-id":102},
 {"name":"record_count","type":"long","field-id":103},
 {"name":"file_size_in_bytes","type":"long","field-id":104},
 {"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record",
  "name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},
  {"name":"value","type":"long","field-id":118}]},"logicalType":"map"}],"default":null,
  "field-id":108},
 {"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record",
  "name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},
  {"name":"value","type":"bytes","field-id":127}]},"logicalType":"map"}],"default":null,
  "field-id":125},
 {"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],
  "default":null,"field-id":132},
 {"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140}]},
 "field-id":2}]})";

TEST(AvroIcebergTest, ManifestEntryMapAsArray) {
  Datum data_file = Record{
      {int32_t{0}, "/wh/db/t/data/00000-0.parquet", "PARQUET", Record{{int32_t{3}, int32_t{19000}}},
       int64_t{42}, int64_t{1234},
       Array{{Record{{int32_t{1}, int64_t{100}}}, Record{{int32_t{2}, int64_t{200}}}}},
       Array{{Record{{int32_t{1}, Datum::Binary(Le32(1337))}}}}, Array{{int64_t{4}}}, int32_t{0}}};
  Datum entry = Record{{int32_t{1}, int64_t{77}, nullptr, nullptr, data_file}};
  auto written = WriteContainer(
      kManifestEntry,
      {{"schema", R"({"type":"struct","schema-id":0,"fields":[]})"},
       {"partition-spec", R"([{"name":"id_bucket","transform":"bucket[4]","source-id":1,)"
                          R"("field-id":1000}])"},
       {"partition-spec-id", "0"},
       {"format-version", "2"},
       {"content", "data"}},
      {entry}, Codec::kNull);
  ASSERT_TRUE(written.ok()) << written.status();
  auto read = ReadContainer(*written);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->metadata.at("content"), "data");
  ASSERT_EQ(read->records.size(), 1u);
  const Schema& schema = *read->schema;
  const Datum& e = read->records[0];
  EXPECT_EQ(FieldById(schema, e, 0)->as<int32_t>(), 1);
  EXPECT_EQ(FieldById(schema, e, 1)->as<int64_t>(), 77);
  EXPECT_TRUE(FieldById(schema, e, 3)->is_null());
  const Schema& file_schema = *schema.FieldWithId(2)->schema;
  const Datum& file = *FieldById(schema, e, 2);
  EXPECT_EQ(FieldById(file_schema, file, 100)->as<std::string>(), "/wh/db/t/data/00000-0.parquet");
  const Schema& partition_schema = *file_schema.FieldWithId(102)->schema;
  const Datum& partition = *FieldById(file_schema, file, 102);
  EXPECT_EQ(FieldById(partition_schema, partition, 1001)->as<int32_t>(), 19000);
  EXPECT_EQ(partition_schema.fields()[1].schema->NonNull().logical_type(), "date");

  const Schema& sizes_schema = file_schema.FieldWithId(108)->schema->NonNull();
  EXPECT_EQ(sizes_schema.type(), Schema::Type::kArray);
  EXPECT_EQ(sizes_schema.logical_type(), "map");
  const Schema& kv = sizes_schema.items();
  std::map<int32_t, int64_t> sizes;
  for (const Datum& pair : FieldById(file_schema, file, 108)->as<Array>().items) {
    sizes[FieldById(kv, pair, 117)->as<int32_t>()] = FieldById(kv, pair, 118)->as<int64_t>();
  }
  EXPECT_EQ(sizes, (std::map<int32_t, int64_t>{{1, 100}, {2, 200}}));
  const Schema& lower_kv = file_schema.FieldWithId(125)->schema->NonNull().items();
  const Datum& lower = FieldById(file_schema, file, 125)->as<Array>().items[0];
  EXPECT_EQ(FieldById(lower_kv, lower, 127)->as<Bytes>().data, Le32(1337));
  EXPECT_EQ(file_schema.FieldWithId(132)->schema->NonNull().element_id(), 133);
  EXPECT_EQ(e, entry);
}

// ---------------------------------------------------------------------------------------------
// An independent reader: avrocat from avro-c (Debian avro-bin).

std::string RunAvrocat(const std::string& bytes) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ember_avro_test_" + std::to_string(::getpid()) + ".avro"))
                         .string();
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string output;
  FILE* pipe = ::popen(("/usr/bin/avrocat " + path + " 2>&1").c_str(), "r");
  if (pipe != nullptr) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) output.append(buf, n);
    int rc = ::pclose(pipe);
    EXPECT_EQ(rc, 0) << output;
  }
  std::filesystem::remove(path);
  return output;
}

TEST(AvroAvrocatTest, ReadsOurFiles) {
  if (!std::filesystem::exists("/usr/bin/avrocat")) {
    GTEST_SKIP() << "avrocat (Debian avro-bin) is not installed";
  }
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    SCOPED_TRACE(codec == Codec::kNull ? "null" : "deflate");
    std::vector<Datum> rows;
    for (int i = 1; i <= 150; ++i) rows.push_back(ManifestFile(i, i % 2 == 1));
    std::string list = RunAvrocat(
        WriteContainer(kManifestFile, {{"format-version", "2"}}, rows, codec).ValueOrDie());
    EXPECT_NE(list.find("\"manifest_path\": \"/wh/db/t/metadata/m1.avro\""), std::string::npos)
        << list.substr(0, 2000);
    EXPECT_NE(list.find("/wh/db/t/metadata/m150.avro"), std::string::npos);
    EXPECT_NE(list.find("\"added_snapshot_id\": 8888000150"), std::string::npos);
    EXPECT_NE(list.find("\"contains_null\": true"), std::string::npos);
    EXPECT_NE(list.find("\"contains_nan\": {\"boolean\": false}"), std::string::npos);
    EXPECT_NE(list.find("\"partitions\": null"), std::string::npos);
    EXPECT_EQ(std::count(list.begin(), list.end(), '\n'), 150);

    std::vector<Datum> all;
    // Not record 7: its infinite double has no JSON form, and avrocat stops there.
    for (int i = 0; i < 130; ++i) {
      if (i != 7) all.push_back(AllTypesRecord(i));
    }
    std::string text = RunAvrocat(WriteContainer(kAllTypes, {}, all, codec).ValueOrDie());
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 129);
    EXPECT_NE(text.find("\"l\": -9223372036854775808"), std::string::npos) << text.substr(0, 2000);
    EXPECT_NE(text.find("\"l\": 1099511627776"), std::string::npos);  // 1 << 40
    EXPECT_NE(text.find("\"i\": 2147483646"), std::string::npos);
    EXPECT_NE(text.find("\"e\": \"BLUE\""), std::string::npos);
    EXPECT_NE(text.find("\"ns\": {\"string\": \"n5\"}"), std::string::npos);
    EXPECT_NE(text.find("\"n\": {\"long\": 55}"), std::string::npos);
    EXPECT_NE(text.find("\"s\": \"s\\u00E9-1\""), std::string::npos);
    EXPECT_NE(text.find("\"deeper\": {\"deepest\": {\"z\": 0.75}}"), std::string::npos);
    EXPECT_NE(text.find("\"mm\": {\"h\": [\"\\u0001\\u0001"), std::string::npos);
    EXPECT_NE(text.find("\"m\": {\"a\": null, \"b\": {\"string\": \"x1\"}"), std::string::npos);
  }
}

}  // namespace
}  // namespace ember::iceberg::avro
