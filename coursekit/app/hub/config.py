"""JupyterHub's configuration for a class, built from the data folder `course hub` prepared.

Authenticator: first-login passwords (FirstUseAuthenticator), limited to the roster; instructors are
the hub's admins. Spawner: LocalProcessSpawner, which starts each person's JupyterLab as their own
Unix user in their own home. Proxy: configurable-http-proxy from npm.
"""
from __future__ import annotations

import os
import pwd
from pathlib import Path

from coursekit.paths import course_root
from coursekit.app.hub import bound, leaderboard as leaderboards
from coursekit.app.hub.classroom import INSTRUCTOR_COURSE, Layout, cull_every
from coursekit.app.lab_defaults import lab_default_args
from coursekit.app.hub.proxy import ensure_proxy
from coursekit.app.hub.roster import Roster, load_roster
from coursekit.app.hub.tutor_service import hub_service, service_url

def server_environment(layout: Layout, username: str, instructor: bool) -> tuple[dict, str]:
    """The environment and the folder a person's JupyterLab starts in."""
    home = Path(pwd.getpwnam(username).pw_dir)
    venv_bin = str(Path(layout.read_settings().python).parent)
    env = {"PATH": venv_bin + os.pathsep + "/usr/local/bin:/usr/bin:/bin",
           "JUPYTER_CONFIG_PATH": layout.config_path(home, instructor),
           "COURSE_ROOT": str(course_root())}      # lessons import coursekit and read quiz banks from here
    if not instructor:
        if layout.tutor_config.is_file():     # the class's tutor: limits and labs it is off for; the
            env["COURSE_TUTOR_CONFIG"] = str(layout.tutor_config)    # questions go through the hub's
            env["COURSE_TUTOR_SERVICE"] = service_url(layout.data)   # service, which alone holds the key
        return env, str(home)
    course = home / INSTRUCTOR_COURSE
    env.update(COURSE_ROOT=str(course), COURSE_GRADING_SECRET=layout.secret.read_text().strip())
    if os.environ.get("COURSE_QUICK"):
        env["COURSE_QUICK"] = os.environ["COURSE_QUICK"]
    return env, str(course)


def configure(c, data: str | Path) -> None:
    layout = Layout(data)
    settings = layout.read_settings()
    roster = load_roster(settings.roster) if settings.roster else Roster(())
    instructors = set(roster.instructors)

    c.JupyterHub.bind_url = f"http://{settings.ip}:{settings.port}"
    c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{settings.hub_port}"
    c.JupyterHub.db_url = f"sqlite:///{layout.db}"
    c.JupyterHub.cookie_secret_file = str(layout.cookie_secret)
    c.JupyterHub.pid_file = str(layout.data / "jupyterhub.pid")
    # A hub restart mid-class leaves students' servers (and their kernels) running; the hub finds them again.
    c.JupyterHub.cleanup_servers = False
    # A student whose server died gets a new one on their next page load instead of an error page.
    c.JupyterHub.implicit_spawn_seconds = 1

    c.JupyterHub.authenticator_class = "firstuseauthenticator.FirstUseAuthenticator"
    c.FirstUseAuthenticator.dbm_path = str(layout.passwords)
    c.FirstUseAuthenticator.create_users = False
    c.Authenticator.allowed_users = set(roster.usernames)
    c.Authenticator.admin_users = instructors

    # A token for root's scripts (benchmarks, roster changes, `course hub stop`): manages users and servers,
    # shuts the hub down, reads no files.
    c.JupyterHub.services = [{"name": "course-admin", "api_token": layout.admin_token.read_text().strip()}]
    c.JupyterHub.load_roles = [{"name": "course-admin", "services": ["course-admin"],
                                "scopes": ["admin:users", "admin:servers", "tokens", "list:users", "shutdown"]}]
    # The class's tutor (coursekit/app/hub/tutor_service.py): holds the key, counts questions per person.
    c.JupyterHub.services.append(hub_service(layout.data, settings.python))
    # The class's leaderboards (coursekit/app/hub/leaderboard.py), in every person's Services menu.
    c.JupyterHub.services.append(leaderboards.hub_service(layout.data, settings.python))
    c.JupyterHub.load_roles.append(leaderboards.user_role())

    if settings.cull_timeout > 0:
        cull_idle_servers(c, settings.python, settings.cull_timeout)
    if settings.lti_config:       # LTI 1.3 launches from the LMS, beside the roster's passwords
        from coursekit.app.hub.lti.hub import use_lti

        use_lti(c, layout, settings, lambda name: server_environment(layout, name, instructor=False)[0])

    # every service (the culler too) and the proxy end on the hub's first signal, and with the hub however
    # it ends (coursekit/app/hub/bound.py)
    for service in c.JupyterHub.services:
        if "command" in service:
            service["command"] = bound.command(settings.python, service["command"])
    c.ConfigurableHTTPProxy.command = bound.command(settings.python, [str(ensure_proxy())])
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings.proxy_api_port}"
    c.ConfigurableHTTPProxy.auth_token = layout.proxy_token.read_text().strip()
    c.ConfigurableHTTPProxy.pid_file = str(layout.data / "proxy.pid")

    c.JupyterHub.spawner_class = "coursekit.app.hub.spawner.CourseSpawner"   # its own session keyring
    c.Spawner.cmd = [str(Path(settings.python).parent / "jupyterhub-singleuser")]
    # the course's JupyterLab defaults, as `course start` gives them: no news pop-up asking to reach the
    # internet on every server, long lines and printed output wrapped (coursekit/app/lab_defaults.py)
    c.Spawner.args = lab_default_args()
    c.Spawner.default_url = "/lab"
    c.Spawner.start_timeout = 180       # 2 shared cores and 20+ servers starting at once
    c.Spawner.http_timeout = 180
    c.Spawner.poll_interval = 10        # how soon a dead server is noticed

    def pre_spawn_hook(spawner):
        name = spawner.user.name
        teaching = name in instructors
        if settings.lti_config:       # people who arrived from the LMS keep the role it gave them
            from coursekit.app.hub.lti.auth import read_people
            from coursekit.app.hub.lti.hub import hand_to_instructor

            teaching = teaching or read_people(layout.data).get(name, {}).get("role") in ("instructor", "ta")
            if teaching:
                hand_to_instructor(layout.data, settings, name, Path(pwd.getpwnam(name).pw_dir) / INSTRUCTOR_COURSE)
        env, folder = server_environment(layout, name, teaching)
        if settings.cull_timeout > 0:     # the server reports its activity often enough for the culler
            env["JUPYTERHUB_ACTIVITY_INTERVAL"] = str(cull_every(settings.cull_timeout))
        spawner.environment = {**spawner.environment, **env}
        spawner.notebook_dir = folder

    c.Spawner.pre_spawn_hook = pre_spawn_hook


def cull_idle_servers(c, python: str, timeout: int) -> None:
    """JupyterHub's idle culler as a hub service: a server with no activity (no request through the proxy,
    no kernel running a cell) for `timeout` s is stopped, freeing its memory; the account and home stay,
    and the person's next visit starts a new server on the same files. Users are never deleted."""
    every = cull_every(timeout)
    c.JupyterHub.services.append({"name": "idle-culler", "command": [
        python, "-m", "jupyterhub_idle_culler", f"--timeout={timeout}", f"--cull-every={every}"]})
    c.JupyterHub.load_roles.append({"name": "idle-culler", "services": ["idle-culler"],
                                    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]})
    c.JupyterHub.last_activity_interval = every     # how often the hub reads the proxy's activity
