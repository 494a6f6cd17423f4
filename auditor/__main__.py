"""`python -m auditor` is the same as the `auditor` console script."""

from auditor.cli.app import main

main()
