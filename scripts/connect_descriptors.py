"""Writes the protocol of Spark Connect as a protobuf FileDescriptorSet, for protoc.

The pinned pyspark ships Spark Connect's messages as generated Python modules
(pyspark/sql/connect/proto/*_pb2.py), and googleapis-common-protos ships google.rpc's the same
way. Each module hands one serialized FileDescriptorProto to the descriptor pool in a call
`AddSerializedFile(b"...")`. This script reads that bytes literal out of each module's source,
without importing it (the modules need a newer protobuf runtime than the build may have), and
writes the descriptors as a FileDescriptorSet: `protoc --descriptor_set_in=<set>` then generates
the C++ code at build time, so no .proto file of Spark's is ever copied into Ember.

usage: connect_descriptors.py OUTPUT PACKAGE_DIR...
  PACKAGE_DIR is a dotted package path such as pyspark.sql.connect.proto or google.rpc, found on
  this interpreter's sys.path without importing it. Every *_pb2.py module in it is read.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys

# FileDescriptorProto's field numbers (descriptor.proto).
NAME, DEPENDENCY, SYNTAX, EDITION = 1, 3, 12, 14


def package_dir(dotted: str) -> pathlib.Path:
    """The folder of a package, found through its top-level package's search path."""
    top, _, rest = dotted.partition(".")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"connect_descriptors: package {top!r} is not installed for {sys.executable}")
    for root in spec.submodule_search_locations:  # a namespace package (google) has several
        folder = pathlib.Path(root, *rest.split(".")) if rest else pathlib.Path(root)
        if folder.is_dir():
            return folder
    sys.exit(f"connect_descriptors: no folder for {dotted!r} under {top!r}")


def serialized_descriptor(module: pathlib.Path) -> bytes | None:
    """The bytes literal passed to AddSerializedFile in a generated module, if any."""
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"), str(module))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "AddSerializedFile" and node.args):
            value = ast.literal_eval(node.args[0])
            if not isinstance(value, bytes):
                sys.exit(f"connect_descriptors: {module}: AddSerializedFile of a non-bytes value")
            return value
    return None


def read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def top_level_fields(message: bytes):
    """(field number, value) of each field of one serialized message, not descending."""
    at = 0
    while at < len(message):
        key, at = read_varint(message, at)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, at = read_varint(message, at)
        elif wire_type == 2:
            size, at = read_varint(message, at)
            value, at = message[at:at + size], at + size
        elif wire_type == 1:
            value, at = message[at:at + 8], at + 8
        elif wire_type == 5:
            value, at = message[at:at + 4], at + 4
        else:
            raise ValueError(f"wire type {wire_type} in a FileDescriptorProto")
        yield number, value


class FileDescriptor:
    def __init__(self, module: pathlib.Path, serialized: bytes):
        self.serialized = serialized
        self.name = ""
        self.dependencies: list[str] = []
        syntax = "proto2"
        for number, value in top_level_fields(serialized):
            if number == NAME:
                self.name = value.decode()
            elif number == DEPENDENCY:
                self.dependencies.append(value.decode())
            elif number == SYNTAX:
                syntax = value.decode()
            elif number == EDITION:
                syntax = "editions"
        # Debian's protoc (3.21) knows proto2 and proto3, not editions: say so rather than let
        # protoc fail on a newer pyspark.
        if syntax not in ("proto2", "proto3"):
            sys.exit(f"connect_descriptors: {module} is {syntax}, which this protoc cannot read")


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        sys.exit(__doc__)
    output, packages = pathlib.Path(argv[1]), argv[2:]
    files: dict[str, FileDescriptor] = {}
    for dotted in packages:
        modules = sorted(package_dir(dotted).glob("*_pb2.py"))
        if not modules:
            sys.exit(f"connect_descriptors: no *_pb2.py modules in {dotted}")
        for module in modules:
            serialized = serialized_descriptor(module)
            if serialized is not None:
                descriptor = FileDescriptor(module, serialized)
                files[descriptor.name] = descriptor
    # Dependencies before the files that import them; imports from outside the set (such as
    # google/protobuf/any.proto) come from protoc's include path.
    ordered: list[str] = []

    def place(name: str) -> None:
        if name in files and name not in ordered:
            for dependency in files[name].dependencies:
                place(dependency)
            ordered.append(name)

    for name in sorted(files):
        place(name)
    blob = b"".join(b"\x0a" + encode_varint(len(files[n].serialized)) + files[n].serialized
                    for n in ordered)  # FileDescriptorSet.file, field 1, length-delimited
    output.parent.mkdir(parents=True, exist_ok=True)
    if not output.exists() or output.read_bytes() != blob:  # an unchanged set rebuilds nothing
        output.write_bytes(blob)


if __name__ == "__main__":
    main(sys.argv)
