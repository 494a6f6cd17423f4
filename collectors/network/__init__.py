"""Live network devices, collected read-only: NAPALM where it has a driver, Netmiko where it has none.

`commands.py` is what is sent per platform, `readonly.py` the one guard every line passes first,
`collector.py` the `devices` collector the pipeline runs."""
