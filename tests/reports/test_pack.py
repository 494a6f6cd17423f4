"""The evidence pack on the example lab: `auditor pack`, the system `tar`, `auditor verify PACK` from an
empty directory with no store, a flipped byte in every file named, forged reports and findings caught by
re-deriving them from the captures, and unsigned packs saying so."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from auditor.evidence.chain import sha256_hex
from auditor.evidence.signing import fingerprint, generate_keypair, load_signer, public_key_raw
from auditor.store.engine import open_store
from auditor.store.reader import RunNotFound
from reports.pack import (
    CAPTURE_INDEX,
    FINDINGS_FILE,
    MANIFEST,
    README,
    REPORTS,
    SIGNATURE,
    UNSIGNED,
    PackError,
    build_pack,
    pack_path,
    signature_bytes,
    to_json,
)
from reports.pack_verify import PackVerification, read_pack, verify_pack
from tests.e2e.conftest import LAB, run_cli


def flat(result: Any) -> str:
    return " ".join((result.stdout + result.stderr).split())


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab audited once with its seal signed by a key the config names (and pins)."""
    lab = tmp_path_factory.mktemp("pack") / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    generate_keypair(lab / "keys")
    config = lab / "auditor.yaml"
    config.write_text(
        config.read_text()
        + "\nsigning:\n  key_file: keys/auditor-signing.key\n  public_key: keys/auditor-signing.pub\n"
    )
    audit = run_cli("audit", "-c", str(config), "--quiet")
    assert audit.returncode == 1, audit.stdout + audit.stderr  # the lab has failing findings
    return lab


@pytest.fixture(scope="module")
def pack(lab: Path) -> Path:
    made = run_cli("pack", "-c", str(lab / "auditor.yaml"), "-o", str(lab / "packs"))
    assert made.returncode == 0, flat(made)
    path = lab / "packs" / "auditor-run-1-pack.tar.gz"
    assert str(path) in flat(made) and "signed by key SHA256:" in flat(made)
    return path


def pubkey(lab: Path) -> bytes:
    return load_signer(lab / "keys" / "auditor-signing.key").public_raw


def rewrite(pack: Path, dest: Path, files: dict[str, bytes]) -> Path:
    """The same archive layout with other file contents (what someone editing a pack would produce)."""
    with tarfile.open(pack) as tar:
        root = tar.getnames()[0].split("/")[0]
    with tarfile.open(dest, "w:gz" if dest.name.endswith(".gz") else "w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return dest


def resign(files: dict[str, bytes], key_dir: Path) -> dict[str, bytes]:
    """Re-hash every file into the manifest and sign it with a key of one's own (a forger's)."""
    manifest = json.loads(files[MANIFEST])
    for name, entry in manifest["files"].items():
        entry["sha256"] = sha256_hex(files[name])
    if not (key_dir / "auditor-signing.key").exists():
        generate_keypair(key_dir)
    forger = load_signer(key_dir / "auditor-signing.key")
    manifest["signature"] = {"algorithm": "ed25519", "fingerprint": forger.fingerprint}
    files = {**files, MANIFEST: to_json(manifest)}
    return {**files, SIGNATURE: signature_bytes(forger, files[MANIFEST])}


def named(result: PackVerification) -> set[str]:
    return {m.file for m in result.mismatches}


# -- the pack as an auditor receives it ------------------------------------------------------------------


def test_system_tar_opens_the_pack_and_it_holds_what_was_promised(pack: Path, tmp_path: Path) -> None:
    subprocess.run(["tar", "xzf", str(pack), "-C", str(tmp_path)], check=True)
    [root] = tmp_path.iterdir()
    assert root.name == "auditor-run-1-pack"
    manifest = json.loads((root / MANIFEST).read_text())
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert on_disk == set(manifest["files"]) | {MANIFEST, SIGNATURE}
    for name, entry in manifest["files"].items():
        assert sha256_hex((root / name).read_bytes()) == entry["sha256"], name
    assert set(REPORTS.values()) <= on_disk
    assert (root / REPORTS["pdf"]).read_bytes().startswith(b"%PDF")
    page = (root / REPORTS["html"]).read_text()  # the browser's copy of the report, signed with the rest
    assert page.startswith("<!DOCTYPE html>") and manifest["chain_head"] in page
    assert "Signed by the pinned key SHA256:" in page and "--pubkey PUBLIC_KEY.pem" in page
    index = json.loads((root / CAPTURE_INDEX).read_text())
    report = json.loads((root / REPORTS["json"]).read_text())
    assert [c["seq"] for c in index] == list(range(1, report["run"]["capture_count"] + 1))
    prev = index[0]["prev_hash"]
    for c in index:  # each capture: its file, hash and predecessor
        assert c["prev_hash"] == prev
        assert sha256_hex((root / c["file"]).read_bytes()) == c["content_sha256"]
        prev = c["link_hash"]
    assert prev == report["run"]["chain_head"] == manifest["chain_head"]
    assert json.loads((root / "run/config.json").read_text())["intent"]["tiers"]["backend"]["min_mtu"] == 9000
    assert "SIGNED (Ed25519)" in (root / README).read_text()
    assert manifest["packed_at"] and "generated_at" not in manifest


def test_verify_from_an_empty_directory_with_no_store(lab: Path, pack: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "AUDITOR_STORE"}
    pub = str(lab / "keys" / "auditor-signing.pub")
    ok = run_cli("verify", str(pack), "--pubkey", pub, cwd=empty, env=env)
    assert ok.returncode == 0, flat(ok)
    text = flat(ok)
    assert "pack auditor-run-1-pack.tar.gz verified" in text
    assert "29 of 29 captures re-derived" in text and "144 findings" in text
    assert "pack: signed by the pinned key SHA256:" in text
    assert "run seal: signed by the pinned key SHA256:" in text
    assert list(empty.iterdir()) == []  # no store, nothing written
    subprocess.run(["tar", "xzf", str(pack), "-C", str(empty)], check=True)
    unpacked = run_cli("verify", "auditor-run-1-pack", "--pubkey", pub, cwd=empty, env=env)
    assert unpacked.returncode == 0, flat(unpacked)
    # the store form of verify still works beside it
    store = run_cli("verify", "--run", "1", "-c", str(lab / "auditor.yaml"))
    assert store.returncode == 0 and "run 1 verified" in flat(store)


def test_another_key_fails_the_pin(lab: Path, pack: Path, tmp_path: Path) -> None:
    _, other, _ = generate_keypair(tmp_path / "other")
    bad = verify_pack(pack, public_key_raw(str(other)))
    assert not bad.ok and not bad.pinned
    [mismatch] = bad.mismatches
    assert str(mismatch).startswith("signature.json: signed by key SHA256:")
    assert "not by the pinned key" in str(mismatch)


# -- a changed byte anywhere names its file ----------------------------------------------------------------


def test_a_flipped_byte_in_each_file_is_named(lab: Path, pack: Path, tmp_path: Path) -> None:
    files = read_pack(pack)
    pin = pubkey(lab)
    assert verify_pack(pack, pin, rederive_findings=False).mismatches == []
    cases = [(name, len(files[name]) // 2) for name in sorted(files)]
    sig = files[SIGNATURE].decode()
    cases += [
        (SIGNATURE, sig.index(field) + len(field) + 8) for field in ('"signature": "', '"public_key": "')
    ]
    cases += [(SIGNATURE, sig.index('"manifest_sha256": "') + 30)]
    assert len(cases) > 40  # every capture, report, row file, the manifest and the signature
    for name, at in cases:
        data = bytearray(files[name])
        data[at] ^= 0x01
        flipped = rewrite(pack, tmp_path / "flipped.tar", {**files, name: bytes(data)})
        result = verify_pack(flipped, pin)
        assert not result.ok, name
        assert named(result) == {name}, (name, at, result.mismatches)


def test_missing_and_added_files_are_named(pack: Path, tmp_path: Path) -> None:
    files = read_pack(pack)
    capture = next(n for n in files if n.startswith("captures/0"))
    gone = verify_pack(rewrite(pack, tmp_path / "a.tar.gz", {k: v for k, v in files.items() if k != capture}))
    assert [str(m) for m in gone.mismatches] == [f"{capture}: missing from the pack (manifest.json lists it)"]
    extra = verify_pack(rewrite(pack, tmp_path / "b.tar.gz", {**files, "captures/extra.txt": b"x"}))
    assert named(extra) == {"captures/extra.txt"}


# -- forgeries that keep the manifest consistent are caught by re-deriving the findings -----------------------


def _flip_a_fail(doc: dict[str, Any]) -> str:
    i, finding = next((i, f) for i, f in enumerate(doc["findings"]) if f["status"] == "FAIL")
    finding["status"] = "PASS"
    doc["summary"][finding["tier"]]["FAIL"] -= 1
    doc["summary"][finding["tier"]]["PASS"] += 1
    return f".findings[{i}].status (finding {finding['check_id']} {finding['subject']!r}): 'PASS' in the pack, 'FAIL' re-derived"


def test_a_json_report_edited_from_fail_to_pass_fails(lab: Path, pack: Path, tmp_path: Path) -> None:
    files = read_pack(pack)
    doc = json.loads(files[REPORTS["json"]])
    expected = _flip_a_fail(doc)
    forged = resign({**files, REPORTS["json"]: json.dumps(doc, indent=2).encode() + b"\n"}, tmp_path / "k")
    result = verify_pack(rewrite(pack, tmp_path / "forged.tar.gz", forged))  # no pin: a forger's key passes
    assert result.signed and not result.pinned
    assert not result.ok
    texts = [str(m) for m in result.mismatches]
    assert any(t.startswith(REPORTS["json"]) and expected in t for t in texts), texts
    assert any(".summary." in t for t in texts)
    # the captures and the findings rows still agree; the seal is not signed by the pack's (forger's) key
    assert named(result) == {REPORTS["json"], "run/seal.json"}
    assert "not by the pinned key" in " ".join(texts)
    pinned = verify_pack(rewrite(pack, tmp_path / "forged.tar.gz", forged), pubkey(lab))
    assert SIGNATURE in named(pinned)


def test_a_findings_row_edited_from_fail_to_pass_fails(pack: Path, tmp_path: Path) -> None:
    files = read_pack(pack)
    rows = json.loads(files[FINDINGS_FILE])
    row = next(r for r in rows if r["status"] == "FAIL")
    row["status"] = "PASS"
    forged = resign({**files, FINDINGS_FILE: to_json(rows)}, tmp_path / "k")
    result = verify_pack(rewrite(pack, tmp_path / "forged.tar.gz", forged))
    texts = [str(m) for m in result.mismatches]
    assert (
        f"{FINDINGS_FILE}: finding {row['id']} ({row['check_id']} {row['subject']!r}): status is 'PASS' in the pack, 'FAIL' re-derived from the captures"
        in texts
    )


def test_an_edited_capture_breaks_the_chain_even_when_repacked(pack: Path, tmp_path: Path) -> None:
    files = read_pack(pack)
    index = json.loads(files[CAPTURE_INDEX])
    entry = next(c for c in index if "oob-sw1" in c["target"])
    content = files[entry["file"]].replace(b"ip route 0.0.0.0/0", b"ip route 10.0.0.0/8")
    assert content != files[entry["file"]]
    entry["content_sha256"], entry["size"] = sha256_hex(content), len(content)
    forged = resign({**files, entry["file"]: content, CAPTURE_INDEX: to_json(index)}, tmp_path / "k")
    result = verify_pack(rewrite(pack, tmp_path / "forged.tar.gz", forged))
    texts = " ".join(str(m) for m in result.mismatches)
    assert not result.ok
    assert f"capture #{entry['seq']}" in texts
    assert entry["file"] in named(result)  # its facts no longer re-derive to the packed ones


# -- unsigned packs, determinism, refusals ---------------------------------------------------------------


def test_an_unsigned_pack_says_so_in_plain_sight(lab: Path, tmp_path: Path) -> None:
    made = run_cli("pack", "--store", f"sqlite:///{lab / '.auditor' / 'auditor.db'}", "-o", str(tmp_path))
    assert made.returncode == 0, flat(made)
    assert "UNSIGNED pack" in flat(made)
    path = tmp_path / f"auditor-run-1-pack-{UNSIGNED}.tar.gz"
    files = read_pack(path)
    assert SIGNATURE not in files
    assert json.loads(files[MANIFEST])["signature"] == UNSIGNED
    assert files[README].startswith(b"Evidence pack") and b"\nUNSIGNED: nothing" in files[README]
    plain = run_cli("verify", str(path), cwd=tmp_path)
    assert plain.returncode == 0 and "pack: UNSIGNED: nothing proves who made this pack" in flat(plain)
    pinned = verify_pack(path, pubkey(lab))
    assert [str(m) for m in pinned.mismatches] == [
        "signature.json: the pack is UNSIGNED, so it cannot be proven against the pinned key "
        f"SHA256:{fingerprint(pubkey(lab))[:16]}"
    ]


def test_reports_are_identical_in_two_packs_made_at_different_times(
    lab: Path, pack: Path, tmp_path: Path
) -> None:
    """The second pack also takes its key from an environment variable instead of the config."""
    env = {**os.environ, "PACK_KEY": (lab / "keys" / "auditor-signing.key").read_text()}
    store = f"sqlite:///{lab / '.auditor' / 'auditor.db'}"
    again = run_cli("pack", "--store", store, "-o", str(tmp_path), "--signing-key-env", "PACK_KEY", env=env)
    assert again.returncode == 0, flat(again)
    first, second = read_pack(pack), read_pack(tmp_path / pack.name)
    assert json.loads(first[MANIFEST])["packed_at"] != json.loads(second[MANIFEST])["packed_at"]
    for name in (REPORTS["json"], REPORTS["oscal"], CAPTURE_INDEX, FINDINGS_FILE, "run/facts.jsonl"):
        assert first[name] == second[name], name
    report = json.loads(first[REPORTS["json"]])
    assert report["generated_at"] == report["run"]["finished_at"]


def test_pack_refuses_a_key_other_than_the_seal_and_a_missing_run(lab: Path, tmp_path: Path) -> None:
    private, _, _ = generate_keypair(tmp_path / "other")
    store = f"sqlite:///{lab / '.auditor' / 'auditor.db'}"
    other = run_cli("pack", "--store", store, "-o", str(tmp_path), "--signing-key", str(private))
    assert other.returncode == 2
    assert "is sealed by key SHA256:" in flat(other) and "the pack key is" in flat(other)
    with pytest.raises(RunNotFound, match="run 7 does not exist"):
        build_pack(open_store(store), 7, tmp_path, None)


def test_not_a_pack_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a tar at all")
    result = run_cli("verify", str(junk), cwd=tmp_path)
    assert result.returncode == 2 and "junk.tar.gz: not a readable pack archive" in flat(result)
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(PackError, match="is not a plain relative path"):
        verify_pack(evil)
    assert not (tmp_path.parent / "escape.txt").exists()


def test_pack_refuses_a_store_changed_since_the_seal(lab: Path, tmp_path: Path) -> None:
    copy = tmp_path / "forged.db"
    shutil.copy(lab / ".auditor" / "auditor.db", copy)
    conn = sqlite3.connect(copy)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')  # what a database owner can do
    conn.execute("UPDATE findings SET status = 'PASS' WHERE status = 'FAIL'")
    conn.commit()
    conn.close()
    refused = run_cli("pack", "--store", f"sqlite:///{copy}", "-o", str(tmp_path / "out"))
    assert refused.returncode == 2
    assert "run 1 does not verify, packing refused: findings" in flat(refused)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_fact_that_no_longer_re_derives_names_its_capture_and_field(pack: Path, tmp_path: Path) -> None:
    """What an older pack meets when a normalizer changed since: the capture and the field are named."""
    files = read_pack(pack)
    facts = [json.loads(line) for line in files["run/facts.jsonl"].decode().splitlines()]
    fact = next(f for f in facts if f["kind"] == "vrf")
    key = sorted(fact["data"])[0]
    del fact["data"][key]
    text = "".join(json.dumps(f, sort_keys=True) + "\n" for f in facts).encode()
    forged = resign({**files, "run/facts.jsonl": text}, tmp_path / "k")
    result = verify_pack(rewrite(pack, tmp_path / "forged.tar.gz", forged))
    entry = next(c for c in json.loads(files[CAPTURE_INDEX]) if c["id"] == fact["capture_id"])
    detail = f"re-normalised fact vrf {fact['subject']!r}: data.{key}: absent in the pack"
    assert any(m.file == entry["file"] and m.detail.startswith(detail) for m in result.mismatches), [
        str(m) for m in result.mismatches
    ]


# -- the same pack as a .zip, and the HTML report ---------------------------------------------------------


def test_zip_pack_opens_with_unzip_and_verifies_from_an_empty_directory(
    lab: Path, pack: Path, tmp_path: Path
) -> None:
    made = run_cli("pack", "-c", str(lab / "auditor.yaml"), "--format", "zip", "-o", str(tmp_path / "zips"))
    assert made.returncode == 0, flat(made)
    path = tmp_path / "zips" / "auditor-run-1-pack.zip"
    assert f"verify it with: auditor verify {path.name} --pubkey" in flat(made)
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "AUDITOR_STORE"}
    pub = str(lab / "keys" / "auditor-signing.pub")
    ok = run_cli("verify", str(path), "--pubkey", pub, cwd=empty, env=env)
    assert ok.returncode == 0, flat(ok)
    assert f"pack {path.name} verified" in flat(ok) and "29 of 29 captures re-derived" in flat(ok)
    assert list(empty.iterdir()) == []  # no store, nothing written
    subprocess.run(["unzip", "-q", str(path), "-d", str(empty)], check=True)
    [root] = empty.iterdir()
    assert root.name == "auditor-run-1-pack" and oct((root / MANIFEST).stat().st_mode & 0o777) == "0o644"
    assert verify_pack(root, pubkey(lab), rederive_findings=False).mismatches == []  # the unzipped copy
    zipped, tarred = read_pack(path), read_pack(pack)
    assert set(zipped) == set(tarred)
    same = {n for n in zipped if zipped[n] == tarred[n]}
    # packed_at, the archive's name, and the PDF (its cover shows when it was rendered); the rest is equal
    assert set(zipped) - same == {MANIFEST, SIGNATURE, README, REPORTS["pdf"]}
    assert f"auditor verify {path.name}".encode() in zipped[README]
    # a flipped byte inside the zip names its file, as in the .tar.gz
    capture = next(n for n in zipped if n.startswith("captures/0"))
    data = bytearray(zipped[capture])
    data[len(data) // 2] ^= 0x01
    flipped = tmp_path / "flipped.zip"
    with zipfile.ZipFile(flipped, "w") as out:
        for name, content in sorted({**zipped, capture: bytes(data)}.items()):
            out.writestr(f"auditor-run-1-pack/{name}", content)
    assert named(verify_pack(flipped, pubkey(lab))) == {capture}


def test_pack_named_zip_or_tar_gz_by_its_output_name(lab: Path, tmp_path: Path) -> None:
    store = f"sqlite:///{lab / '.auditor' / 'auditor.db'}"
    made = run_cli("pack", "--store", store, "-o", str(tmp_path / "evidence.zip"))
    assert made.returncode == 0, flat(made)
    assert zipfile.is_zipfile(tmp_path / "evidence.zip") and list(tmp_path.iterdir()) == [
        tmp_path / "evidence.zip"
    ]
    listing = subprocess.run(["unzip", "-l", str(tmp_path / "evidence.zip")], capture_output=True, text=True)
    assert listing.returncode == 0 and f"auditor-run-1-pack-{UNSIGNED}/{REPORTS['html']}" in listing.stdout
    assert verify_pack(tmp_path / "evidence.zip", rederive_findings=False).mismatches == []
    clash = run_cli("pack", "--store", store, "-o", str(tmp_path / "x.tar.gz"), "--format", "zip")
    assert clash.returncode == 2 and "the name says tar.gz, --format says zip" in flat(clash)
    with pytest.raises(PackError, match="unknown pack format 'rar'"):
        pack_path(tmp_path, "x", "rar")
    assert pack_path(tmp_path, "x", None) == (tmp_path / "x.tar.gz", "tar.gz")
    assert pack_path(tmp_path / "y.tgz", "x", None) == (tmp_path / "y.tgz", "tar.gz")


def test_hostile_zip_members_are_refused(tmp_path: Path) -> None:
    cases = {
        "escape": [("../escape.txt", 0o100644)],
        "link": [("pack/manifest.json", 0o120777)],  # a symlink
        "twice": [("pack/manifest.json", 0o100644), ("pack/manifest.json", 0o100644)],
    }
    expected = {"escape": "not a plain relative path", "link": "not a regular file", "twice": "appears twice"}
    for case, members in cases.items():
        path = tmp_path / f"{case}.zip"
        with zipfile.ZipFile(path, "w") as out, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it is asked to write
            for name, mode in members:
                info = zipfile.ZipInfo(name)
                info.create_system, info.external_attr = 3, mode << 16
                out.writestr(info, b"{}")
        with pytest.raises(PackError, match=expected[case]):
            read_pack(path)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04 and then nothing a zip needs")
    with pytest.raises(PackError, match="the archive is damaged"):
        read_pack(junk)
    with pytest.raises(PackError, match=r"missing\.zip: not a readable pack archive"):
        read_pack(tmp_path / "missing.zip")


def test_report_format_html_renders_the_lab_run_as_packed(lab: Path, pack: Path, tmp_path: Path) -> None:
    made = run_cli("report", "-c", str(lab / "auditor.yaml"), "--format", "html", "-o", str(tmp_path))
    assert made.returncode == 0, flat(made)
    page = tmp_path / "run-1.html"
    assert page.read_bytes() == read_pack(pack)[REPORTS["html"]]  # the same bytes: no render time


def test_the_packed_html_report_holds_every_section_of_the_lab(pack: Path) -> None:
    """The browser's copy has what the PDF has: derived from the lab's facts, every capture's hash."""
    files = read_pack(pack)
    page = files[REPORTS["html"]].decode("utf-8")
    sections = re.findall(r'<section id="([a-z-]+)">', page)
    assert sections == [
        "run", "integrity", "summary", "tiers", "matrix", "findings", "ports", "default-deny", "flows",
        "lateral", "responsibility", "waivers", "gaps", "targets", "controls", "custody", "checks",
    ]  # fmt: skip
    report = json.loads(files[REPORTS["json"]])
    assert page.count('<tr id="finding-') == len(report["findings"]) == 144
    for capture in json.loads(files[CAPTURE_INDEX]):  # the chain of custody lists every capture
        assert capture["content_sha256"] in page
    for text in (
        "Internet into Tier 3 · Backend RDMA",  # a crossing drawn in the tiers picture
        "PFC, ECN and trust",  # a segmentation-matrix row
        "fe-leaf2/vrf FRONTEND -&gt; oob",  # a lateral path, hop by hop below it
        "8.8.8.8:53",  # DNS to an unapproved resolver, from the flow logs
        "security groups",  # the default-deny declarations
    ):
        assert text in page, text
