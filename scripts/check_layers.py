#!/usr/bin/env python3
"""Fails when a file of src/ember includes a layer that is not below its own (src/README.md).

The build runs it with the layer graph of src/CMakeLists.txt, before anything compiles:

  check_layers.py --root DIR --layer common= --layer plan=common --layer io=plan ...
                  --public common=error.h,partitioning.h ...

A layer is a folder of src/ember; `--layer NAME=BELOW,...` names the layers directly below it,
and a file may include its own layer and every layer reachable downward from it. A public header
(include/ember/NAME.h) belongs to the layer that implements it, given by `--public`. Each
violation is printed as "path:line: ..." and the exit status is 1.
"""

import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]ember/([^">]+)[">]')
EXTENSIONS = {".h", ".cc", ".inc"}


def pairs(values, option):
    result = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name:
            sys.exit(f"check_layers: {option} {value!r} is not NAME=A,B,...")
        result[name] = [item for item in rest.split(",") if item]
    return result


def below(graph):
    """Every layer reachable downward from each layer."""
    reach = {}

    def visit(layer, path):
        if layer in reach:
            return reach[layer]
        if layer in path:
            sys.exit("check_layers: the layers form a cycle: " + " -> ".join(path + [layer]))
        found = set()
        for lower in graph[layer]:
            if lower not in graph:
                sys.exit(f"check_layers: layer {layer} is above an unknown layer {lower}")
            found |= {lower} | visit(lower, path + [layer])
        reach[layer] = found
        return found

    for layer in graph:
        visit(layer, [])
    return reach


def check(root, graph, public):
    reach = below(graph)
    header_layer = {header: layer for layer, headers in public.items() for header in headers}
    errors = []
    files = [(path, path.relative_to(root / "src" / "ember").parts[0])
             for path in sorted((root / "src" / "ember").rglob("*")) if path.is_file()]
    files += [(path, header_layer.get(path.name))
              for path in sorted((root / "include" / "ember").rglob("*")) if path.is_file()]
    for path, layer in files:
        if path.suffix not in EXTENSIONS:
            continue
        where = path.relative_to(root)
        if layer not in graph:
            errors.append(f"{where}:1: is in no layer: each folder of src/ember is a layer of "
                          "src/CMakeLists.txt, each header of include/ember is one layer's "
                          "(ember_layer(... HEADERS))")
            continue
        allowed = {layer} | reach[layer]
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            parts = target.split("/")
            target_layer = header_layer.get(target) if len(parts) == 1 else parts[0]
            if target_layer is None:
                errors.append(f"{where}:{number}: includes ember/{target}, a public header of "
                              "no layer (ember_layer(... HEADERS) in src/CMakeLists.txt)")
            elif target_layer not in graph:
                errors.append(f"{where}:{number}: includes ember/{target} of {target_layer}/, "
                              "which is no layer of src/CMakeLists.txt")
            elif target_layer not in allowed:
                may = ", ".join(sorted(allowed))
                errors.append(f"{where}:{number}: layer {layer} includes ember/{target} of layer "
                              f"{target_layer}, which is not below it; a layer calls only the "
                              f"layers below it ({layer} may include {may}; src/README.md)")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, required=True,
                        help="the repository (with src/ember and include/ember)")
    parser.add_argument("--layer", action="append", default=[], help="NAME=BELOW,...")
    parser.add_argument("--public", action="append", default=[], help="LAYER=HEADER,...")
    args = parser.parse_args()
    graph = pairs(args.layer, "--layer")
    public = pairs(args.public, "--public")
    for layer in public:
        if layer not in graph:
            sys.exit(f"check_layers: --public names an unknown layer {layer}")
    errors = check(args.root.resolve(), graph, public)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"check_layers: {len(errors)} include(s) against the layers", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
