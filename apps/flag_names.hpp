// flag_names.hpp — the library names the API's parameters (q_heads, ctx, splits, …); the command line says
// its flags (--heads, --ctx, --splits). This is the one place that translates.
#pragma once

#include <string>

#include "core/input_error.hpp"

namespace leanattn::app {

// The flag spelling of one API parameter ("q_heads" → "--heads"); the parameter itself when no flag sets it.
std::string flag_of(const std::string& parameter);

// The error's message as the command line prints it: `--heads 32 --kv-heads 5 (…)` for an error about
// q_heads and kv_heads. Free-form subjects that begin with a parameter's name are translated too.
std::string cli_message(const InputError& error);

}  // namespace leanattn::app
