"""Bytes of machine code (SASS) per kernel in a cubin: the size of each `.text.<kernel>` section of its ELF.

Why: a decode's once-per-segment code runs from a cold instruction cache, so its size costs time whether it runs
or not (bench/NOTES.md, v12c and v13). Put this number beside every A/B of a kernel change. Needs no CUDA tool
beyond nvcc, which makes the cubin (no cuobjdump here):

    nvcc -I. -O3 -DNDEBUG -cubin -arch=sm_90 -std=c++17 -x cu cuda/kernels_fp16.cu -o /tmp/k.cubin
    python3 bench/gpu/sass_size.py /tmp/k.cubin [other.cubin ...]

Standard library only.
"""
import re
import struct
import sys


def text_sections(data):
    """{section name: bytes} of the `.text.*` sections of a little-endian ELF64 image (a cubin)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian 64-bit ELF file (a cubin)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i):  # name offset, type, flags, addr, offset, size, ...
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)

    names = header(shstrndx)[4]
    out = {}
    for i in range(shnum):
        h = header(i)
        start = names + h[0]
        name = data[start:data.index(b"\0", start)].decode()
        if name.startswith(".text."):
            out[name[len(".text."):]] = h[5]
    return out


def short_name(mangled):
    """decode_mma_kernel<fp16, d128, rows 4, traced> from its mangled name; other kernels as they are."""
    m = re.search(r"\d+([a-z_]+_kernel)I(?:6__half|13__nv_bfloat16)Li(\d+)ELi(\d+)E(?:Lb(\d))?", mangled)
    if not m:
        return mangled
    kernel, d, rows, traced = m.groups()
    dtype = "bf16" if "bfloat16" in mangled else "fp16"
    return f"{kernel}<{dtype}, d{d}, rows {rows}{', traced' if traced == '1' else ''}>"


def main(paths):
    for path in paths:
        with open(path, "rb") as f:
            sizes = text_sections(f.read())
        print(f"== {path}: {sum(sizes.values())} bytes of SASS in {len(sizes)} kernels")
        for name, size in sorted(sizes.items(), key=lambda kv: short_name(kv[0])):
            print(f"{size:9d}  {short_name(name)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
