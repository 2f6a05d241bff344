// device_file_fuzz.cpp — a coverage-guided fuzz target (libFuzzer) for the device and model file reader
// (apps/device_file.hpp): any bytes must give a device, a model, or an InputError naming the file; any
// other exception, a crash, a leak or undefined behaviour (the target is built with ASan and UBSan) is a
// finding. Its corpus lives in tests/fuzz/corpus/device_file/ and is replayed on every run, so an input
// that once failed stays a regression test.
#include <cstddef>
#include <cstdint>
#include <string>

#include "apps/device_file.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        leanattn::app::device_from_text(text, "fuzz.json");
    } catch (const leanattn::InputError&) {
    }
    try {
        leanattn::app::model_from_text(text, "fuzz.json");
    } catch (const leanattn::InputError&) {
    }
    return 0;
}
