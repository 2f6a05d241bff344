// commands.hpp — one entry point per subcommand (apps/cmd_<name>.cpp); main only dispatches.
//
// Each takes the arguments after the subcommand name and returns the exit code; InputError and
// boost::program_options errors propagate to main, which prints them and exits 2.
#pragma once

#include <string>
#include <vector>

namespace leanattn::app {

using Args = std::vector<std::string>;

int schedule_main(const Args& args);
int simulate_main(const Args& args);
int sweep_main(const Args& args);
int devices_main(const Args& args);
int models_main(const Args& args);
int cpu_main(const Args& args);
int calibrate_main(const Args& args);
#if defined(LEANATTN_WITH_CUDA)
int cuda_main(const Args& args);  // `cuda validate` and `cuda bench`
#endif

}  // namespace leanattn::app
