#!/usr/bin/env python3
"""Import cycles in src/: reads every `crate::…` / `super::…` path (in `use` items and in
code) of each file, resolves it to the file of the deepest module it names, and prints the
strongly connected components of that file graph that have more than one file. The rules
(docs/ARCHITECTURE.md): no cycle crosses between the core and a family, and none is larger
than three files. Exit status 1 when a rule is broken."""
import os, re, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
files = {}  # module path tuple -> file
for dirpath, _, names in os.walk(root):
    for name in names:
        if not name.endswith(".rs"):
            continue
        rel = os.path.relpath(os.path.join(dirpath, name), root)
        parts = rel[:-3].split(os.sep)
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        files[tuple(parts)] = rel

def module_of(rel):
    parts = rel[:-3].split(os.sep)
    return tuple(parts[:-1]) if parts[-1] in ("mod", "lib") else tuple(parts)

def resolve(path):  # deepest existing module prefix
    for n in range(len(path), -1, -1):
        if tuple(path[:n]) in files:
            return files[tuple(path[:n])]
    return None

child_re = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)*)", re.M)
path_re = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{)")
edges = {f: set() for f in files.values()}
for mod, rel in files.items():
    text = open(os.path.join(root, rel)).read()
    text = re.sub(r"//[^\n]*", "", text)  # comments and docs name paths without using them
    # `use child::…` / `pub use child::…` in a module file: an edge to that child
    for m in child_re.finditer(text):
        if mod + (m.group(1),) in files:
            target = resolve(list(mod) + [m.group(1)] + [p for p in m.group(2).split("::") if p])
            if target and target != rel:
                edges[rel].add(target)
    for m in path_re.finditer(text):
        head, tail = m.group(1), [p for p in m.group(2).split("::") if p and p != "{"]
        base = [] if head == "crate" else list(mod[:-1])
        # a use list `{a, b::c}` after the path: each item extends it
        after = text[m.end():m.end() + 400]
        items = [tail]
        if after.startswith("::{") or m.group(2) == "::{":
            brace = text[m.end():].split("}", 1)[0].lstrip(":{")
            items = [tail + [s.strip() for s in i.split("::") if s.strip()] for i in brace.split(",") if i.strip()]
        for t in items:
            target = resolve(base + t)
            if target and target != rel:
                edges[rel].add(target)

# Tarjan's strongly connected components
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        comps.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in edges:
    if v not in index:
        visit(v)

families = ("conv1d", "conv3d")
bad = 0
for comp in comps:
    if len(comp) < 2:
        continue
    kinds = {("family " + c.split(os.sep)[0]) if c.split(os.sep)[0] in families else "core" for c in comp}
    broken = len(comp) > 3 or len(kinds) > 1
    bad |= broken
    print(("BROKEN " if broken else "ok     ") + f"{len(comp)} files: " + " <-> ".join(comp))
print(f"{sum(len(c) > 1 for c in comps)} cycles among {len(files)} files; " + ("rules broken" if bad else "rules kept"))
sys.exit(1 if bad else 0)
