"""Distributed collection: one Celery task per target, workers on any machine, one PostgreSQL store.

How the hash chain stays one verifiable line when captures come from many processes: every worker appends
a target's captures itself, in batches, each batch one transaction that first takes the run's chain lock
(a PostgreSQL transaction-scoped advisory lock keyed by the run, see RunWriter.shared_append) and then
reads the chain head from the store. So appends are serialised across machines; each link follows the
one committed before it; seq numbers stay contiguous (and unique per run, a constraint); fact ids grow in
commit order (the running facts digest relies on it). The coordinator seals under the same lock, so no
append lands between reading the head and sealing it. The order of captures in the chain is the order
in which the batches committed, as in the local executor it is the order in which captures arrived:
fixed once written, and what `verify` walks.

Idempotent tasks (a task is acknowledged late, so a worker killed mid-task has it redelivered): under
the lock a batch re-reads what its target already stored and skips each capture it already holds,
keyed by (run, target, format, source, origin) and the occurrence of that key in the target's stream,
and each stand-alone problem likewise; a target already finished is not touched again. A redelivered
task thus stores only what the dead worker had not committed, and two workers that happen to run one
target at once store it once.

Nothing secret crosses the broker: a task names the run and the target; the worker plans the target
again from the run's stored config (which holds references to secrets, never secrets) and reads the
credentials from its own environment. Celery is imported only here, when this executor or a worker is
used.
"""
