#!/usr/bin/env python3
"""emulate_launches.py IN.cu OUT.cpp -- rewrite the kernel launches of a CUDA/HIP source,
    kernel<<<grid, block, shmem, stream>>>(args)
into calls of the CPU emulation (tests/gpu_emu/gpu_emu.h),
    insdg_emu::launch(insdg_emu::cfg(grid, block, shmem, stream), kernel, args)
and leave everything else as it is. The callee may carry template arguments; the launch
configuration ends at the first '>>>'. Fails loudly on anything else."""
import sys


def convert(src: str, path: str) -> str:
    out, i, count = [], 0, 0
    while True:
        j = src.find("<<<", i)
        if j < 0:
            out.append(src[i:])
            break
        k = src.find(">>>", j)
        if k < 0:
            sys.exit(f"{path}: '<<<' without '>>>'")
        p = j - 1
        if src[p] == ">":  # template arguments of the callee, scanned backwards
            depth = 0
            while p >= 0:
                depth += {">": 1, "<": -1}.get(src[p], 0)
                if depth == 0:
                    break
                p -= 1
            p -= 1
        while p >= 0 and (src[p].isalnum() or src[p] in "_:"):
            p -= 1
        start = p + 1
        callee = src[start:j].strip()
        q = k + 3
        while q < len(src) and src[q].isspace():
            q += 1
        if not callee or q >= len(src) or src[q] != "(":
            line = src.count("\n", 0, j) + 1
            sys.exit(f"{path}:{line}: cannot parse this launch")
        out.append(src[i:start])
        out.append(f"insdg_emu::launch(insdg_emu::cfg({src[j + 3:k]}), {callee}, ")
        i = q + 1
        count += 1
    text = "".join(out)
    return f"// generated from {path} by tests/gpu_emu/emulate_launches.py ({count} launches); do not edit\n" + text


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: emulate_launches.py IN.cu OUT.cpp")
    with open(sys.argv[1]) as f:
        src = f.read()
    text = convert(src, sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write(text)
