"""The schemas of the benchmarks' inputs (bench/data.py writes them), apart from the data
generator so that the workloads read them without importing it."""

EVENT_SCHEMA = "event_id BIGINT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP"

PERSON_SCHEMA = ("id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
                 "state STRING, dateTime TIMESTAMP, extra STRING")
AUCTION_SCHEMA = ("id BIGINT, itemName STRING, description STRING, initialBid BIGINT, "
                  "reserve BIGINT, dateTime TIMESTAMP, expires TIMESTAMP, seller BIGINT, "
                  "category BIGINT, extra STRING")
BID_SCHEMA = ("auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
              "dateTime TIMESTAMP, extra STRING")
