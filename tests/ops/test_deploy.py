"""The deployables in deploy/: the image, the Kubernetes CronJob and its RBAC, the systemd units.

Each is held to something that can fail: the ClusterRole to `auditor permissions k8s` (so they cannot
drift), the manifests to the Kubernetes API models, the units to `systemd-analyze verify`, the image to a
real build when a container engine runs here, else its content (the wheel built from exactly what the
Dockerfile copies) to an install that audits the example lab outside the source tree."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client
from kubernetes import config as kube_config

from auditor.config.loader import load_config
from tests.ops.test_scheduler import WAIT, lab_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "kubernetes"
SERVICE_ACCOUNT = "segmentation-auditor/segmentation-auditor"


def docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def test_rbac_is_what_permissions_k8s_prints() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "auditor", "permissions", "k8s", "--service-account", SERVICE_ACCOUNT],
        capture_output=True,
        text=True,
        check=True,
        timeout=WAIT,
    ).stdout
    shipped = docs(K8S / "rbac.yaml")
    assert shipped == [d for d in yaml.safe_load_all(printed) if d is not None], (
        "deploy/kubernetes/rbac.yaml differs from `auditor permissions k8s --service-account "
        f"{SERVICE_ACCOUNT}`: regenerate it"
    )
    (role,) = [d for d in shipped if d["kind"] == "ClusterRole"]
    assert {v for rule in role["rules"] for v in rule["verbs"]} == {"list", "get"}  # read-only


def test_the_cronjob_runs_as_the_bound_service_account() -> None:
    (sa,) = docs(K8S / "serviceaccount.yaml")
    (cronjob,) = docs(K8S / "cronjob.yaml")
    pod = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    namespace, name = SERVICE_ACCOUNT.split("/")
    assert (sa["metadata"]["namespace"], sa["metadata"]["name"]) == (namespace, name)
    assert cronjob["metadata"]["namespace"] == namespace and pod["serviceAccountName"] == name
    for binding in (d for d in docs(K8S / "rbac.yaml") if d["kind"].endswith("Binding")):
        assert binding["subjects"] == [{"kind": "ServiceAccount", "namespace": namespace, "name": name}]
    assert cronjob["spec"]["concurrencyPolicy"] == "Forbid"
    assert pod["securityContext"]["runAsNonRoot"] is True
    (container,) = pod["containers"]
    assert container["args"][0] == "audit" and container["securityContext"]["readOnlyRootFilesystem"]


@pytest.mark.parametrize("name", ["namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "cronjob.yaml"])
def test_manifests_are_valid_kubernetes_objects(name: str) -> None:
    """Each object read into the Kubernetes client's model of its kind and written back unchanged: a
    misspelt or misplaced field would be dropped on the way and show as a difference."""
    api = client.ApiClient()
    for doc in docs(K8S / name):
        group_version = doc["apiVersion"].split("/")[-1].capitalize()
        model = f"{group_version}{doc['kind']}"
        obj = api._ApiClient__deserialize(doc, model)
        assert api.sanitize_for_serialization(obj) == doc, f"{name}: {doc['kind']} has fields {model} lacks"


def test_the_sample_config_and_in_cluster_kubeconfig_load(tmp_path: Path) -> None:
    """The CronJob's config validates, and its kubeconfig gives the client the pod's token and CA."""
    cfg = load_config(K8S / "auditor.yaml")
    (source,) = cfg.sources.kubernetes
    assert source.kubeconfig is not None and cfg.resolve(source.kubeconfig) == K8S / "kubeconfig.yaml"
    token, ca = tmp_path / "token", tmp_path / "ca.crt"
    token.write_text("projected-token")  # a projected token: a JWT, no newline
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    text = (
        (K8S / "kubeconfig.yaml")
        .read_text()
        .replace("/var/run/secrets/kubernetes.io/serviceaccount", str(tmp_path))
    )
    (tmp_path / "kubeconfig").write_text(text)
    configuration = client.Configuration()
    kube_config.load_kube_config(
        str(tmp_path / "kubeconfig"), client_configuration=configuration, persist_config=False
    )
    assert configuration.host == "https://kubernetes.default.svc"
    assert list(configuration.api_key.values()) == ["Bearer projected-token"]  # read from tokenFile
    assert configuration.ssl_ca_cert == str(ca) and configuration.verify_ssl


def test_kustomize_base_builds(tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed here: the Kustomize base was not built")
    built = subprocess.run(
        [kubectl, "kustomize", str(K8S)], capture_output=True, text=True, check=True, timeout=WAIT
    ).stdout
    objects = [d for d in yaml.safe_load_all(built) if d]
    kinds = sorted(d["kind"] for d in objects)
    assert kinds == sorted(
        [
            "Namespace",
            "ServiceAccount",
            "ClusterRole",
            "Role",
            "ClusterRoleBinding",
            "RoleBinding",
            "ConfigMap",
            "CronJob",
        ]
    )
    (config_map,) = [d for d in objects if d["kind"] == "ConfigMap"]
    (cronjob,) = [d for d in objects if d["kind"] == "CronJob"]
    volumes = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["volumes"]
    assert {"name": "config", "configMap": {"name": config_map["metadata"]["name"]}} in volumes
    (role,) = [d for d in objects if d["kind"] == "Role"]
    assert role["metadata"]["namespace"] == "kube-system"  # not moved into the auditor's namespace
    for name, body in config_map["data"].items():
        (tmp_path / name).write_text(body)
    assert load_config(tmp_path / "auditor.yaml").sources.kubernetes  # what the pod reads validates


def test_systemd_units_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here: the units were not verified")
    auditor = shutil.which("auditor") or pytest.fail("the auditor console script is not installed")
    units = sorted((DEPLOY / "systemd").glob("*.service")) + sorted((DEPLOY / "systemd").glob("*.timer"))
    assert {u.name for u in units} == {
        "segmentation-auditor.service",
        "segmentation-auditor.timer",
        "segmentation-auditor-scheduler.service",
    }
    for unit in units:  # verify checks that ExecStart exists: point it at this machine's auditor
        (tmp_path / unit.name).write_text(unit.read_text().replace("/usr/local/bin/auditor", auditor))
    done = subprocess.run(
        [analyze, "verify", "--man=no", *(str(tmp_path / u.name) for u in units)],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr  # unknown keys only warn
    for unit in units:
        for line in unit.read_text().splitlines():
            if line.startswith("ExecStart="):  # the options the units pass are the CLI's
                argv = line.removeprefix("ExecStart=").split()[1:]
                helped = subprocess.run(
                    [sys.executable, "-m", "auditor", argv[0], "--help"],
                    capture_output=True,
                    text=True,
                    timeout=WAIT,
                ).stdout
                for option in (a for a in argv if a.startswith("--")):
                    assert option in helped, f"{unit.name}: {option} is not an option of `auditor {argv[0]}`"


def _dockerfile_copies() -> list[str]:
    text = (DEPLOY / "Dockerfile").read_text()
    return [m.group(1) for m in re.finditer(r"^COPY (?!--from)(\S+) ", text, re.M)]


def test_dockerfile_is_non_root_and_copies_every_package() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert re.search(r"^USER 10001:10001$", text, re.M) and 'ENTRYPOINT ["auditor"]' in text
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    copied = {c.rstrip("/") for c in _dockerfile_copies()}
    assert packages <= copied, f"the Dockerfile does not copy {sorted(packages - copied)}"
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    for name in [*sorted(packages), "pyproject.toml", "README.md"]:
        assert f"!{name}/" in ignored or f"!{name}" in ignored, f".dockerignore leaves out {name}"


def _engine() -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        return None
    info = subprocess.run([docker, "info"], capture_output=True, timeout=60)
    return docker if info.returncode == 0 else None


def test_image_builds_and_runs_as_non_root() -> None:
    docker = _engine()
    if docker is None:
        pytest.skip(
            "no container engine runs here (the docker client is installed but no daemon answers, and "
            "neither dockerd nor podman is installed): the image was not built"
        )
    tag = "segmentation-auditor:test"
    subprocess.run(
        [docker, "build", "-f", str(DEPLOY / "Dockerfile"), "-t", tag, str(ROOT)], check=True, timeout=1800
    )
    version = subprocess.run(
        [docker, "run", "--rm", tag, "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout.startswith("auditor ")
    uid = subprocess.run(
        [docker, "run", "--rm", "--entrypoint", "id", tag, "-u"], capture_output=True, text=True
    )
    assert uid.stdout.strip() == "10001"


def test_image_content_installs_and_audits_outside_the_source_tree(tmp_path: Path) -> None:
    """What the image's build stage does, without an engine: a wheel from exactly the files the
    Dockerfile copies, installed into a virtualenv, audits the example lab from another directory."""
    if importlib.util.find_spec("wheel") is None:
        pytest.skip("the `wheel` package is not installed: the wheel could not be built offline")
    src = tmp_path / "src"
    src.mkdir()
    for name in _dockerfile_copies():
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, src / name)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True).create(env_dir)  # dependencies from this environment
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(src)],
        check=True,
        timeout=WAIT,
        capture_output=True,
    )
    work = tmp_path / "work"
    work.mkdir()
    config = lab_config(work)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [str(python), "-c", "import auditor, reports.mappings as m; print(auditor.__file__, m.MAPPINGS_DIR)"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=WAIT,
    ).stdout
    assert str(env_dir) in where and str(ROOT) not in where  # the installed copy, not the checkout
    audit = subprocess.run(
        [str(env_dir / "bin" / "auditor"), "audit", "-c", str(config), "--quiet"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=WAIT,
    )
    assert audit.returncode == 1, audit.stderr  # the lab's planted violations
    assert (work / "out" / "run-1.json").exists()


def test_the_cronjob_config_audits_a_cluster_through_its_service_account(tmp_path: Path) -> None:
    """deploy/kubernetes/auditor.yaml and kubeconfig.yaml as the pod sees them (the projected token and
    CA files at their path, here under tmp), against the test suite's HTTPS API server: the cluster is
    collected with the token and TLS verified against the CA."""
    from auditor.enums import TargetStatus
    from auditor.pipeline.audit import run_audit
    from auditor.store.engine import open_store
    from auditor.store.reader import RunReader
    from tests.k8s_live.apiserver import ApiServer
    from tests.k8s_live.certs import make_pki
    from tests.k8s_live.cluster import build
    from tests.k8s_live.conftest import TOKEN

    pki = make_pki()
    server = ApiServer(build(), token=TOKEN, cert_pem=pki.server_cert_pem, key_pem=pki.server_key_pem).start()
    try:
        mounted = tmp_path / "serviceaccount"
        mounted.mkdir()
        (mounted / "token").write_text(TOKEN)
        (mounted / "ca.crt").write_bytes(pki.ca_pem)
        kubeconfig = (K8S / "kubeconfig.yaml").read_text()
        kubeconfig = kubeconfig.replace("/var/run/secrets/kubernetes.io/serviceaccount", str(mounted))
        (tmp_path / "kubeconfig.yaml").write_text(
            kubeconfig.replace("https://kubernetes.default.svc", server.url)
        )
        sample = yaml.safe_load((K8S / "auditor.yaml").read_text())
        sample.update(store=f"sqlite:///{tmp_path / 'store.db'}", output=str(tmp_path / "out"))
        (tmp_path / "auditor.yaml").write_text(yaml.safe_dump(sample))
        cfg = load_config(tmp_path / "auditor.yaml")
        engine = open_store(cfg.store_url())
        outcome = run_audit(cfg, engine=engine, render=False)
    finally:
        server.stop()
    (target,) = RunReader(engine, outcome.run_id).targets()
    assert (target.name, target.status, target.reason) == ("this-cluster", TargetStatus.OK.value, None)
    assert server.log, "the API server saw no request"
