"""The layer check of the build (scripts/check_layers.py) passes on the repository and fails,
naming the file, the line and the rule, when one include points upward.

Run by ctest with the graph of src/CMakeLists.txt:
  layers_test.py ROOT --layer ... --public ...
"""

import pathlib
import shutil
import subprocess
import sys
import tempfile


def run(root, graph):
    checker = pathlib.Path(sys.argv[1]) / "scripts" / "check_layers.py"
    return subprocess.run([sys.executable, str(checker), "--root", str(root), *graph],
                          capture_output=True, text=True)


def expect(condition, what, result):
    if not condition:
        sys.exit(f"FAILED: {what}\nexit {result.returncode}\n{result.stdout}{result.stderr}")
    print(f"ok: {what}")


def main():
    root = pathlib.Path(sys.argv[1])
    graph = sys.argv[2:]

    result = run(root, graph)
    expect(result.returncode == 0, "the repository's includes follow the layers", result)

    with tempfile.TemporaryDirectory() as temp:
        copy = pathlib.Path(temp)
        shutil.copytree(root / "src" / "ember", copy / "src" / "ember")
        shutil.copytree(root / "include" / "ember", copy / "include" / "ember")
        result = run(copy, graph)
        expect(result.returncode == 0, "the copy passes as it is", result)

        # One upward include: the bottom layer reaching for the streaming layer at the top.
        victim = copy / "src" / "ember" / "common" / "interval.cc"
        lines = victim.read_text().splitlines()
        lines.insert(1, '#include "ember/stream/state_store.h"')
        victim.write_text("\n".join(lines) + "\n")
        result = run(copy, graph)
        expect(result.returncode == 1, "an upward include fails", result)
        expect("src/ember/common/interval.cc:2: layer common includes "
               "ember/stream/state_store.h of layer stream, which is not below it"
               in result.stderr, "the failure names the file, the line and the rule", result)
        victim.write_text("\n".join(lines[:1] + lines[2:]) + "\n")

        # A public header of a layer above: plan including the api's session.h.
        victim = copy / "src" / "ember" / "plan" / "expr.cc"
        victim.write_text('#include <ember/session.h>\n' + victim.read_text())
        result = run(copy, graph)
        expect(result.returncode == 1 and "src/ember/plan/expr.cc:1: layer plan includes "
               "ember/session.h of layer api" in result.stderr,
               "an upward public header fails", result)
        victim.write_text(victim.read_text().split("\n", 1)[1])

        # A folder that is no layer.
        (copy / "src" / "ember" / "misc").mkdir()
        (copy / "src" / "ember" / "misc" / "x.h").write_text("#pragma once\n")
        result = run(copy, graph)
        expect(result.returncode == 1 and "src/ember/misc/x.h:1: is in no layer"
               in result.stderr, "a file outside the layers fails", result)


if __name__ == "__main__":
    main()
