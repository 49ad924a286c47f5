"""pyspark.sql on Ember."""

from ember.sql.column import Column
from ember.sql.dataframe import DataFrame
from ember.sql.group import GroupedData
from ember.sql.observation import Observation
from ember.sql.readwriter import DataFrameReader
from ember.sql.session import SparkSession
from ember.sql.types import Row

__all__ = ["Column", "DataFrame", "DataFrameReader", "GroupedData", "Observation", "Row",
           "SparkSession"]
