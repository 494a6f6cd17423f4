"""Live AWS collection through boto3: read-only, one target per account and region."""
