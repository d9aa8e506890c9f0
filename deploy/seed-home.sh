#!/bin/sh
# Run in each person's pod at start (singleuser.lifecycleHooks.postStart in deploy/config.yaml): copy what
# their home needs from the image without overwriting their own work (cp -n). COURSE_ROLE is set by
# the hub (config.yaml's extraConfig) from the roster: instructors are the hub's admins.
set -eu
src="${COURSE_IMAGE_ROOT:-/opt/course}"   # where the Dockerfile put the course
if [ "${COURSE_ROLE:-student}" = instructor ]; then
    mkdir -p "$HOME/course"
    cp -rn "$src/nbgrader_config.py" "$src/labs" "$HOME/course/"
else
    mkdir -p "$HOME/lessons"
    cp -rn "$src/course/." "$HOME/lessons/"
fi
