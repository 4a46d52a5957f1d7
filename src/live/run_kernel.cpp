// run_kernel: one configuration run once for its outputs, through the same runner (and worker) as tuning.
#include "ktune/live/run_kernel.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "kernel_run.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/tuning/interruption.hpp"
#include "worker_process.hpp"

namespace ktune::live {

std::vector<KernelArgument> run_kernel(const KernelSpecification& spec, const Problem& problem,
                                       std::span<const Value> config, bool isolate) {
  spec.validate(problem);
  if (config.size() != problem.parameters.size())
    throw std::invalid_argument(fmt::format("run_kernel: {} values for {} parameters", config.size(),
                                            problem.parameters.size()));
  std::string which;
  for (std::size_t p = 0; p < config.size(); ++p)
    which += fmt::format("{}{}={}", p ? ", " : "", problem.parameters[p].name, config[p].repr());
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{} ({}): {}", spec.kernel_name, which, why));
  };

  const LaunchPlanner planner(spec, problem);
  LaunchPlan plan = planner.plan(config);
  detail::RunRequest request;
  try {
    request.code = apply_caller_code(spec, config, plan);
  } catch (const std::exception& e) {
    fail(fmt::format("generating the kernel's code failed: {}", e.what()));
  }
  std::vector<KernelArgument> arguments = make_arguments(spec, problem);
  const KernelSource source = load_source(spec, arguments);
  request.kernel_name = plan.kernel_name;
  request.defines = std::move(plan.defines);
  request.geometry = plan.geometry;
  request.check_run = true;
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (!arguments[i].scalar && !arguments[i].local_memory) request.read_back.push_back(static_cast<std::uint32_t>(i));

  const auto make_runner = [&] {
    auto backend = make_backend(spec.backend, spec.backend_options);
    backend->set_arguments(arguments);
    return std::make_unique<detail::KernelRunner>(std::move(backend), source, arguments);
  };
  const auto check_threads = [&](const DeviceInfo& device) {
    const auto& block = request.geometry.block;
    const std::uint64_t threads = block[0] * block[1] * block[2];
    if (device.max_threads != 0 && threads > device.max_threads)
      fail(fmt::format("a block of {} threads exceeds the device's maximum of {}", threads, device.max_threads));
  };
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  detail::RunResult result;
  if (isolate) {
    detail::WorkerProcess worker(make_runner, Clock::now() + seconds(std::max(spec.timeout_s, 30.0)));
    check_threads(worker.device_info());
    detail::WorkerReply reply = worker.run(request, Clock::now() + seconds(spec.timeout_s));
    if (reply.kind == detail::WorkerReply::Kind::interrupted) throw Interrupted();
    if (reply.kind == detail::WorkerReply::Kind::timeout) fail(fmt::format("timeout after {:g} s", spec.timeout_s));
    if (reply.kind == detail::WorkerReply::Kind::died) fail(reply.message);
    result = std::move(reply.result);
  } else {
    auto runner = make_runner();
    check_threads(runner->backend().device_info());
    result = runner->run(request);
  }
  if (result.outcome == detail::RunOutcome::compile_error)
    fail(result.message + (result.log.empty() ? "" : "\n" + result.log));
  if (result.outcome != detail::RunOutcome::ok) fail(result.message);
  for (std::size_t j = 0; j < request.read_back.size(); ++j) arguments[request.read_back[j]].bytes = result.outputs.at(j);
  return arguments;
}

}  // namespace ktune::live
