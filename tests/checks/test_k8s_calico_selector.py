"""Calico selector expressions: parsing and three-valued evaluation (docs.tigera.io "Selectors";
`!=` and `not in` as libcalico-go evaluates them: true when the label is absent)."""

from __future__ import annotations

import pytest

from checks.k8s import calico_selector as cs

LABELS = {"app": "web", "tier": "frontend", "projectcalico.org/namespace": "team-a"}


@pytest.mark.parametrize(
    ("expr", "want"),
    [
        ("", True),
        ("all()", True),
        ("global()", False),
        ("app == 'web'", True),
        ('app == "db"', False),
        ("app != 'db'", True),
        ("missing != 'x'", True),  # absent label: libcalico-go's LabelNeValueNode returns true
        ("has(tier)", True),
        ("!has(tier)", False),
        ("app in {'web', 'api'}", True),
        ("app not in {'web'}", False),
        ("missing not in {'a'}", True),
        ("missing in {'a'}", False),
        ("app contains 'e'", True),
        ("app starts with 'w'", True),
        ("app ends with 'x'", False),
        ("app == 'web' && tier == 'backend'", False),
        ("app == 'db' || tier == 'frontend'", True),
        ("!(app == 'db' || tier == 'backend') && has(app)", True),
        ("projectcalico.org/namespace not in {'kube-system', 'calico-system'}", True),
    ],
)
def test_evaluates_like_calico(expr: str, want: bool) -> None:
    assert cs.evaluate(cs.parse(expr), LABELS) is want


def test_unknown_keys_make_the_answer_depend_on_pod_labels() -> None:
    known = {"projectcalico.org/namespace": "team-a"}

    def is_known(key: str) -> bool:
        return key == "projectcalico.org/namespace"

    ns_only = cs.parse("projectcalico.org/namespace == 'team-a'")
    pod_term = cs.parse("projectcalico.org/namespace == 'team-a' && app == 'web'")
    other_ns = cs.parse("projectcalico.org/namespace == 'team-b' && app == 'web'")
    either = cs.parse("projectcalico.org/namespace == 'team-a' || app == 'web'")
    assert cs.evaluate(ns_only, known, is_known) is True
    assert cs.evaluate(pod_term, known, is_known) is None  # some pods of team-a
    assert cs.evaluate(other_ns, known, is_known) is False  # decided by the known key alone
    assert cs.evaluate(either, known, is_known) is True
    assert cs.evaluate(cs.parse("!has(app)"), known, is_known) is None


def test_keys_lists_every_label_read() -> None:
    expr = cs.parse("a == 'x' && (has(b) || c not in {'y'})")
    assert cs.keys(expr) == {"a", "b", "c"}


@pytest.mark.parametrize(
    "bad", ["app === 'x'", "app == web", "has(app", "app in {'a'", "app ~ 'x'", "&& a == 'b'"]
)
def test_malformed_expressions_are_refused(bad: str) -> None:
    with pytest.raises(cs.SelectorError):
        cs.parse(bad)
