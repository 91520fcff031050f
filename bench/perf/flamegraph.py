#!/usr/bin/python3
"""Folds `perf script` output into stacks and draws them as a flame graph (SVG), with a table of where the
time goes. The project's own small version of Brendan Gregg's stackcollapse-perf.pl and flamegraph.pl,
which Debian does not package; Swift names are made readable with `swift demangle --simplified`.

    perf script -i perf.data | bench/perf/flamegraph.py --title "page=year under wrk" --svg out.svg --top out.txt
"""

import argparse
import collections
import html
import re
import shutil
import subprocess
import sys

FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)\s+\((.*)\)$")
OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def read_stacks(lines):
    """(thread name, frames root first) for each sample of `perf script`."""
    stacks, frames, thread = [], [], None
    for line in lines:
        if not line.strip():
            if thread is not None:
                stacks.append((thread, list(reversed(frames))))
            frames, thread = [], None
            continue
        if thread is None:
            thread = line.split()[0] if line.split() else "?"
            # perf names a thread after its first 15 characters; NIO's loops differ only in their number.
            thread = re.sub(r"#\d+$", "", thread)
            continue
        m = FRAME.match(line)
        if m:
            symbol = OFFSET.sub("", m.group(1))
            if symbol == "[unknown]":
                symbol = f"[{m.group(2).rsplit('/', 1)[-1]}]"
            frames.append(symbol)
    if thread is not None:
        stacks.append((thread, list(reversed(frames))))
    return stacks


def demangler(symbols):
    """A map of every mangled Swift symbol to its simplified name (unchanged when no demangler is found)."""
    names = sorted({s for s in symbols if s.startswith(("$s", "_$s"))})
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    if not names or not shutil.os.path.exists(tool):
        return {}
    out = subprocess.run([tool, "--simplified"], input="\n".join(names), capture_output=True, text=True).stdout
    readable = out.splitlines()
    return {n: shorten(r) for n, r in zip(names, readable)} if len(readable) == len(names) else {}


def shorten(name):
    """Generic arguments and closure contexts make Swift names long; the flame graph wants the function."""
    name = re.sub(r"^(partial apply for |merged |specialized |outlined \w+ of |closure #\d+ in )+", "", name)
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)[:160]


def fold(stacks, names):
    counts = collections.Counter()
    for thread, frames in stacks:
        counts[tuple([thread] + [names.get(f, f) for f in frames])] += 1
    return counts


def tree(counts):
    root = {"n": 0, "kids": {}}
    for stack, n in counts.items():
        node = root
        node["n"] += n
        for frame in stack:
            node = node["kids"].setdefault(frame, {"n": 0, "kids": {}})
            node["n"] += n
    return root


def color(name):
    h = sum(map(ord, name)) % 60
    if name.startswith("[") or "kernel" in name:
        return f"rgb(230,{120 + h},{60 + h // 2})"
    if name.startswith("swift_") or "retain" in name or "release" in name:
        return f"rgb({190 + h // 2},{90 + h},{200})"
    return f"rgb(240,{100 + h * 2},{40 + h // 3})"


def svg(root, title, width=1400, row=16):
    rects = []

    def walk(node, name, x, depth):
        w = node["n"] / root["n"] * width
        if w < 0.3:
            return
        if name is not None:
            pct = 100 * node["n"] / root["n"]
            label = html.escape(name)
            text = html.escape(name[: int(w / 7)]) if w > 21 else ""
            rects.append((x, depth, w, label, pct, text, color(name)))
        cx = x
        for kid_name, kid in sorted(node["kids"].items(), key=lambda kv: kv[0]):
            walk(kid, kid_name, cx, depth + 1)
            cx += kid["n"] / root["n"] * width

    walk(root, None, 0.0, -1)
    depth = max((r[1] for r in rects), default=0) + 1
    height = (depth + 3) * row
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="11">',
           f'<rect width="100%" height="100%" fill="#fdfdf5"/><text x="8" y="{row}" font-size="13">{html.escape(title)} '
           f'({root["n"]} samples; hover for names)</text>']
    for x, d, w, label, pct, text, fill in rects:
        y = height - (d + 2) * row
        out.append(f'<g><title>{label} ({pct:.1f}%)</title><rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 1}" fill="{fill}"/>'
                   f'<text x="{x + 2:.1f}" y="{y + row - 4}">{text}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


def top(counts, total, limit=40, focus=None):
    """Self time by function, and time including callees by function (each counted once a stack); with
    `focus`, also the total of every function whose name matches it (the product's own code)."""
    self_time, inclusive = collections.Counter(), collections.Counter()
    for stack, n in counts.items():
        self_time[stack[-1]] += n
        for frame in set(stack[1:]):
            inclusive[frame] += n
    lines = [f"{total} samples", "", "self %   function"]
    lines += [f"{100 * n / total:6.2f}   {name}" for name, n in self_time.most_common(limit)]
    lines += ["", "total %  function (with what it calls)"]
    lines += [f"{100 * n / total:6.2f}   {name}" for name, n in inclusive.most_common(limit)]
    if focus:
        pattern = re.compile(focus)
        lines += ["", f"total %  functions matching {focus}"]
        lines += [f"{100 * n / total:6.2f}   {name}" for name, n in inclusive.most_common()
                  if pattern.search(name) and 100 * n / total >= 0.2]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--title", default="flame graph")
    parser.add_argument("--svg", required=True)
    parser.add_argument("--top", help="also write the self and total tables here")
    parser.add_argument("--folded", help="also write the folded stacks here")
    parser.add_argument("--focus", help="a regular expression: list the total time of the functions it matches")
    args = parser.parse_args()
    stacks = read_stacks(sys.stdin)
    if not stacks:
        sys.exit("flamegraph: no samples on standard input (perf script's output)")
    names = demangler({f for _, frames in stacks for f in frames})
    counts = fold(stacks, names)
    with open(args.svg, "w") as f:
        f.write(svg(tree(counts), args.title))
    if args.top:
        with open(args.top, "w") as f:
            f.write(top(counts, len(stacks), focus=args.focus))
    if args.folded:
        with open(args.folded, "w") as f:
            f.writelines(";".join(s) + f" {n}\n" for s, n in counts.most_common())


if __name__ == "__main__":
    main()
