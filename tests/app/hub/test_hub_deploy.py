"""deploy/: the Kubernetes image and Zero to JupyterHub values agree with pyproject.toml (a version bumped
on one side only fails), the Helm values have the shape the z2jh chart accepts, and the parts that run in
a pod (the hub's extraConfig, the home-seeding script, the roster values) behave. Offline: no image is
built and no cluster is reached."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from paths import ROOT

DEPLOY = ROOT / "deploy"
sys.path.insert(0, str(DEPLOY))

import pins  # noqa: E402 - imported after the sys.path set-up above
from roster_values import roster_values  # noqa: E402 - imported after the sys.path set-up above

# Keys the z2jh chart's values.schema.yaml (chart 4.4.0) allows: it refuses any other key at these levels.
Z2JH_TOP = {"cull", "custom", "debug", "enabled", "fullnameOverride", "global", "httpRoute", "hub", "imagePullSecret",
            "imagePullSecrets", "ingress", "nameOverride", "prePuller", "proxy", "rbac", "scheduling", "singleuser"}
Z2JH_HUB = {"activeServerLimit", "allowNamedServers", "annotations", "args", "authenticatePrometheus", "baseUrl",
            "command", "concurrentSpawnLimit", "config", "consecutiveFailureLimit", "containerSecurityContext",
            "cookieSecret", "db", "deploymentStrategy", "existingSecret", "extraConfig", "extraContainers", "extraEnv",
            "extraFiles", "extraPodSpec", "extraVolumeMounts", "extraVolumes", "fsGid", "image", "initContainers",
            "labels", "lifecycle", "livenessProbe", "loadRoles", "namedServerLimitPerUser", "networkPolicy",
            "nodeSelector", "pdb", "podSecurityContext", "readinessProbe", "redirectToServer", "resources",
            "revisionHistoryLimit", "service", "serviceAccount", "services", "shutdownOnLogout", "templatePaths",
            "templateVars", "tolerations"}
Z2JH_SINGLEUSER = {"allowPrivilegeEscalation", "cloudMetadata", "cmd", "cpu", "defaultUrl", "events",
                   "extraAnnotations", "extraContainers", "extraEnv", "extraFiles", "extraLabels", "extraNodeAffinity",
                   "extraPodAffinity", "extraPodAntiAffinity", "extraPodConfig", "extraResource", "extraTolerations",
                   "fsGid", "image", "initContainers", "lifecycleHooks", "memory", "networkPolicy", "networkTools",
                   "nodeSelector", "podNameTemplate", "profileList", "serviceAccountName", "startTimeout", "storage",
                   "uid"}
Z2JH_STORAGE = {"capacity", "dynamic", "extraLabels", "extraVolumeMounts", "extraVolumes", "homeMountPath", "static",
                "type"}
Z2JH_CULL = {"adminUsers", "concurrency", "enabled", "every", "maxAge", "removeNamedServers", "timeout", "users"}
EXCHANGE = "/srv/nbgrader/exchange"


def values() -> dict:
    return yaml.safe_load((DEPLOY / "config.yaml").read_text())


# -- versions: the image and the chart follow pyproject.toml -----------------------------------------

def test_deployment_agrees_with_pyproject_and_constraints():
    assert pins.problems(pins.Project(ROOT)) == []
    done = subprocess.run([sys.executable, str(DEPLOY / "pins.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def copy(tmp_path) -> Path:
    """The files the check reads, in a temporary copy that a test may change one side of."""
    for name in ("pyproject.toml", "constraints-cpu.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(DEPLOY, tmp_path / "deploy", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def one_side(copy: Path, change: str) -> None:
    version = pins.Project(ROOT).version
    if change == "hub extra":
        edit(copy / "pyproject.toml", '"jupyterhub>=5.2,<7"', '"jupyterhub>=6,<7"')
    elif change == "torch constraint":
        edit(copy / "constraints-cpu.txt", "torch==2.13.0", "torch==2.14.0")
    elif change == "chart":
        edit(copy / "deploy" / "config.yaml", 'chart: "4.4.0"', 'chart: "4.3.5"')
    elif change == "course version":
        edit(copy / "pyproject.toml", f'version = "{version}"', 'version = "9.9.9"')
    elif change == "pin outside range":
        pinned = pins._pins((copy / "deploy" / "requirements.txt").read_text())["nbgrader"]
        edit(copy / "deploy" / "requirements.txt", f"nbgrader=={pinned}", "nbgrader==0.10.0")
    elif change == "new dependency":
        edit(copy / "pyproject.toml", '"pyyaml>=6",', '"pyyaml>=6",\n    "rich>=13",')
    elif change == "dockerfile torch":
        edit(copy / "deploy" / "Dockerfile", "ARG TORCH_VERSION=2.13.0", "ARG TORCH_VERSION=2.12.0")
    elif change == "gpu image":
        edit(copy / "deploy" / "config.yaml", f"image: llm-course:{version}-cuda", "image: llm-course:0.0.9-cuda")


@pytest.mark.parametrize("change, message", [
    ("hub extra", "deploy/requirements.txt: jupyterhub==5.5.0 is outside pyproject.toml's jupyterhub<7,>=6"),
    ("torch constraint", "deploy/Dockerfile: TORCH_VERSION=2.13.0 but constraints-cpu.txt pins 2.14.0"),
    ("chart", "deploy/requirements.txt: jupyterhub==5.5.0 but chart 4.3.5 runs 5.4.6"),
    ("course version", "deploy/config.yaml: singleuser.image tag 0.1.0 is not the course version 9.9.9"),
    ("pin outside range", "deploy/requirements.txt: nbgrader==0.10.0 is outside pyproject.toml's nbgrader<0.10,>=0.9.6"),
    ("new dependency", "deploy/requirements.txt: rich is a dependency in pyproject.toml but not pinned"),
    ("dockerfile torch", "deploy/Dockerfile: TORCH_VERSION=2.12.0 but constraints-cpu.txt pins 2.13.0"),
    ("gpu image", "deploy/config.yaml: profile gpu tag 0.0.9-cuda is not the course version"),
])
def test_a_version_bumped_on_one_side_only_is_caught(copy, change, message):
    assert pins.problems(pins.Project(copy)) == []
    one_side(copy, change)
    done = subprocess.run([sys.executable, str(DEPLOY / "pins.py"), "--check", "--root", str(copy)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and message in done.stderr, done.stderr


def test_pins_writes_the_tested_versions_and_the_chart_s_jupyterhub(copy):
    (copy / "deploy" / "requirements.txt").write_text("")
    assert pins.main(["--root", str(copy)]) == 0
    written = pins._pins((copy / "deploy" / "requirements.txt").read_text())
    project = pins.Project(copy)
    assert written["torch"] == project.torch and written["jupyterhub"] == pins.CHART[project.chart][0]
    assert written["nbgrader"] == metadata.version("nbgrader") and written["jupyterlab"] == metadata.version("jupyterlab")
    assert set(written) == set(project.needs) | {"jupyterhub"}


def test_the_kubernetes_page_deploys_the_chart_the_values_name():
    page = (ROOT / "docs" / "KUBERNETES.md").read_text()
    assert f"--version {values()['custom']['course']['chart']}" in page
    assert "python deploy/pins.py" in page and "python deploy/roster_values.py" in page


# -- the Helm values have the shape the chart accepts --------------------------------------------------

def test_values_use_only_keys_the_z2jh_chart_accepts():
    found = values()
    assert set(found) <= Z2JH_TOP
    assert set(found["hub"]) <= Z2JH_HUB and set(found["singleuser"]) <= Z2JH_SINGLEUSER
    assert set(found["singleuser"]["storage"]) <= Z2JH_STORAGE and set(found["cull"]) <= Z2JH_CULL
    assert all(re.match(r"^[A-Z]", name) and isinstance(body, dict) for name, body in found["hub"]["config"].items())
    image = found["singleuser"]["image"]
    assert set(image) == {"name", "tag"} and isinstance(image["tag"], str)      # the chart wants a string tag
    storage = found["singleuser"]["storage"]
    assert storage["type"] in ("dynamic", "static", "none") and storage["homeMountPath"]
    assert set(found["singleuser"]["lifecycleHooks"]) <= {"postStart", "preStop"}
    for profile in found["singleuser"]["profileList"]:
        assert {"display_name", "slug"} <= set(profile) and set(profile) <= {
            "display_name", "slug", "description", "default", "kubespawner_override", "profile_options"}


def test_the_cluster_culls_idle_servers_as_course_hub_does():
    from coursekit.app.hub.classroom import CULL_TIMEOUT, cull_every

    cull = values()["cull"]
    assert cull["enabled"] is True
    assert (cull["timeout"], cull["every"]) == (CULL_TIMEOUT, cull_every(CULL_TIMEOUT))


def test_a_cpu_and_a_gpu_profile():
    profiles = {p["slug"]: p for p in values()["singleuser"]["profileList"]}
    assert profiles["cpu"].get("default") is True and "extra_resource_limits" not in profiles["cpu"].get(
        "kubespawner_override", {})
    gpu = profiles["gpu"]["kubespawner_override"]
    assert gpu["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert gpu["node_selector"] and any(t["key"] == "nvidia.com/gpu" for t in gpu["tolerations"])
    assert gpu["image"].endswith("-cuda")


def test_the_exchange_is_one_read_write_many_volume_at_nbgrader_s_root():
    claim = yaml.safe_load((DEPLOY / "exchange-pvc.yaml").read_text())
    assert claim["kind"] == "PersistentVolumeClaim" and claim["spec"]["accessModes"] == ["ReadWriteMany"]
    singleuser = values()["singleuser"]
    volumes = {v["name"]: v for v in singleuser["storage"]["extraVolumes"]}
    mounts = {m["name"]: m["mountPath"] for m in singleuser["storage"]["extraVolumeMounts"]}
    (name,) = [n for n, v in volumes.items() if v["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]]
    assert mounts[name] == EXCHANGE
    # the image's nbgrader config points there (written by the Dockerfile with the same function course hub uses)
    assert f"write_server_config('/etc/course', '{EXCHANGE}')" in (DEPLOY / "Dockerfile").read_text()


def test_the_image_leaves_the_answers_and_the_secret_out():
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    assert {"solutions", "tests", ".venv", "autograder/instructor-secret"} <= set(ignored)
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "COPY deploy/requirements.txt" in dockerfile and '"torch==${TORCH_VERSION}" -r /tmp/requirements.txt' in dockerfile
    assert "SECRET" not in dockerfile


# -- what runs in the hub and in each pod ----------------------------------------------------------

class FakeUser:
    def __init__(self, name: str, admin: bool, id: int):
        self.name, self.admin, self.id = name, admin, id


class FakeSpawner:
    def __init__(self, user: FakeUser):
        self.user, self.environment, self.notebook_dir = user, {}, None


def test_the_hub_hands_the_secret_to_instructors_only_and_a_uid_to_each(monkeypatch):
    from traitlets.config import Config

    monkeypatch.setenv("COURSE_GRADING_SECRET", "s3cret")
    c = Config()
    exec(compile(values()["hub"]["extraConfig"]["course"], "config.yaml extraConfig", "exec"), {"c": c})
    prof, ada, ben = FakeSpawner(FakeUser("prof", True, 1)), FakeSpawner(FakeUser("ada", False, 2)), FakeSpawner(
        FakeUser("ben", False, 3))
    for spawner in (prof, ada, ben):
        c.KubeSpawner.pre_spawn_hook(spawner)
    assert prof.environment["COURSE_GRADING_SECRET"] == "s3cret" and prof.environment["COURSE_ROLE"] == "instructor"
    assert "COURSE_GRADING_SECRET" not in ada.environment and ada.environment["COURSE_ROLE"] == "student"
    uids = [c.KubeSpawner.uid(s) for s in (prof, ada, ben)]
    assert len(set(uids)) == 3 and min(uids) >= 10000              # nbgrader's exchange needs one uid per person
    assert c.KubeSpawner.gid(ada) == c.KubeSpawner.fs_gid(ada) == c.KubeSpawner.uid(ada)


def seed(home: Path, role: str) -> None:
    script = DEPLOY / "seed-home.sh"
    assert os.stat(script).st_mode & stat.S_IXUSR
    assert "/opt/course/deploy/seed-home.sh" in str(values()["singleuser"]["lifecycleHooks"]["postStart"])
    subprocess.run([str(script)], env={"HOME": str(home), "COURSE_ROLE": role, "COURSE_IMAGE_ROOT": str(ROOT),
                                       "PATH": "/usr/bin:/bin"}, check=True)


def test_a_pod_s_home_gets_the_course_without_losing_work(tmp_path):
    student, instructor = tmp_path / "ada", tmp_path / "prof"
    seed(student, "student")
    assert (student / "lessons" / "index.ipynb").exists() and not (student / "course").exists()
    (student / "lessons" / "index.ipynb").write_text("my notes")
    seed(student, "student")                                       # the next start keeps what she wrote
    assert (student / "lessons" / "index.ipynb").read_text() == "my notes"
    seed(instructor, "instructor")
    assert (instructor / "course" / "nbgrader_config.py").exists() and (instructor / "course" / "labs").is_dir()
    assert not (instructor / "course" / "solutions").exists()


def test_roster_values_come_from_the_roster_and_a_bad_line_is_refused(tmp_path):
    good = tmp_path / "class.csv"
    good.write_text("username,role\nprof,instructor\nada,student\nben,student\n")
    assert roster_values(good) == {"hub": {"config": {"Authenticator": {
        "allowed_users": ["prof", "ada", "ben"], "admin_users": ["prof"]}}}}
    done = subprocess.run([sys.executable, str(DEPLOY / "roster_values.py"), str(good)], capture_output=True, text=True)
    assert done.returncode == 0 and yaml.safe_load(done.stdout) == roster_values(good)
    bad = tmp_path / "bad.csv"
    bad.write_text("username,role\nprof,instructor\nada,student\nada,student\n")
    done = subprocess.run([sys.executable, str(DEPLOY / "roster_values.py"), str(bad)], capture_output=True, text=True)
    assert done.returncode == 1 and f"{bad}:4: duplicate username 'ada'" in done.stderr and not done.stdout
