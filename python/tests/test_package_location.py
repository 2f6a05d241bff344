"""Which package the tests run: this source tree's (the default, with the build's libleanattn.so), or an installed
wheel's (LEANATTN_TEST_INSTALLED=1, scripts/check_pip.sh), which must carry its library and data inside it."""
import os
import pathlib

import leanattn

SOURCE_PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "leanattn"


def test_the_package_under_test_is_the_one_asked_for():
    package = pathlib.Path(leanattn.__file__).resolve().parent
    if os.environ.get("LEANATTN_TEST_INSTALLED") == "1":
        assert package != SOURCE_PACKAGE, "LEANATTN_TEST_INSTALLED=1 but the tests imported the source tree's package"
        assert leanattn.library_path == package / "libleanattn.so"
        assert sorted(p.stem for p in (package / "data" / "devices").glob("*.json")) == sorted(
            p.stem for p in (SOURCE_PACKAGE.parents[1] / "data" / "devices").glob("*.json"))
    else:
        assert package == SOURCE_PACKAGE
        explicit = os.environ.get("LEANATTN_LIBRARY")
        if explicit:
            assert leanattn.library_path == pathlib.Path(explicit).resolve()


def test_the_library_finds_its_data_files():
    # A device by name: read from the data folder the library finds (inside an installed wheel: its own).
    report = leanattn.schedule(batch=2, heads=32, kv_heads=8, head_dim=128, ctx=4096, device="h100-sxm")
    assert report["device"]["sms"] == 132
