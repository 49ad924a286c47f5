"""Maps, value extraction and higher-order functions (lambdas) through the real PySpark Connect
client: functions arrive by name, lambdas as Connect's lambda functions, maps come back as
Arrow maps (Python dicts). Expected values, types, nullability and
column names were recorded from Spark 4.0.1 on the same statements; aggregates over map columns
are checked against DuckDB on the same rows."""

import duckdb
import pytest
from pyspark.errors import PySparkException
from pyspark.sql import Row
from pyspark.sql import functions as F

# (statement, Spark's schema, Spark's nullability, Spark's rows)
SPARK = [
    ("select map('a',1,'b',2) as m", "struct<m:map<string,int>>", [False],
     [Row(m={"a": 1, "b": 2})]),
    ("select map('a',1,'b',2)['c'] as x, element_at(map('a',1),'c') as y",
     "struct<x:int,y:int>", [True, True], [Row(x=None, y=None)]),
    ("select map('a',1,'b',2)['a']", "struct<map(a, 1, b, 2)[a]:int>", [True],
     [Row(**{"map(a, 1, b, 2)[a]": 1})]),
    ("select array(1,2)[1]", "struct<array(1, 2)[1]:int>", [False], [Row(**{"array(1, 2)[1]": 2})]),
    ("select map() as m", "struct<m:map<void,void>>", [False], [Row(m={})]),
    ("select size(map('a',1)) as s, cardinality(map()) as c", "struct<s:int,c:int>",
     [False, False], [Row(s=1, c=0)]),
    ("select explode(map('a',1,'b',2))", "struct<key:string,value:int>", [False, False],
     [Row(key="a", value=1), Row(key="b", value=2)]),
    ("select posexplode(map('a',1,'b',2))", "struct<pos:int,key:string,value:int>",
     [False, False, False], [Row(pos=0, key="a", value=1), Row(pos=1, key="b", value=2)]),
    ("select map_keys(map('a',1,'b',null)) as k, map_values(map('a',1,'b',null)) as v, "
     "map_entries(map('a',1)) as e",
     "struct<k:array<string>,v:array<int>,e:array<struct<key:string,value:int>>>",
     [False, False, False], [Row(k=["a", "b"], v=[1, None], e=[Row(key="a", value=1)])]),
    ("select map_from_arrays(array('a','b'), array(1,2)) as m", "struct<m:map<string,int>>",
     [False], [Row(m={"a": 1, "b": 2})]),
    ("select map_from_entries(array(struct('a',1), struct('b',2))) as m",
     "struct<m:map<string,int>>", [False], [Row(m={"a": 1, "b": 2})]),
    ("select map_contains_key(map('a',1),'a') as x, map_contains_key(map('a',1),'z') as y, "
     "map_contains_key(map(1,1), 1.5) as z",
     "struct<x:boolean,y:boolean,z:boolean>", [True, True, True], [Row(x=True, y=False, z=False)]),
    ("select map_concat(map('a',1), map('b',2)) as m", "struct<m:map<string,int>>", [False],
     [Row(m={"a": 1, "b": 2})]),
    ("select map_concat() as m", "struct<m:map<string,string>>", [False], [Row(m={})]),
    ("select str_to_map('a:1,b:2') as x, str_to_map('a=1;b', ';', '=') as y, "
     "str_to_map('a:1,,b', ',', ':') as z, str_to_map('a1b2c', '[0-9]', 'x') as w",
     "struct<x:map<string,string>,y:map<string,string>,z:map<string,string>,"
     "w:map<string,string>>", [False, False, False, False],
     [Row(x={"a": "1", "b": "2"}, y={"a": "1", "b": None}, z={"": None, "a": "1", "b": None},
          w={"a": None, "b": None, "c": None})]),
    ("select map('k', array(1,2), 'j', null) as m", "struct<m:map<string,array<int>>>", [False],
     [Row(m={"j": None, "k": [1, 2]})]),
    ("select map(1, map('x', 1)) as m", "struct<m:map<int,map<string,int>>>", [False],
     [Row(m={1: {"x": 1}})]),
    ("select try_element_at(array(1), 5) as a, try_element_at(map('a',1),'z') as b",
     "struct<a:int,b:int>", [True, True], [Row(a=None, b=None)]),
    ("select get(array(1,2), 5) as a, get(array(1,2), 0) as b, get(array(1,2), -1) as c",
     "struct<a:int,b:int,c:int>", [True, False, True], [Row(a=None, b=1, c=None)]),
    ("select map(1,'a')['1'] as a, map(1,'a')[1.0] as b, element_at(map(1L, 'a'), 1) as c",
     "struct<a:string,b:string,c:string>", [True, True, True], [Row(a="a", b="a", c="a")]),
    ("select named_struct('a', 1).a, named_struct('a',1)['a'] as b",
     "struct<named_struct(a, 1).a:int,b:int>", [False, False],
     [Row(**{"named_struct(a, 1).a": 1, "b": 1})]),
    ("select array(named_struct('x',1))[0].x as x", "struct<x:int>", [False], [Row(x=1)]),
    ("select explode_outer(map('a',1)), inline(array(named_struct('p',1,'q','x')))",
     "struct<key:string,value:int,p:int,q:string>", [True, True, False, False],
     [Row(key="a", value=1, p=1, q="x")]),
    ("select inline_outer(cast(null as array<struct<p:int,q:string>>))",
     "struct<p:int,q:string>", [True, True], [Row(p=None, q=None)]),
    ("select explode(map('a', 1)) as (k, v)", "struct<k:string,v:int>", [False, False],
     [Row(k="a", v=1)]),
    ("select map_entries(map('a', 1))[0].key as k", "struct<k:string>", [True], [Row(k="a")]),
]


# Higher-order functions over these rows (Spark 4.0.1's results recorded on the same view).
ROWS = [(1, [1, 2, None], {"a": 1, "b": 2}), (2, None, None), (3, [], {})]
SPARK += [
    ("select id, transform(a, x -> x + 1) as r from t order by id", "struct<id:int,r:array<int>>",
     [True, True], [Row(id=1, r=[2, 3, None]), Row(id=2, r=None), Row(id=3, r=[])]),
    ("select id, transform(a, (x, i) -> x * i + id) as r from t order by id",
     "struct<id:int,r:array<int>>", [True, True],
     [Row(id=1, r=[1, 3, None]), Row(id=2, r=None), Row(id=3, r=[])]),
    ("select id, filter(a, x -> x > 1) as r, filter(a, (x, i) -> i > 0) as s from t order by id",
     "struct<id:int,r:array<int>,s:array<int>>", [True, True, True],
     [Row(id=1, r=[2], s=[2, None]), Row(id=2, r=None, s=None), Row(id=3, r=[], s=[])]),
    ("select id, exists(a, x -> x > 1) as e, forall(a, x -> x > 0) as f, "
     "exists(a, x -> x > 5) as g from t order by id", "struct<id:int,e:boolean,f:boolean,g:boolean>",
     [True, True, True, True], [Row(id=1, e=True, f=None, g=None), Row(id=2, e=None, f=None, g=None),
                                Row(id=3, e=False, f=True, g=False)]),
    ("select id, aggregate(a, 0L, (acc, x) -> acc + coalesce(x, 0), acc -> acc * 10) as s "
     "from t order by id", "struct<id:int,s:bigint>", [True, True],
     [Row(id=1, s=30), Row(id=2, s=None), Row(id=3, s=0)]),
    ("select id, reduce(a, 0, (acc, x) -> acc + coalesce(x, 0)) as s from t order by id",
     "struct<id:int,s:int>", [True, True], [Row(id=1, s=3), Row(id=2, s=None), Row(id=3, s=0)]),
    ("select id, map_filter(m, (k, v) -> v > 1) as r from t order by id",
     "struct<id:int,r:map<string,int>>", [True, True],
     [Row(id=1, r={"b": 2}), Row(id=2, r=None), Row(id=3, r={})]),
    ("select id, transform_values(m, (k, v) -> v * 10) as r, "
     "transform_keys(m, (k, v) -> upper(k)) as s from t order by id",
     "struct<id:int,r:map<string,int>,s:map<string,int>>", [True, True, True],
     [Row(id=1, r={"a": 10, "b": 20}, s={"A": 1, "B": 2}), Row(id=2, r=None, s=None),
      Row(id=3, r={}, s={})]),
    ("select transform(array(array(1,2), array(3)), x -> transform(x, y -> y + size(x)))",
     "struct<transform(array(array(1, 2), array(3)), lambdafunction(transform("
     "namedlambdavariable(), lambdafunction((namedlambdavariable() + size(namedlambdavariable())),"
     " namedlambdavariable())), namedlambdavariable())):array<array<int>>>", [False],
     [Row([[3, 4], [4]])]),
]


@pytest.fixture(scope="module", autouse=True)
def _view(spark):
    spark.createDataFrame(ROWS, "id INT, a ARRAY<INT>, m MAP<STRING,INT>").createOrReplaceTempView("t")


@pytest.mark.parametrize("sql,schema,nullable,rows", SPARK, ids=[s for s, *_ in SPARK])
def test_map_statements_are_sparks(spark, sql, schema, nullable, rows):
    df = spark.sql(sql)
    assert df.schema.simpleString() == schema
    assert [f.nullable for f in df.schema.fields] == nullable
    assert df.collect() == rows


# (statement, Spark's error condition)
SPARK_ERRORS = [
    ("select array(1,2)[5]", "INVALID_ARRAY_INDEX"),
    ("select array(1,2)[-1]", "INVALID_ARRAY_INDEX"),
    ("select try_element_at(array(1), 0)", "INVALID_INDEX_OF_ZERO"),
    ("select map('a',1,'a',2)", "DUPLICATED_MAP_KEY"),
    ("select map_concat(map('a',1), map('a',2))", "DUPLICATED_MAP_KEY"),
    ("select map(null,1)", "NULL_MAP_KEY"),
    ("select map_from_arrays(array('a',null), array(1,2))", "NULL_MAP_KEY"),
    ("select map_from_entries(array(struct(null,1)))", "NULL_MAP_KEY"),
    ("select map('a', 1, 'b')", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("select map(map(1,1), 1)", "DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE"),
    ("select element_at(map(1,'a'), 1.0)", "DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES"),
    ("select map('a',1) = map('a',1)", "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE"),
    ("select map_contains_key(map('a',1), null)", "DATATYPE_MISMATCH.NULL_TYPE"),
    ("select map_concat(map('a',1), null)", "DATATYPE_MISMATCH.MAP_CONCAT_DIFF_TYPES"),
    ("select map_concat(map('a',1), map(2,2))", "DATATYPE_MISMATCH.DATA_DIFF_TYPES"),
    ("select map_from_entries(null)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    ("select array(1,2)['1']", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    ("select named_struct('a',1)[1]", "INVALID_EXTRACT_FIELD_TYPE"),
    ("select (1)[0]", "INVALID_EXTRACT_BASE_FIELD_TYPE"),
    ("select abs(1) as (a, b)", "MULTI_ALIAS_WITHOUT_GENERATOR"),
    ("select transform_keys(map('a',1,'b',2), (k, v) -> 'x')", "DUPLICATED_MAP_KEY"),
    ("select filter(array(1,2), x -> x)", "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    ("select aggregate(array(1,2), 0, (acc, x) -> acc + 0.5)",
     "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"),
    ("select transform(array(1,2), (x, i, j) -> x)", "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH"),
    ("select abs(x -> x)", "INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION"),
]


@pytest.mark.parametrize("sql,condition", SPARK_ERRORS, ids=[s for s, _ in SPARK_ERRORS])
def test_map_errors_are_sparks(spark, sql, condition):
    with pytest.raises(PySparkException) as error:
        spark.sql(sql).collect()
    assert error.value.getCondition() == condition


def test_map_columns_through_the_dataframe_api(spark):
    df = spark.createDataFrame([({"a": 1, "b": None},), (None,)], "m map<string,int>")
    picked = df.select(df.m["a"], df.m.getItem("b"), df.m.a, F.col("m")["z"], F.col("m.a"))
    # Spark's names: m[a] for a map's value, the last part of a column path.
    assert picked.columns == ["m[a]", "m[b]", "m[a]", "m[z]", "a"]
    assert picked.collect() == [Row(1, None, 1, None, 1), Row(None, None, None, None, None)]
    made = df.select(F.create_map(F.lit("x"), F.lit(1)))
    assert made.columns == ["map(x, 1)"]
    assert made.first()[0] == {"x": 1}
    exploded = df.select(F.explode(df.m).alias("k", "v"))
    assert exploded.columns == ["k", "v"]
    assert sorted(exploded.collect()) == [Row(k="a", v=1), Row(k="b", v=None)]
    outer = df.select(F.posexplode_outer(df.m))
    assert outer.schema.simpleString() == "struct<pos:int,key:string,value:int>"
    assert outer.count() == 3


def test_map_aggregates_against_duckdb(spark):
    rows = [(i, {f"k{j}": i * j for j in range(i % 4)}) for i in range(40)]
    df = spark.createDataFrame(rows, "id INT, m MAP<STRING, INT>")
    totals = (df.select(F.explode("m").alias("k", "v")).groupBy("k")
              .agg(F.sum("v").alias("total"), F.count("*").alias("n")))
    got = sorted(tuple(r) for r in totals.collect())
    con = duckdb.connect()
    con.execute("CREATE TABLE t(id INTEGER, m MAP(VARCHAR, INTEGER))")
    con.executemany("INSERT INTO t VALUES (?, MAP(?, ?))",
                    [(i, list(m.keys()), list(m.values())) for i, m in rows])
    expected = sorted(con.execute(
        "SELECT k, sum(v), count(*) FROM (SELECT unnest(map_keys(m)) AS k, "
        "unnest(map_values(m)) AS v FROM t) GROUP BY k").fetchall())
    assert got == expected
    sizes = sorted(tuple(r) for r in df.select("id", F.size("m"), df.m["k2"]).collect())
    expected_sizes = sorted(con.execute(
        "SELECT id, cardinality(m), m['k2'] FROM t").fetchall())
    assert sizes == expected_sizes


def test_lambdas_through_the_dataframe_api(spark):
    df = spark.table("t")
    out = df.select(
        "id", F.transform("a", lambda x: x * 2).alias("d"), F.filter("a", lambda x, i: i < 2),
        F.exists("a", lambda x: x.isNull()),
        F.aggregate("a", F.lit(0), lambda acc, x: acc + F.coalesce(x, F.lit(0))),
        F.transform_values("m", lambda k, v: v + F.col("id"))).orderBy("id")
    # Spark's names for the Connect client's lambdas (recorded from Spark 4.0.1).
    assert out.columns[2:] == [
        "filter(a, lambdafunction((namedlambdavariable() < 2), namedlambdavariable(), "
        "namedlambdavariable()))",
        "exists(a, lambdafunction((namedlambdavariable() IS NULL), namedlambdavariable()))",
        "aggregate(a, 0, lambdafunction((namedlambdavariable() + coalesce(namedlambdavariable(), "
        "0)), namedlambdavariable(), namedlambdavariable()), lambdafunction(namedlambdavariable(),"
        " namedlambdavariable()))",
        "transform_values(m, lambdafunction((namedlambdavariable() + id), namedlambdavariable(), "
        "namedlambdavariable()))"]
    assert [tuple(r) for r in out.collect()] == [
        (1, [2, 4, None], [1, 2], True, 3, {"a": 2, "b": 3}),
        (2, None, None, None, None, None),
        (3, [], [], False, 0, {})]


def test_lambdas_against_duckdb(spark):
    rows = [(i, [j * i - 7 for j in range(i % 6)] or None) for i in range(60)]
    df = spark.createDataFrame(rows, "id INT, a ARRAY<INT>")
    got = sorted(tuple(r) for r in df.select(
        "id", F.transform("a", lambda x: x * 2 + F.col("id")), F.filter("a", lambda x: x > 0),
        F.aggregate("a", F.lit(0), lambda acc, x: acc + x)).collect())
    con = duckdb.connect()
    con.execute("CREATE TABLE r(id INTEGER, a INTEGER[])")
    con.executemany("INSERT INTO r VALUES (?, ?)", rows)
    expected = sorted(con.execute(
        "SELECT id, list_transform(a, x -> x * 2 + id), list_filter(a, x -> x > 0), "
        "CASE WHEN a IS NULL THEN NULL ELSE list_reduce(list_prepend(0, a), (acc, x) -> acc + x) END "
        "FROM r").fetchall())
    assert got == expected
