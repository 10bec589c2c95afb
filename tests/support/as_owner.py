"""Run the real Hermes, and hermes-wizard, as a throw-away unprivileged user: the tests where root judges that
user's home compare root's verdict with what that user's own processes see.

* `scratch` (the argument of every helper): a folder every user may pass through, from
  tests/support/scratch_root.py (never pytest's tmp_path, never assumed of /tmp: either may be 0700).
* `owner_python(site, scratch)`: a Python the user can run that imports from `site` (a site-packages of
  this machine's venvs: a real Hermes's oracle, or hermes-wizard's own `.venv`).  Those venvs' interpreter
  may live under /root (0700), so a venv of the system's own Python of the same minor version is made
  in `scratch`, whose one `.pth` adds `site` -- or, where the user cannot reach `site` or the checkout an
  editable install points into (a checkout under /root, or in a 0700 `mktemp -d`), a copy of them made in
  `scratch` (`site_for_everyone`).  A sentence saying why when there is no such Python.
* `gateway_as(home, scratch)`: the real `hermes gateway run` of Hermes 0.19.0, stopped right after its
  start-up check (oracle/gateway_hook), run confined as the home's owner (wizard/core/confined.py: the
  owner's uid and groups, a session of its own, an environment built from nothing), on the home itself.
* `authz_as(home, senders, scratch)`: the real `GatewayRunner._is_user_authorized` (oracle/authz_probe.py)
  the same way.
* `wizard_as(args, home, scratch)`: hermes-wizard as the home's owner, without any capability.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import oracle
from scratch_root import readable_copy, traversable_by_others

from hermes_wizard.core import confined

ORACLE_DIR = Path(oracle.__file__).parent
WIZARD_SITE = Path(sys.executable).parent.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / \
    "site-packages"
_CANDIDATES = ("/usr/bin/python{v}", "/usr/local/bin/python{v}")


def site_for_everyone(site: Path, scratch: Path) -> Path:
    """`site` itself when every user can reach it and every folder an editable install in it points into;
    else a copy of it in `scratch` (made once per scratch), those folders copied in under their import names.
    Resolved first: the user follows a link to a venv (the checkout's .cache) through the folders it names."""
    site = site.resolve()
    sources = _editable_sources(site)
    if traversable_by_others(site) and all(traversable_by_others(folder) for folder in sources.values()):
        return site
    copy = scratch / f"site-{hashlib.sha256(str(site).encode()).hexdigest()[:12]}"
    if not copy.exists():
        readable_copy(site, copy, ignore=shutil.ignore_patterns("__editable__*", "__pycache__"))
        for name in sorted(sources, key=lambda dotted: dotted.count(".")):  # a package before its subpackages
            readable_copy(sources[name], copy.joinpath(*name.split(".")), ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _editable_sources(site: Path) -> dict[str, Path]:
    """{import name: folder} of the editable installs in `site` (setuptools' `__editable___*_finder.py`, whose
    MAPPING names the checkout's folders)."""
    sources: dict[str, Path] = {}
    for finder in site.glob("__editable___*_finder.py"):
        for node in ast.parse(finder.read_text()).body:
            target = node.target if isinstance(node, ast.AnnAssign) else (
                node.targets[0] if isinstance(node, ast.Assign) else None)
            if isinstance(target, ast.Name) and target.id == "MAPPING" and node.value is not None:
                sources.update({name: Path(folder) for name, folder in ast.literal_eval(node.value).items()})
    return sources


def oracle_dir_for_everyone(scratch: Path) -> Path:
    """tests/support/oracle (the probes run as the owner), or a copy of it in `scratch` where the user cannot
    reach the checkout."""
    if traversable_by_others(ORACLE_DIR):
        return ORACLE_DIR
    copy = scratch / "oracle-support"
    if not copy.exists():
        readable_copy(ORACLE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def owner_python(site: Path, scratch: Path) -> Path | str:
    """A python every user may run that imports from `site` (see the module doc); a sentence when impossible."""
    version = site.parent.name.removeprefix("python")  # lib/python3.11/site-packages
    site = site_for_everyone(site, scratch)
    base = next((Path(c.format(v=version)) for c in _CANDIDATES if Path(c.format(v=version)).is_file()), None)
    if base is None or not traversable_by_others(base.parent):
        return f"no system python{version} every user may run (the venvs' own interpreter is under /root)"
    venv = scratch / f"py-{hashlib.sha256(str(site).encode()).hexdigest()[:12]}"
    if not (venv / "bin" / "python").exists():
        made = subprocess.run([str(base), "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
        if made.returncode != 0:
            return f"cannot make a venv of {base}: {made.stderr.strip()[-200:]}"
        (venv / "lib" / f"python{version}" / "site-packages" / "through.pth").write_text(
            f"import site; site.addsitedir({str(site)!r})\n")
    for path in [venv, *venv.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    return venv / "bin" / "python"


def wizard_for_everyone(scratch: Path) -> Path:
    """A `hermes-wizard` every user may run (this checkout's, through `owner_python`): what Hermes's plugin puts in
    Hermes's own venv, for a gate run as a unit's user."""
    python = owner_python(WIZARD_SITE, scratch)
    if not isinstance(python, Path):
        raise RuntimeError(python)
    script = scratch / "everyone-bin" / "hermes-wizard"
    script.parent.mkdir(exist_ok=True)
    script.parent.chmod(0o755)
    script.write_text(f"#!{python}\nfrom hermes_wizard.faces.entry import console\nconsole()\n")
    script.chmod(0o755)
    return script


def oracle_site(version: str = oracle.HERMES_VERSION) -> Path:
    return next(oracle.venv_dir(version).glob("lib/python3*/site-packages"))


def _workdir(scratch: Path, who: confined.Identity) -> Path:
    """A folder of the user's own for one run (HOME, TMPDIR, the report), with a `node` that answers."""
    work = Path(tempfile.mkdtemp(prefix=f"run-{who.uid}-", dir=scratch))
    shim = work / "bin"
    shim.mkdir()
    (shim / "node").write_text("#!/bin/sh\necho v22.11.0\n")
    (shim / "node").chmod(0o755)
    for path in [work, *work.rglob("*")]:
        os.lchown(path, who.uid, who.gid)
    return work


def _env(who: confined.Identity, work: Path, home: Path, **extra: str) -> dict[str, str]:
    env = confined.base_env(who)
    env.update(PATH=f"{work / 'bin'}:{confined.SAFE_PATH}", HOME=str(work), TMPDIR=str(work), HERMES_HOME=str(home),
               PYTHONDONTWRITEBYTECODE="1", HERMES_DISABLE_LAZY_INSTALLS="1",
               HERMES_MANAGED_DIR=str(work / "no-managed-scope"), TIRITH_ENABLED="false", **extra)
    return env


def gateway_as(home: Path, scratch: Path, python: Path) -> dict:
    """The real gateway's start-up verdict on `home`, run as its owner: {"would_start", "refusal_platform",
    "crash"} (crash: the last line it printed when it died before its start-up check)."""
    who = confined.identity_for(home)
    work = _workdir(scratch, who)
    report = work / "report.json"
    hook = oracle_dir_for_everyone(scratch) / "gateway_hook"
    env = _env(who, work, home, PYTHONPATH=str(hook), ORACLE_GATEWAY_REPORT=str(report))
    code = "import sys; sys.argv = ['hermes', 'gateway', 'run']; from hermes_cli.main import main; sys.exit(main())"
    done = confined.run([str(python), "-c", code], who, env, oracle.TIMEOUT)
    if report.exists():
        data = json.loads(report.read_text())
        reason = data["reason"]
        return {"would_start": reason is None, "refusal_platform": reason.split(":", 1)[0] if reason else None,
                "crash": None}
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return {"would_start": False, "refusal_platform": None, "crash": said[-1] if said else f"exit {done.returncode}"}


def authz_as(home: Path, senders: list[dict], scratch: Path, python: Path) -> dict:
    """oracle/authz_probe.py's answer for `home` and `senders`, asked as the home's owner, on the home itself."""
    who = confined.identity_for(home)
    work = _workdir(scratch, who)
    request = work / "request.json"
    request.write_text(json.dumps({"home": str(home), "senders": senders}) + "\n")
    os.lchown(request, who.uid, who.gid)
    support = oracle_dir_for_everyone(scratch)
    probe = support / "authz_probe.py"
    code = (f"import sys, runpy; sys.path.insert(0, {str(support)!r}); sys.stdin = open({str(request)!r}); "
            f"sys.argv = [{str(probe)!r}]; runpy.run_path({str(probe)!r}, run_name='__main__')")
    done = confined.run([str(python), "-c", code], who, _env(who, work, home), oracle.TIMEOUT)
    answer = done.answer()
    if answer is None:
        raise RuntimeError(f"authz probe gave no answer: {done.stderr.decode('utf-8', 'replace')[-2000:]}")
    return answer


def wizard_as(args: list[str], home: Path, scratch: Path, python: Path) -> subprocess.CompletedProcess:
    """hermes-wizard ARGS --home HOME run as the home's owner (no capability, the owner's groups)."""
    who = confined.identity_for(home)
    work = _workdir(scratch, who)
    done = confined.run([str(python), "-m", "hermes_wizard", *args, "--home", str(home)], who,
                        _env(who, work, home), 60)
    return subprocess.CompletedProcess(args, done.returncode if done.returncode is not None else -1,
                                       done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))
