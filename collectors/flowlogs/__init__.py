"""VPC flow-log records: field layouts, a reference line reader, and the DuckDB engine that aggregates
many objects (S3 text or Parquet, CloudWatch pages) into conversations, streaming."""
