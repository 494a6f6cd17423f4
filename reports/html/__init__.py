"""The HTML report: one self-contained file (inline CSS and script, no fetches) for reading in a browser."""
