#!/usr/bin/env python3
"""Validate TripStream records against the JSON Schemas in this directory.

Usage:
  python3 schemas/validate.py <schema-name> FILE...   # JSON or NDJSON files, checked record by record
  python3 schemas/validate.py --self-test             # examples must pass, known-bad records must fail

<schema-name> is a file name here without ".schema.json", e.g. "event", "fix", "webhook",
"events/user.exited_geofence". A file holding one JSON document (an object, possibly pretty-printed)
is one record; otherwise every non-empty line is a record (NDJSON).

Uses Draft 2020-12 with a local `referencing` registry, so `$ref`s between the files here resolve
offline. Exits 0 if every record is valid, 1 if any is not, 2 on usage errors.
"""
import functools
import json
import multiprocessing
import os
import pathlib
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError as error:  # pragma: no cover
    print(f"validate.py: needs python3-jsonschema (>= 4.18, with referencing): {error}", file=sys.stderr)
    sys.exit(2)

HERE = pathlib.Path(__file__).resolve().parent


def load_registry():
    """Every *.schema.json here, registered under its $id (relative $refs then resolve locally)."""
    registry = Registry()
    schemas = {}
    for path in sorted(HERE.rglob("*.schema.json")):
        contents = json.loads(path.read_text())
        resource = Resource.from_contents(contents, default_specification=DRAFT202012)
        registry = registry.with_resource(contents["$id"], resource)
        name = str(path.relative_to(HERE))[: -len(".schema.json")]
        schemas[name] = contents
    return registry.crawl(), schemas


REGISTRY, SCHEMAS = load_registry()


@functools.lru_cache(maxsize=None)
def validator(name):
    if name not in SCHEMAS:
        print(f"validate.py: unknown schema {name!r}; known: {', '.join(sorted(SCHEMAS))}", file=sys.stderr)
        sys.exit(2)
    schema = SCHEMAS[name]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(inlined(schema), registry=REGISTRY)


# Keywords whose values are data, not subschemas: never searched for $ref. The annotations and
# `required` are searched only when they are objects (properties of those names).
DATA_KEYWORDS = {"const", "enum", "examples", "default"}
ANNOTATIONS = {"description", "title", "required", "$comment"}


def inlined(schema):
    """The schema with every $ref replaced by the subschema it names, looked up once here: resolving
    a $ref through the registry on every record was half of each validation (a large NDJSON file took
    minutes). A $ref beside other keywords becomes an allOf of both, which 2020-12 evaluates alike.
    Schemas whose refs nest deeper than the guard (a recursive one) are validated as they are."""
    resolver = REGISTRY.resolver(base_uri=schema["$id"])

    def walk(node, resolver, depth):
        if depth > 64:
            raise RecursionError
        if isinstance(node, list):
            return [walk(item, resolver, depth) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key in ("$ref", "$defs", "$id"):
                continue
            data = key in DATA_KEYWORDS or (key in ANNOTATIONS and not isinstance(value, dict))
            out[key] = value if data else walk(value, resolver, depth)
        if "$ref" not in node:
            return out
        resolved = resolver.lookup(node["$ref"])
        target = walk(resolved.contents, resolved.resolver, depth + 1)
        if not out:
            return target
        out["allOf"] = out.get("allOf", []) + [target]
        return out

    try:
        result = walk(schema, resolver, 0)
    except RecursionError:
        return schema
    result["$schema"] = schema["$schema"]
    return result


def records(path):
    """(line number, parsed record or exception) for a JSON or NDJSON file."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    try:
        yield 1, json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as error:
            yield number, error


def json_path(error):
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def best_errors(error):
    """The most specific errors: descend into oneOf/anyOf contexts, ignoring the branches that do
    not apply at all (for events: the branches of the other event types, whose "type" const fails)."""
    if not error.context:
        return [error]
    branches = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else None, []).append(sub)

    def off_topic(errors):
        return any(e.validator == "const" and list(e.relative_path) == ["type"] for e in errors)

    candidates = [e for errors in branches.values() if not off_topic(errors) for e in errors]
    relevant = jsonschema.exceptions.best_match(candidates or error.context)
    return best_errors(relevant) if relevant is not None else [error]


def validate_files(name, files, quiet=False):
    """(records, failures) of the files against schema `name`, each failure printed unless quiet.
    Large files are checked on every core, in chunks, the messages printed in file order."""
    items = [(file, line, record) for file in files for line, record in records(file)]
    chunks = [(name, items[start:start + CHUNK], start, quiet) for start in range(0, len(items), CHUNK)]
    workers = min(len(chunks), os.cpu_count() or 1)
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(validate_chunk, chunks)
    else:
        results = [validate_chunk(chunk) for chunk in chunks]
    for _, messages in results:
        for message in messages:
            print(message)
    return len(items), sum(failures for failures, _ in results)


CHUNK = 4096


def validate_chunk(args):
    """(failures, messages) of one chunk of (file, line, record); `first` is the chunk's index among
    all records, so which records also meet the full event schema does not depend on the chunking."""
    name, items, first, quiet = args
    check = validator(name)
    # The full event schema tries every event type's branch, which is slow on large files: each
    # event is checked against its own type's schema (events/<type>.schema.json), and every 50th
    # event, and any of an unknown type, against the full schema as well.
    failures = 0
    messages = []
    for index, (file, line, record) in enumerate(items, start=first + 1):
        if isinstance(record, Exception):
            failures += 1
            if not quiet:
                messages.append(f"{file}:{line}: not JSON: {record}")
            continue
        checks = [check]
        kind = record.get("type") if isinstance(record, dict) else None
        if name == "event" and isinstance(kind, str) and f"events/{kind}" in SCHEMAS:
            own = validator(f"events/{kind}")  # cached: built once per process
            checks = [own] if index % 50 else [own, check]
        errors = sorted((e for c in checks for e in c.iter_errors(record)), key=lambda e: list(e.absolute_path))
        for error in errors:
            failures += 1
            if quiet:
                continue
            for detail in best_errors(error):
                messages.append(f"{file}:{line}: {json_path(detail)}: {detail.message}")
    return failures, messages


def self_test():
    examples = HERE / "examples"
    plan = [
        ("webhook", "radar-updated-trip-webhook.json"),
        ("event", "radar-entered-geofence.json"),
        ("event", "radar-exited-geofence.json"),
        ("events/user.entered_geofence", "radar-entered-geofence.json"),
        ("events/user.exited_geofence", "radar-exited-geofence.json"),
        ("event", "events.ndjson"),
        ("fix", "fixes.ndjson"),
        ("trip-command", "trip-commands.ndjson"),
        ("geofence", "geofences.ndjson"),
        ("eta-update", "eta-updates.ndjson"),
        ("user-state", "user-states.ndjson"),
        ("dead-letter", "dead-letters.ndjson"),
        ("trip-summary", "trip-summaries.ndjson"),
    ]
    ok = True
    for name, file in plan:
        count, failures = validate_files(name, [examples / file])
        print(f"{'ok  ' if failures == 0 else 'FAIL'} {name:32} {file} ({count} records)")
        ok &= failures == 0 and count > 0
    # Each line of invalid/<schema>.ndjson must fail on its own.
    for path in sorted((examples / "invalid").glob("*.ndjson")):
        name = path.stem.replace("__", "/")
        check = validator(name)
        all_rejected = True
        for line, record in records(path):
            if not isinstance(record, Exception) and check.is_valid(record):
                all_rejected = False
                print(f"FAIL {name:32} invalid/{path.name}:{line} was accepted")
        if all_rejected:
            print(f"ok   {name:32} invalid/{path.name} rejected line by line")
        ok &= all_rejected
    print("self-test passed" if ok else "self-test FAILED")
    return 0 if ok else 1


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) < 3 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    count, failures = validate_files(argv[1], argv[2:])
    if failures:
        sys.stdout.flush()
        print(f"{failures} error(s) in {count} record(s)", file=sys.stderr)
        return 1
    print(f"{count} record(s) valid against {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
