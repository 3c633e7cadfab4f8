#!/usr/bin/env python3
"""Every path the docs point at is in the repo (issue 41: README named a sample README a clone does not have).

Checks README.md, docs/**/*.md, bench/README.md and samples/README.md:
- each relative Markdown link `[text](path#anchor)` names a file or folder of the repository, and its
  anchor (if any) a heading of that file, as GitHub makes anchors;
- each repository path in backticks (`deploy/prometheus/tripstream-rules.yaml`, `analysts/views.sql`, a
  glob such as `deploy/prometheus/tests/*.yaml`) exists;
and the `runbook` annotations of the alert rules (deploy/prometheus/) name a runbook heading that exists.

    python3 .ci/docs_links.py          # prints each broken reference as file:line: what; exit 1 if any
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = ["README.md", "bench/README.md", "samples/README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
# Top-level folders of the repository: a backticked text starting with one of them is a path.
REPO_DIRS = ("Sources/", "Tests/", "scripts/", ".ci/", "bench/", "deploy/", "docker/", "schemas/", "samples/",
             "analysts/", "docs/")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")


def anchors(path):
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation but - and _ dropped,
    spaces to dashes; a repeated heading gets -1, -2, …"""
    found, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as text:
        for line in text:
            if line.startswith("```"):
                fenced = not fenced
            match = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if match:
                slug = re.sub(r"[^\w\- ]", "", match.group(1).lower()).replace(" ", "-")
                count = seen.get(slug, 0)
                seen[slug] = count + 1
                found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def check_link(doc, target):
    """The problem with a link from `doc`, or None when it resolves."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return None  # http:, https:, mailto:: not this check's business
    path, _, anchor = target.partition("#")
    resolved = os.path.normpath(os.path.join(os.path.dirname(os.path.join(ROOT, doc)), path)) if path \
        else os.path.join(ROOT, doc)
    if not resolved.startswith(ROOT + os.sep) and resolved != ROOT:
        return f"link {target} leaves the repository"
    if not os.path.exists(resolved):
        return f"link {target}: no {os.path.relpath(resolved, ROOT)} in the repository"
    if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
        return f"link {target}: {os.path.relpath(resolved, ROOT)} has no heading with anchor #{anchor}"
    return None


def check_code_path(text):
    """The problem with a backticked repository path, or None (also None when it is not one)."""
    candidate = text.split()[0] if text.split() else ""
    if not candidate.startswith(REPO_DIRS) or "…" in candidate or "<" in candidate or "$" in candidate:
        return None
    candidate = candidate.rstrip(".,:;)")
    if re.search(r"[A-Z]{3,}", candidate.split("/")[-1]) and not candidate.endswith(".md"):
        return None  # a placeholder such as DIR/locations/date=… or a FILE argument
    if glob.glob(os.path.join(ROOT, candidate)):
        return None
    return f"`{candidate}` is not in the repository"


def main():
    problems = []
    for doc in DOCS:
        fenced = False
        with open(os.path.join(ROOT, doc), encoding="utf-8") as text:
            for number, line in enumerate(text, 1):
                if line.startswith("```"):
                    fenced = not fenced
                    continue
                if fenced:
                    continue
                for match in LINK.finditer(line):
                    problem = check_link(doc, match.group(1) or match.group(2))
                    if problem:
                        problems.append(f"{doc}:{number}: {problem}")
                for match in CODE.finditer(LINK.sub("", line)):
                    problem = check_code_path(match.group(1))
                    if problem:
                        problems.append(f"{doc}:{number}: {problem}")
    for rules in sorted(glob.glob(os.path.join(ROOT, "deploy", "prometheus", "**", "*.yaml"), recursive=True)):
        with open(rules, encoding="utf-8") as text:
            for number, line in enumerate(text, 1):
                match = re.search(r'runbook:\s*"([^"]+)"', line)
                if match:
                    problem = check_link("README.md", match.group(1))  # annotations are relative to the root
                    if problem:
                        problems.append(f"{os.path.relpath(rules, ROOT)}:{number}: runbook {problem}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        sys.exit(f"docs links: {len(problems)} broken references")
    print(f"docs links: every link and repository path in {len(DOCS)} files resolves")


if __name__ == "__main__":
    main()
