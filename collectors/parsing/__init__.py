"""Parsing shared by every network platform (config trees, ACL and port grammar, address and range
helpers, show-command dispatch, NAPALM getter reading). No platform owns it; platforms import from here
and never from one another."""
