"""sass_size.py on a made-up ELF64 image: it finds the .text sections by name and reads their sizes, names the
decode kernels' template arguments, and refuses what is not an ELF64 file."""
import struct

import pytest

from sass_size import short_name, text_sections


def elf_with_sections(sections):
    """A minimal little-endian ELF64 image: a null section, the given (name, size) ones, then .shstrtab."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n, _ in sections) + b".shstrtab\0"
    header_size, entry = 64, 64
    shoff = header_size + len(names)
    count = len(sections) + 2
    elf = bytearray(b"\x7fELF" + bytes([2, 1, 1]) + bytes(9))
    elf += bytes(header_size - len(elf))
    struct.pack_into("<Q", elf, 0x28, shoff)
    struct.pack_into("<HHH", elf, 0x3A, entry, count, count - 1)
    elf += names
    elf += bytes(entry)  # section 0
    at = 1
    for name, size in sections:
        elf += struct.pack("<IIQQQQIIQQ", at, 1, 6, 0, 0, size, 0, 0, 1, 0)
        at += len(name) + 1
    elf += struct.pack("<IIQQQQIIQQ", at, 3, 0, 0, header_size, len(names), 0, 0, 1, 0)
    return bytes(elf)


def test_text_sections_are_found_by_name_with_their_sizes():
    image = elf_with_sections([(".text.kernel_a", 4096), (".nv.info", 12), (".text.kernel_b", 128)])
    assert text_sections(image) == {"kernel_a": 4096, "kernel_b": 128}


def test_decode_kernels_are_named_by_their_template_arguments():
    mma = "_ZN8leanattn4cuda17decode_mma_kernelI6__halfLi128ELi4ELb1EEEvNS0_12DecodeParamsE"
    simt = "_ZN8leanattn4cuda18decode_simt_kernelI13__nv_bfloat16Li64ELi1ELb0EEEvNS0_12DecodeParamsE"
    assert short_name(mma) == "decode_mma_kernel<fp16, d128, rows 4, traced>"
    assert short_name(simt) == "decode_simt_kernel<bf16, d64, rows 1>"
    assert short_name("something_else") == "something_else"


def test_a_file_that_is_not_elf64_is_refused():
    with pytest.raises(ValueError, match="ELF"):
        text_sections(b"not an elf file at all, not even close" * 4)
