"""The versions of the packages a benchmark's server was built with, for its output: the packages are resolved anew
on each machine (no Package.resolved is committed), and a server framework's own answer can change between its
versions, so a figure beside the framework's own answer names the versions it was measured with."""
import json
import os


def versions(server, names):
    """`name version, ...` of `names`, read from the SwiftPM workspace state of the build folder `server` (a path
    `BUILD/release/PRODUCT`) was built in; says so when that state is not there (a server given by another path)."""
    state = os.path.join(os.path.dirname(os.path.dirname(server)), "workspace-state.json")
    try:
        with open(state) as file:
            dependencies = json.load(file)["object"]["dependencies"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"not known (no SwiftPM workspace state at {state})"
    found = {}
    for dependency in dependencies:
        checkout = dependency.get("state", {}).get("checkoutState") or {}
        found[dependency.get("packageRef", {}).get("identity")] = checkout.get("version") or checkout.get("revision")
    return ", ".join(f"{name} {found.get(name) or 'not resolved'}" for name in names)
