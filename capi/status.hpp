// status.hpp — no C++ exception crosses the C ABI: each becomes a status and this thread's message.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "core/input_error.hpp"
#include "leanattn.h"

namespace leanattn::capi {

void set_last_error(const std::string& message);
const char* last_error();
// A copy of `text` the caller frees with leanattn_free.
char* c_string(const std::string& text);

// Runs `body`; what it throws becomes a status (bad input, out of memory, a runtime failure, or — for
// anything that is not a std::exception — an internal error) and the message leanattn_last_error returns.
template <typename Body>
leanattn_status guarded(Body&& body) {
    try {
        body();
        set_last_error("");
        return LEANATTN_OK;
    } catch (const InputError& e) {
        set_last_error(e.what());
        return LEANATTN_ERROR_INVALID_ARGUMENT;
    } catch (const std::bad_alloc&) {
        set_last_error("out of memory");
        return LEANATTN_ERROR_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        set_last_error(e.what());
        return LEANATTN_ERROR_RUNTIME;
    } catch (...) {
        set_last_error("internal: an exception that is not a std::exception");
        return LEANATTN_ERROR_INTERNAL;
    }
}

}  // namespace leanattn::capi
