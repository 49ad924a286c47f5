"""Writes the fuzzers' seed corpora (tests/fuzz/corpus/<target>/): valid inputs taken from the test
suite's own data and from tables Ember and PyIceberg write, strings that are not valid UTF-8, and a
few edge cases. Run from the repository root with the venv's Python (ember installed):

    TZ=UTC .venv/bin/python tests/fuzz/seed_corpus.py

Each JSON Lines, CSV and Avro seed starts with the target's option byte(s) (see each target)."""

import hashlib
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
sys.path.insert(0, str(ROOT))

# Strings that are not valid UTF-8: a stray continuation byte, 0xff, an overlong '/', a CESU-8
# (surrogate) half, a sequence cut short, a code point above U+10FFFF; and Latin-1 text.
NOT_UTF8 = [b"\xff", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80",
            b"caf\xe9"]


WRITTEN = set()


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:10]
    if (target, digest) in WRITTEN:
        return
    WRITTEN.add((target, digest))
    (folder / f"{name}-{digest}").write_bytes(data)


def json_lines():
    from tests.python.differential.test_json_lines import random_line
    rng = random.Random(21)
    valid = "\n".join(random_line(rng) for _ in range(40)).encode() + b"\n"
    # The irregular records of tests/cpp/json_lines_test.cc.
    irregular = (b'{"s": 1.50, "i8": 200}\n{"s": "x", "i32": "7", "d": 2}\n'
                 b'[{"s": "a"}, {"s": "b"}]\n{"s": "t"} trailing\n'
                 b'{"d": "-INF", "s": "p", "s": "q"}\nnull\n\n{"s": "last"')
    edge = [b'\xef\xbb\xbf{"i32":1}\n', b'{"i64":9223372036854775808}\r\n{"i8":-129}\n',
            b'{"d":1e999,"b":"true"}\n{"ts":"2026-01-01T00:00:00Z"}\n', b'{"s":"\\ud800"}\n',
            b'{"s":"\x00"}\n', b"\n\n\r\n", b'{"s":{"nested":[1,2]}}\n{"i32":[]}\n']
    for flags in (0x00, 0x04, 0x01, 0x02, 0x2c, 0x0c):
        write("json_lines", f"tests-{flags:02x}", bytes([flags]) + valid)
        write("json_lines", f"irregular-{flags:02x}", bytes([flags]) + irregular)
    for i, e in enumerate(edge):
        write("json_lines", f"edge{i}", bytes([0x04]) + e)
    for i, bad in enumerate(NOT_UTF8):
        for flags in (0x04, 0x00, 0x02):
            write("json_lines", f"not-utf8-{i}-{flags:02x}",
                  bytes([flags]) + b'{"i64":1,"s":"' + bad + b'"}\n{"i64":2,"s":"ok"}\n')
        write("json_lines", f"not-utf8-key-{i}", bytes([0x04]) + b'{"' + bad + b'":1}\n')


def csv():
    # Options: byte 0 bit 0 header, bits 1-2 mode, 3-4 sep, 5-6 quote; byte 1 bits 0-1 escape,
    # bit 2 nullValue NA, bit 3 infer the schema (bit 4 inferSchema), bit 5 a corrupt column.
    typed = (b"1,10,1.5,true,plain,2026-01-02,2026-01-02 10:00:00\n"
             b'2,-3,NaN,false,"quoted, with comma",2026-02-30,2026-01-02T10:00:00.123Z\n'
             b'3,,,,"say \\"hi\\"",,\n4,9223372036854775807,1e308,TRUE,"multi\nline",x,y\n')
    header = b"id,n,d,b,s,day,ts\n" + typed
    events = b"".join(b"%d,c%d,%d.25\n" % (i, i % 3, i * 7) for i in range(20))
    edge = [b"", b"\n", b"1,2\n", b"1,2,3,4,5,6,7,8,9\n", b'"unterminated\n1,2', b"\xef\xbb\xbf1,2\n",
            b"a;b;c\n1;2;3\n", b"1\t2\t3\n", b"NA,NA,NA,NA,NA,NA,NA\n", b"\r\n1,2\r\n"]
    for a, b in ((0x00, 0x00), (0x01, 0x00), (0x02, 0x20), (0x04, 0x00), (0x01, 0x18), (0x00, 0x08)):
        write("csv", f"typed-{a:02x}{b:02x}", bytes([a, b]) + typed)
        write("csv", f"header-{a | 1:02x}{b:02x}", bytes([a | 1, b]) + header)
        write("csv", f"events-{a:02x}{b:02x}", bytes([a, b]) + events)
    for i, e in enumerate(edge):
        write("csv", f"edge{i}", bytes([(i * 8) & 0x7f, 0x20 if i % 2 else 0x18]) + e)
    for i, bad in enumerate(NOT_UTF8):
        for a, b in ((0x00, 0x20), (0x02, 0x00), (0x01, 0x18)):
            write("csv", f"not-utf8-{i}-{a:02x}{b:02x}",
                  bytes([a, b]) + b"1,2,3.5,true," + bad + b",2026-01-01,x\n" + bad + b",1\n")


def sql():
    import re
    statements = set()
    for test in ("sql_parser_test.cc", "sql_statement_test.cc", "analyzer_test.cc"):
        text = (ROOT / "tests" / "cpp" / test).read_text()
        for m in re.finditer(r'Parse(?:Statement|Query|Expression)?\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', text):
            parts = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
            statements.add("".join(parts).encode().decode("unicode_escape").encode("utf-8", "surrogatepass"))
    for i, s in enumerate(sorted(statements)):
        write("sql", f"tests{i:03d}", s)
    edge = [b"SELECT 'it''s', `a``b`, \"dq\" FROM t -- comment", b"SELECT /* nested /* */ */ 1",
            b"SELECT 1e400, 9223372036854775808L, 1.0BD, X'0aFF', INTERVAL '1' DAY", b";;;",
            b"SELECT " + b"(" * 200 + b"1" + b")" * 200, b"SET a.b = c d e",
            b"CREATE TABLE local.db.t (a INT NOT NULL COMMENT 'x', b MAP<STRING, ARRAY<INT>>) "
            b"USING iceberg PARTITIONED BY (bucket(4, a), days(b)) TBLPROPERTIES ('k'='v')"]
    for i, e in enumerate(edge):
        write("sql", f"edge{i}", e)
    # A dictionary for -dict=: the parser's keywords and Spark SQL's punctuation.
    words = sorted(set(re.findall(r'"([A-Z][A-Z_]{1,20})"', (ROOT / "src/ember/sql/parser.cc").read_text())))
    words += ["(", ")", ",", ".", ";", "'", "`", '"', "--", "/*", "*/", "||", "<=>", "!=", "<>",
              "::", "->", "=>", "[", "]", "<", ">", "X'", "1L", "1S", "1Y", "1BD", "1D", "1E10"]
    (ROOT / "tests/fuzz/sql.dict").write_text(
        "".join(f'kw{i}="{w.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"\n'
                for i, w in enumerate(words)))
    for i, bad in enumerate(NOT_UTF8):
        write("sql", f"not-utf8-literal-{i}", b"SELECT '" + bad + b"' AS s")
        write("sql", f"not-utf8-name-{i}", b"SELECT `" + bad + b"` FROM t" + bad)
        write("sql", f"not-utf8-bare-{i}", b"SELECT a" + bad + b" FROM db.t WHERE x = 1")


def iceberg():
    """Metadata JSON and Avro files of tables Ember writes (unpartitioned and partitioned, two
    commits each) and of one PyIceberg writes."""
    from ember.sql import SparkSession
    work = pathlib.Path(tempfile.mkdtemp())
    try:
        spark = (SparkSession.builder
                 .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
                 .config("spark.sql.catalog.local.type", "hadoop")
                 .config("spark.sql.catalog.local.warehouse", str(work / "wh"))
                 .config("spark.sql.session.timeZone", "UTC").getOrCreate())
        spark.sql("CREATE NAMESPACE local.db")
        spark.sql("CREATE TABLE local.db.u (id BIGINT, s STRING, ts TIMESTAMP) USING iceberg")
        spark.sql("CREATE TABLE local.db.p (id BIGINT, s STRING, ts TIMESTAMP) USING iceberg "
                  "PARTITIONED BY (s, days(ts), bucket(4, id))")
        for t in ("u", "p"):
            spark.sql(f"INSERT INTO local.db.{t} VALUES (1, 'a', TIMESTAMP '2026-01-01 10:00:00'), "
                      "(2, NULL, NULL)")
            spark.sql(f"INSERT INTO local.db.{t} VALUES (3, 'é漢', TIMESTAMP '2026-01-02 00:00:00')")
        spark.stop()

        import pyarrow as pa
        from pyiceberg.catalog.sql import SqlCatalog
        from pyiceberg.partitioning import PartitionField, PartitionSpec
        from pyiceberg.schema import Schema
        from pyiceberg.transforms import IdentityTransform
        from pyiceberg.types import LongType, NestedField, StringType
        (work / "py").mkdir()
        catalog = SqlCatalog("py", uri=f"sqlite:///{work}/py.db", warehouse=f"file://{work}/py")
        catalog.create_namespace("db")
        schema = Schema(NestedField(1, "id", LongType()), NestedField(2, "s", StringType()))
        table = catalog.create_table("db.t", schema, partition_spec=PartitionSpec(
            PartitionField(2, 1000, IdentityTransform(), "s")))
        table.append(pa.table({"id": pa.array([1, 2], pa.int64()), "s": ["x", None]}))

        for path in sorted(work.rglob("*.metadata.json")):
            text = path.read_bytes()
            write("table_metadata", path.parent.parent.name + "-" + path.name, text)
        first = sorted(work.rglob("*.metadata.json"))[-1].read_bytes()
        for i, bad in enumerate(NOT_UTF8):
            write("table_metadata", f"not-utf8-{i}", first.replace(b'"location"', b'"' + bad + b'":1,"location"', 1))
            write("table_metadata", f"not-utf8-value-{i}", first.replace(b'"format-version"', b'"x":"' + bad + b'","format-version"', 1))
        write("table_metadata", "edge-empty-object", b"{}")
        write("table_metadata", "edge-v1", b'{"format-version":1,"location":"/t","schema":{"type":"struct","fields":[]}}')

        for path in sorted(work.rglob("*.avro")):
            data = path.read_bytes()
            partitioned = b"_p" if path.parent.parent.name == "p" or "py" in str(path) else b""
            # snap-*.avro files are manifest lists; the others are manifests.
            flags = 0 if path.name.startswith("snap-") else 1
            if partitioned:
                flags |= 2
            name = f"{path.parent.parent.name}-{path.name[:40]}"
            write("avro_manifest", name, bytes([flags]) + data)
            # The same file uncompressed (avro-bin's avromod), then with a string's bytes made
            # invalid UTF-8 (lengths kept).
            plain = work / "plain.avro"
            subprocess.run(["avromod", "--codec=null", str(path), str(plain)], check=True)
            data = plain.read_bytes()
            write("avro_manifest", f"{name}-null-codec", bytes([flags]) + data)
            suffix = b".parquet" if b".parquet" in data else b"-m0.avro"
            for i, bad in enumerate(NOT_UTF8[:3]):
                spoilt = data.replace(suffix, bad + suffix[len(bad):], 1)
                write("avro_manifest", f"{name}-not-utf8-{i}", bytes([flags]) + spoilt)
        write("avro_manifest", "edge-magic-only", b"\x00Obj\x01")
        write("avro_manifest", "edge-manifest-magic-only", b"\x01Obj\x01")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    for target in ("json_lines", "csv", "sql", "table_metadata", "avro_manifest"):
        shutil.rmtree(CORPUS / target, ignore_errors=True)
    json_lines()
    csv()
    sql()
    iceberg()
    for folder in sorted(CORPUS.iterdir()):
        files = list(folder.iterdir())
        print(f"{folder.name}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")
