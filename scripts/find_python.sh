#!/bin/sh
# Prints the path of a Python 3.12 or newer that really runs.
# pyenv's shims answer "command not found" unless told the version, so each
# candidate is tried, not just looked up on PATH.
for candidate in python3.14 python3.13 python3.12 python3 \
    "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 /usr/local/bin/python3.1[2-9] /usr/bin/python3.1[2-9]; do
    if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
        "$candidate" -c 'import sys; print(sys.executable)'
        exit 0
    fi
done
echo "No Python 3.12 or newer found. Django 6.1 needs one: install it (e.g. 'pyenv install 3.12') and run make again." >&2
exit 1
