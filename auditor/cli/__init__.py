"""The `auditor` command line. Only the CLI turns errors into exit codes."""
