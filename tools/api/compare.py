#!/usr/bin/env python3
"""Compares a committed API snapshot with the API as built now.

    compare.py SNAPSHOT CURRENT "how to refresh the snapshot"

Both files hold `KEY :: VALUE` lines (tools/api/rust_api.py, c_abi.py).
An item in the snapshot that is gone, or whose value differs, breaks
callers built against the snapshot: each is printed and the exit status is
1. Items only in CURRENT are additions: printed, and the check passes (the
snapshot is then refreshed in the commit that adds them, so the next
change is compared against them too).
"""

import sys


def read(path):
    items = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            key, _, value = line.partition(" :: ")
            if key in items:
                sys.exit(f"compare.py: {path}:{n}: {key!r} twice")
            items[key] = value
    return items


def show(key, value):
    return f"{key} :: {value}" if value else key


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: compare.py SNAPSHOT CURRENT REFRESH-HINT")
    snap_path, cur_path, hint = sys.argv[1:]
    snap, cur = read(snap_path), read(cur_path)
    removed = sorted(k for k in snap if k not in cur)
    changed = sorted(k for k in snap if k in cur and snap[k] != cur[k])
    added = sorted(k for k in cur if k not in snap)
    for k in removed:
        print(f"  removed: {show(k, snap[k])}")
    for k in changed:
        print(f"  changed: {show(k, snap[k])}")
        print(f"       to: {show(k, cur[k])}")
    for k in added:
        print(f"    added: {show(k, cur[k])}")
    print(f"{snap_path}: {len(snap)} items; {len(removed)} removed, {len(changed)} changed, {len(added)} added")
    if removed or changed:
        print(f"{snap_path}: the public API lost or changed items (above): callers built against it break. "
              "If that is intended, it needs a new major version (a new SONAME for the C ABI); "
              f"then refresh the snapshot: {hint}", file=sys.stderr)
        sys.exit(1)
    if added:
        print(f"{snap_path}: additions only (compatible); refresh the snapshot to include them: {hint}")


if __name__ == "__main__":
    main()
