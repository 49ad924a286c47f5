"""Bad bytes and Spark's file reading rules, on the real Spark and Ember with the same bytes:
invalid UTF-8 and CESU-8 in JSON, CSV and text (each parse mode), a UTF-8 byte order mark,
files compressed by Hadoop's codecs (chosen by extension), and CSV rows with too few or too many
fields, each read by `spark.read` and by `readStream`. Spark's answers are the oracle; where
Ember deliberately differs, docs/compatibility.md says so and the case is an expected failure."""

import bz2
import gzip
import os
import shutil
import struct
import subprocess
import zlib

import pytest

MODES = ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"]
BOM = b"\xef\xbb\xbf"

# One irregular line each, between two valid ones.
JSON_LINES = [
    ("invalid_byte", b'{"id":1,"s":"\xff"}'),
    ("invalid_byte_outside_a_string", b'{"id":1,\xff"s":"x"}'),
    ("invalid_continuation", b'{"id":1,"s":"\xc3(\x80z"}'),
    ("continuation_without_lead", b'{"id":1,"s":"a\x80b"}'),
    ("invalid_byte_in_an_unknown_field", b'{"id":1,"x":"\xfe","s":"k"}'),
    ("cut_off_sequence", b'{"id":1,"s":"\xe6\xbc"}'),
    ("cut_off_then_more_fields", b'{"s":"\xf0\x9f\x98" , "id":1}'),
    ("cut_off_in_an_unknown_field", b'{"id":1,"x":"\xc3","s":"k"}'),
    ("cut_off_then_more_text", b'{"id":1,"s":"\xc3"x}'),
    ("cut_off_twice", b'{"id":1,"s":"\xc3","id":"\xe0\xa0"}'),
    ("lone_surrogate", b'{"id":1,"s":"\xed\xa0\x80"}'),
    ("cesu8_pair", b'{"id":1,"s":"\xed\xa0\xbd\xed\xb8\x80"}'),
    ("past_u10ffff", b'{"id":1,"s":"\xf4\x90\x80\x80"}'),
    ("overlong", b'{"id":1,"s":"\xc0\xaf"}'),
    ("bom_at_a_line_start", BOM + b'{"id":1,"s":"b"}'),
    ("malformed_with_invalid_byte", b'{"id":1,"s":"\xff"'),
]
# Spark keeps the other fields of a record whose string value ends in a sequence cut off by its
# closing quote (Jackson reads the quote as the sequence's next byte, fails in that field's value
# only and goes on after it); Ember's general JSON reader (nested schemas) keeps no partial
# results, so the whole record is NULL there.
JSON_DIFFERENCES = {("cut_off_sequence", "PERMISSIVE"), ("cut_off_then_more_fields", "PERMISSIVE"),
                    ("cut_off_twice", "PERMISSIVE")}

CSV_LINES = [
    ("invalid_byte", b"1,\xffx"),
    ("cut_off_sequence", b"1,a\xe6\xbc"),
    ("cesu8_pair", b"1,\xed\xa0\xbd\xed\xb8\x80"),
    ("overlong", b"1,\xc0\xaf"),
    ("short_row", b"1"),
    ("long_row", b"1,c,extra"),
    ("long_row_with_invalid_byte", b"1,c,\xff"),
    ("value_that_does_not_convert", b"x,b"),
    ("short_row_with_a_bad_value", b"x"),
    ("bom_inside_the_file", BOM + b"1,b"),
    ("quoted_delimiter", b'1,"a,b"'),
    ("empty_fields", b"1,"),
]

TEXT_LINES = [
    ("invalid_byte", b"\xffx"),
    ("cut_off_sequence", b"a\xe6\xbc"),
    ("invalid_continuations", b"\xc3(\x80z"),
    ("lone_surrogate", b"\xed\xa0\x80"),
    ("cesu8_pair", b"\xed\xa0\xbd\xed\xb8\x80"),
    ("past_u10ffff", b"\xf4\x90\x80\x80"),
    ("overlong", b"\xc0\xaf"),
    ("bom_inside_the_file", BOM + b"y"),
]


def rows_or_failure(engine, read):
    """The rows a read gives (sorted by their text), or "malformed" when it fails."""
    try:
        rows = [tuple(r) for r in read().collect()]
    except Exception as error:
        text = str(error)
        text.encode("utf-8")  # a message that reaches Python is valid text
        if engine.name == "ember":
            assert "MALFORMED_RECORD_IN_PARSING" in text, text
        return "malformed"
    return rows


def stream_rows(engine, tmp_path, fmt, schema, options, source):
    """The rows a file stream over `source` gives, or "malformed" when the query fails."""
    reader = engine.spark.readStream.format(fmt)
    if schema:
        reader = reader.schema(schema)
    for key, value in options.items():
        reader = reader.option(key, value)
    name = f"bytes_{fmt}_{abs(hash(str(tmp_path))) % 10 ** 8}"
    query = (reader.load(str(source)).writeStream.format("memory").queryName(name)
             .option("checkpointLocation", str(tmp_path / "checkpoint")).start())
    try:
        query.processAllAvailable()
    except Exception as error:
        text = str(error)
        text.encode("utf-8")
        if engine.name == "ember":
            assert "MALFORMED_RECORD_IN_PARSING" in text, text
        return "malformed"
    finally:
        query.stop()
    rows = [tuple(r) for r in engine.spark.sql(f"SELECT * FROM {name}").collect()]
    engine.spark.catalog.dropTempView(name)
    return rows


def sorted_rows(rows):
    if rows is None or rows == "malformed":
        return rows
    return sorted(rows, key=lambda r: tuple((v is None, str(v)) for v in r))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reader", ["flat", "nested"])
@pytest.mark.parametrize("case", JSON_LINES, ids=[c[0] for c in JSON_LINES])
def test_json_bytes_read_as_spark_reads_them(engine, tmp_path, spark_answers, case, reader, mode,
                                             request):
    """A flat schema goes to Ember's JSON Lines decoder, one with a nested field to its general
    reader: the same rules (but for partial results, docs/compatibility.md)."""
    name, line = case
    if engine.name == "ember" and reader == "nested" and (name, mode) in JSON_DIFFERENCES:
        request.applymarker(pytest.mark.xfail(strict=True, reason="docs/compatibility.md"))
    source = tmp_path / "in"
    source.mkdir()
    (source / "data.json").write_bytes(b'{"id":0,"s":"before"}\n' + line + b'\n{"id":2,"s":"after"}\n')
    schema = "id INT, s STRING" + (", _corrupt_record STRING" if mode == "PERMISSIVE" else "")
    columns = ["id", "s"] + (["_corrupt_record"] if mode == "PERMISSIVE" else [])
    if reader == "nested":
        schema += ", a ARRAY<INT>"
    batch = rows_or_failure(
        engine, lambda: engine.spark.read.schema(schema).option("mode", mode).json(str(source))
        .select(*columns))
    stream = (stream_rows(engine, tmp_path, "json", schema, {"mode": mode}, source)
              if reader == "flat" else None)
    spark_answers.check(engine, f"json-{name}-{reader}-{mode}", (sorted_rows(batch), sorted_rows(stream)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("corrupt", [False, True], ids=["plain", "corrupt_column"])
@pytest.mark.parametrize("case", CSV_LINES, ids=[c[0] for c in CSV_LINES])
def test_csv_bytes_and_rows_read_as_spark_reads_them(engine, tmp_path, spark_answers, case,
                                                     corrupt, mode):
    name, line = case
    source = tmp_path / "in"
    source.mkdir()
    (source / "data.csv").write_bytes(b"0,before\n" + line + b"\n2,after\n")
    schema = "id INT, s STRING" + (", _corrupt_record STRING" if corrupt else "")
    batch = rows_or_failure(
        engine, lambda: engine.spark.read.schema(schema).option("mode", mode).csv(str(source)))
    stream = stream_rows(engine, tmp_path, "csv", schema, {"mode": mode}, source)
    spark_answers.check(engine, f"csv-{name}-{corrupt}-{mode}", (sorted_rows(batch), sorted_rows(stream)))


def test_text_bytes_read_as_spark_reads_them(engine, tmp_path, spark_answers):
    source = tmp_path / "in"
    source.mkdir()
    (source / "data.txt").write_bytes(b"".join(line + b"\n" for _, line in TEXT_LINES))
    batch = [r[0] for r in engine.spark.read.text(str(source)).collect()]
    assert len(batch) == len(TEXT_LINES)
    stream = sorted(r[0] for r in stream_rows(engine, tmp_path, "text", None, {}, source))
    spark_answers.check(engine, "text-lines", (batch, stream))


FORMATS = {
    "json": (b'{"id":1,"s":"a"}\n{"id":2,"s":"b"}\n', "id INT, s STRING, _corrupt_record STRING"),
    "csv": (b"1,a\n2,b\n", "id INT, s STRING, _corrupt_record STRING"),
    "text": (b"1,a\n2,b\n", None),
}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_byte_order_mark_at_the_start_of_a_file_is_skipped(engine, tmp_path, spark_answers, fmt):
    contents, schema = FORMATS[fmt]
    source = tmp_path / "in"
    source.mkdir()
    (source / f"data.{fmt}").write_bytes(BOM + contents)
    reader = engine.spark.read.format(fmt)
    if schema:
        reader = reader.schema(schema)
    batch = [tuple(r) for r in reader.load(str(source)).collect()]
    header = None
    if fmt == "csv":  # the header's first name has no BOM in it
        (tmp_path / "h.csv").write_bytes(BOM + b"id,s\n1,a\n")
        header = engine.spark.read.option("header", "true").csv(str(tmp_path / "h.csv")).columns
    stream = sorted(stream_rows(engine, tmp_path, fmt, schema, {}, source))
    spark_answers.check(engine, f"bom-{fmt}", (batch, header, stream))


def hadoop_blocks(data, compress, block=64 << 10, chunk=16 << 10):
    """Hadoop's BlockCompressorStream format: per block its length, then its chunks, each a
    length and a raw compressed block (several chunks per block, as Hadoop writes a large one)."""
    out = b""
    for start in range(0, len(data), block):
        piece = data[start:start + block]
        out += struct.pack(">I", len(piece))
        for at in range(0, len(piece), chunk):
            compressed = compress(piece[at:at + chunk])
            out += struct.pack(">I", len(compressed)) + compressed
    return out


def compressors():
    import pyarrow as pa

    def raw(codec):
        return lambda data: pa.compress(data, codec=codec, asbytes=True)

    def zstd(data):
        return subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout

    return {
        "gz": gzip.compress,
        "bz2": bz2.compress,
        "deflate": zlib.compress,  # Hadoop's DefaultCodec: zlib's format
        "zst": zstd,
        "lz4": lambda data: hadoop_blocks(data, raw("lz4_raw")),
        "snappy": lambda data: hadoop_blocks(data, raw("snappy")),
    }


# Spark's own Hadoop needs its native library for zstd (Ember reads the format Hadoop's
# ZStandardCodec writes); the Spark run reads the uncompressed bytes for it.
SPARK_CANNOT_READ = {"zst"}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("extension", ["gz", "bz2", "deflate", "zst", "lz4", "snappy"])
def test_compressed_files_are_decompressed_by_extension(engine, tmp_path, spark_answers, fmt,
                                                        extension):
    if extension == "zst" and shutil.which("zstd") is None:
        pytest.skip("no zstd command to write the file")
    _, schema = FORMATS[fmt]
    # Many rows, so that the block codecs' files have several blocks; gzip's two members.
    lines = [f'{{"id":{i},"s":"v{i}é"}}' if fmt == "json" else f"{i},v{i}é" for i in range(30000)]
    contents = ("\n".join(lines) + "\n").encode()
    source = tmp_path / "in"
    source.mkdir()
    if engine.name == "spark" and extension in SPARK_CANNOT_READ:
        (source / f"part-0.{fmt}").write_bytes(contents)
    else:
        compress = compressors()[extension]
        half = len(contents) // 2 // 100 * 100
        half = contents.index(b"\n", half) + 1
        data = (compress(contents[:half]) + compress(contents[half:]) if extension in ("gz", "bz2")
                else compress(contents))
        (source / f"part-0.{fmt}.{extension}").write_bytes(data)
    (source / f"part-1.{fmt}").write_bytes(BOM + contents[:40])
    reader = engine.spark.read.format(fmt).option("mode", "DROPMALFORMED")
    if schema:
        reader = reader.schema(schema)
    df = reader.load(str(source))
    summary = [tuple(r) for r in df.groupBy().agg(engine.F.count("*"), engine.F.max(df.columns[0])).collect()]
    stream = stream_rows(engine, tmp_path, fmt, schema, {"mode": "DROPMALFORMED"}, source)
    spark_answers.check(engine, f"compressed-{fmt}-{extension}",
                        (summary, len(stream), sorted_rows(stream)[:5]))


def test_a_damaged_compressed_file_is_an_error_naming_it_and_its_codec(engine, tmp_path):
    if engine.name != "ember":
        pytest.skip("Ember's message (Spark fails with FAILED_READ_FILE too, naming the file)")
    path = tmp_path / "rows.json.gz"
    path.write_bytes(gzip.compress(b'{"id":1}\n{"id":2}\n')[:-6])
    with pytest.raises(Exception) as error:
        engine.spark.read.schema("id INT").json(str(path)).collect()
    message = str(error.value)
    assert "FAILED_READ_FILE" in message and str(path) in message and "gzip" in message, message


# Bytes around every edge of UTF-8's rules: lead bytes of each length, continuation bytes, the
# surrogate range, overlong forms and bytes no UTF-8 has.
EDGE_BYTES = [b"a", b"z", b" ", b"\x80", b"\x8f", b"\x90", b"\x9f", b"\xa0", b"\xbd", b"\xbf",
              b"\xc0", b"\xc1", b"\xc2", b"\xc3", b"\xdf", b"\xe0", b"\xe6", b"\xed", b"\xef",
              b"\xf0", b"\xf4", b"\xf5", b"\xf7", b"\xf8", b"\xfe", b"\xff", "é".encode(),
              "漢".encode(), "😀".encode()]


def random_bytes_lines(seed, count):
    import random

    rng = random.Random(seed)
    return [b"".join(rng.choice(EDGE_BYTES) for _ in range(rng.randrange(1, 9))) for _ in range(count)]


def test_random_bytes_in_text_and_csv_read_as_spark_reads_them(engine, tmp_path, spark_answers):
    lines = random_bytes_lines(7, 400)
    (tmp_path / "data.txt").write_bytes(b"".join(line + b"\n" for line in lines))
    text = [r[0] for r in engine.spark.read.text(str(tmp_path / "data.txt")).collect()]
    (tmp_path / "data.csv").write_bytes(b"".join(b"%d,%s\n" % (i, line) for i, line in enumerate(lines)))
    csv = sorted(tuple(r) for r in engine.spark.read.schema("id INT, s STRING")
                 .csv(str(tmp_path / "data.csv")).collect())
    spark_answers.check(engine, "random-bytes-text-csv", (text, csv))


@pytest.mark.parametrize("mode", ["PERMISSIVE", "DROPMALFORMED"])
def test_random_bytes_in_json_strings_read_as_spark_reads_them(engine, tmp_path, spark_answers, mode):
    """Which records are malformed, what their strings hold, and in PERMISSIVE mode which fields
    a malformed record keeps (the string field first or last, so that a sequence cut off by the
    closing quote is followed by the next member or by the object's end)."""
    lines = random_bytes_lines(11, 400)
    (tmp_path / "data.json").write_bytes(b"".join(
        (b'{"id":%d,"s":"%s"}\n' % (i, line) if i % 2 else b'{"s":"%s", "id":%d}\n' % (line, i))
        for i, line in enumerate(lines)))
    schema = "id INT, s STRING" + (", _corrupt_record STRING" if mode == "PERMISSIVE" else "")
    rows = sorted_rows([tuple(r) for r in engine.spark.read.schema(schema).option("mode", mode)
                        .json(str(tmp_path / "data.json")).collect()])
    assert len(rows) == len(lines) if mode == "PERMISSIVE" else 0 < len(rows) < len(lines)
    spark_answers.check(engine, f"random-bytes-json-{mode}", rows)


INFERENCE = [
    ("csv_rows_of_every_length", "csv", {}, b"1,a,x\n2,b\n3,c,y,extra\n"),
    ("csv_rows_of_every_length_inferred", "csv", {"inferSchema": "true"}, b"1,a,x\n2,b\n3,c,y,extra\n"),
    ("csv_header_with_bom_and_invalid_byte", "csv", {"header": "true"}, BOM + b"id,s\n1,\xffa\n2,b\n"),
    # Spark's makeSafeHeader: names given twice (in any case) get their index, empty ones _cN.
    ("csv_header_naming_a_column_twice", "csv", {"header": "true", "inferSchema": "true"},
     b"0,2,3.,2,3,,A,a\n1,x,2.5,7,y,z,1,q\n"),
    ("json_invalid_byte", "json", {}, b'{"id":1,"s":"\xff"}\n{"id":2,"s":"b"}\n'),
    ("json_invalid_byte_dropped", "json", {"mode": "DROPMALFORMED"}, b'{"id":1,"s":"\xff"}\n{"id":2,"s":"b"}\n'),
    ("json_bom_and_cesu8", "json", {}, BOM + b'{"id":1,"s":"\xed\xa0\xbd\xed\xb8\x80"}\n'),
    ("json_gzip", "json", {}, "gz"),
]


@pytest.mark.parametrize("case", INFERENCE, ids=[c[0] for c in INFERENCE])
def test_schemas_are_inferred_from_the_same_bytes_as_spark(engine, tmp_path, spark_answers, case):
    name, fmt, options, contents = case
    path = tmp_path / f"data.{fmt}"
    if contents == "gz":
        path = tmp_path / f"data.{fmt}.gz"
        contents = gzip.compress(b'{"id":1,"s":"a"}\n{"id":2.5}\n')
    path.write_bytes(contents)
    reader = engine.spark.read.format(fmt)
    for key, value in options.items():
        reader = reader.option(key, value)
    df = reader.load(str(path))
    spark_answers.check(engine, f"inference-{name}", (df.dtypes, sorted_rows([tuple(r) for r in df.collect()])))
