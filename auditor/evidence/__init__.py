"""The evidence chain: redaction, hashing, chaining and verification of raw captures."""
