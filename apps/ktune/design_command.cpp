// `ktune design`: designs new strategies with a language model (an OpenAI-compatible chat-completions endpoint) in a
// (mu + lambda) evolutionary loop; every candidate is compiled as a plug-in and scored by the methodology on
// brute-forced training spaces. The rules are DesignJob's (ktune/jobs/design_job.hpp); this file only translates.
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/jobs/design_job.hpp"
#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::cli {
namespace {

struct DesignOptions {
  DesignRequest request;
  design::OpenAiClientOptions llm;
  std::string api_key_env = "OPENAI_API_KEY";
  std::vector<std::string> mutations;
  double memory_mib = 4096, file_mib = 256, scratch_mib = 512;
  std::optional<std::uint64_t> tune_evaluations;
  std::optional<double> tune_seconds;
  bool one_plus_one = false, no_elitism = false, json = false, quiet = false;
};

int run_design(DesignOptions& o) {
  DesignRequest& r = o.request;
  if (o.one_plus_one) r.parents = r.offspring = 1;
  r.elitism = !o.no_elitism;
  if (o.tune_evaluations || o.tune_seconds) {
    r.tune_budget = Budget{};
    r.tune_budget->max_evaluations = o.tune_evaluations;
    r.tune_budget->time_limit_seconds = o.tune_seconds;
  }
  r.limits.sandbox.memory_bytes = static_cast<std::size_t>(o.memory_mib * 1024 * 1024);
  r.limits.sandbox.file_bytes = static_cast<std::size_t>(o.file_mib * 1024 * 1024);
  r.limits.sandbox.scratch_bytes = static_cast<std::size_t>(o.scratch_mib * 1024 * 1024);
  if (!o.mutations.empty()) {
    r.mutations.clear();
    for (const auto& m : o.mutations) {
      if (m == "refine") r.mutations.push_back(design::PromptKind::refine);
      else if (m == "different") r.mutations.push_back(design::PromptKind::different);
      else if (m == "simplify") r.mutations.push_back(design::PromptKind::simplify);
      else {
        std::cerr << fmt::format("ktune design: error: --mutations: '{}' is none of refine, different, simplify\n", m);
        return kExitUsage;
      }
    }
  }
  // Not inherited by what ktune starts (the compiler of the plug-in headers): candidates of another run without a pid
  // namespace can read any environment of this user's processes.
  o.llm.api_key = sandbox::take_secret_from_environment(o.api_key_env);
  o.llm.model = r.model;
  if (!o.quiet)
    o.llm.on_retry = [](int attempt, double seconds, const std::string& why) {
      std::cerr << fmt::format("ktune design: the language model failed (attempt {}: {}); retrying in {:.1f} s\n",
                               attempt, why, seconds);
    };
  if (!o.quiet) r.progress = [](const std::string& line) { std::cerr << line << "\n"; };

  std::unique_ptr<design::LlmClient> client;
  std::optional<DesignJob> job;
  try {
    client = design::make_openai_client(o.llm);
    job.emplace(r, *client);
  } catch (const design::LlmError& e) {
    std::cerr << "ktune design: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const JobError& e) {
    std::cerr << "ktune design: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
  DesignResult result;
  try {
    result = job->run();
  } catch (const design::LlmError& e) {
    std::cerr << fmt::format("ktune design: error: {}\n  what was done is in {}/design.jsonl: run the same command "
                             "again to resume\n",
                             e.what(), r.output_dir);
    return kExitInputError;
  } catch (const JobError& e) {
    std::cerr << "ktune design: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
  if (o.json)
    std::cout << design_result_json(result).dump(2) << "\n";
  else
    write_design_report(std::cout, result);
  if (result.interrupted) {
    if (!o.quiet)
      std::cerr << fmt::format("ktune design: interrupted; the same command resumes from {}\n", result.log_path);
    return interrupted_exit_status(stop_signal());
  }
  return kExitOk;
}

}  // namespace

Command add_design_command(CLI::App& app) {
  auto o = std::make_shared<DesignOptions>();
  CLI::App* sub = app.add_subcommand(
      "design", "Design new strategies with a language model (LLaMEA's loop), scored by the methodology");
  DesignRequest& r = o->request;
  sub->add_option("--spaces", r.spaces, "Brute-forced training spaces (Kernel Tuner cache or T4 files)");
  sub->add_option("--validation-spaces", r.validation_spaces, "Score the best strategies on these spaces at the end");
  sub->add_option("--llm-url", o->llm.url,
                  "OpenAI-compatible endpoint: base URL (http://127.0.0.1:8080/v1) or .../chat/completions")
      ->required();
  sub->add_option("--model", r.model, "Model name sent to the endpoint")->required();
  sub->add_option("--api-key-env", o->api_key_env, "Environment variable holding the API key (sent as a bearer token)")
      ->capture_default_str();
  sub->add_option("--temperature", o->llm.temperature, "Sampling temperature")->capture_default_str()
      ->check(real_number(0, 10, false));
  sub->add_option("--max-tokens", o->llm.max_tokens, "Longest reply asked for (default: the server's)")
      ->check(whole_number(1, kLargeCount));
  sub->add_option("--llm-timeout", o->llm.timeout_seconds, "Seconds a reply may take")->capture_default_str()
      ->check(real_number(0, 1e6, true));
  sub->add_option("--llm-retries", o->llm.retries, "Retries after a 429, a 5xx or a failed connection")
      ->capture_default_str()->check(whole_number(0, 1000));
  sub->add_option("--llm-backoff", o->llm.backoff_seconds, "First wait before a retry, doubled each time")
      ->capture_default_str()->check(real_number(0, 3600, false));
  sub->add_option("--budget", r.budget, "Language-model calls (= candidates)")->capture_default_str()
      ->check(whole_number(1, kLargeCount));
  sub->add_option("--parents", r.parents, "Population size (mu)")->capture_default_str()->check(whole_number(1, 10000));
  sub->add_option("--offspring", r.offspring, "Candidates per generation (lambda)")->capture_default_str()
      ->check(whole_number(1, 10000));
  sub->add_flag("--one-plus-one", o->one_plus_one, "(1+1): one parent, one offspring");
  sub->add_flag("--no-elitism", o->no_elitism, "Survivors from the offspring only (mu, lambda)");
  sub->add_option("--selection", r.selection, "How a parent is chosen")
      ->transform(CLI::CheckedTransformer(std::map<std::string, ParentSelection>{
          {"random", ParentSelection::random}, {"tournament", ParentSelection::tournament},
          {"roulette", ParentSelection::roulette}}))
      ->default_str("random");
  sub->add_option("--mutations", o->mutations, "Mutation prompts to draw from (refine, different, simplify)")
      ->delimiter(',');
  sub->add_option("--max-repairs", r.max_repairs, "Repair prompts in a row for a failing candidate")
      ->capture_default_str()->check(whole_number(0, 100));
  sub->add_option("--repeats", r.repeats, "Runs per space of every candidate")->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--hpo", r.hyperparameter_settings, "Tune each candidate's declared hyperparameters over this many "
                  "settings, its defaults included (LLaMEA-HPO; the time limit holds per setting)")
      ->check(whole_number(0, 1000));
  sub->add_option("--seed", r.seed, "Seed of the selection and of the runs")->capture_default_str()
      ->check(seed_number());
  sub->add_option("--threads", r.threads, "Scoring threads (0: all cores)")->capture_default_str()
      ->check(thread_count());
  add_baseline_option(sub, r.baseline);
  sub->add_option("--problem-info", r.problem_info,
                  "T1 file of the target application: shown in the prompt, with the training spaces' statistics");
  sub->add_flag("--space-info", r.space_info, "Show the training spaces' statistics in the prompt");
  sub->add_option("--output", r.output_dir, "Directory of the log, the candidates and the results (resumed if present)")
      ->capture_default_str();
  sub->add_flag("--restart", r.restart, "Start over instead of resuming the log in --output");
  sub->add_option("--keep", r.keep, "Best strategies written out (and validated)")->capture_default_str()
      ->check(whole_number(1, 10000));
  sub->add_option("--compile-limit", r.limits.compile_seconds, "Seconds a candidate may take to compile")
      ->capture_default_str()->check(real_number(0, 1e6, true));
  sub->add_option("--time-limit", r.limits.run_seconds, "Seconds a candidate's runs may take (wall clock)")
      ->capture_default_str()->check(real_number(0, 1e6, true));
  sub->add_option("--memory-limit", o->memory_mib, "MiB of address space for a candidate's worker")
      ->capture_default_str()->check(real_number(64, 1e9, false));
  sub->add_option("--file-limit", o->file_mib, "MiB a candidate (or its compiler) may write into any one file")
      ->capture_default_str()->check(real_number(1, 1e9, false));
  sub->add_option("--scratch-limit", o->scratch_mib, "MiB of a candidate's private scratch folder (a tmpfs)")
      ->capture_default_str()->check(real_number(1, 1e9, false));
  sub->add_flag("--unsafe-no-sandbox", r.unsafe_no_sandbox,
                "Score candidates even where the sandbox cannot keep them off the network (see docs/design.md)");
  sub->add_option("--for", r.for_problem,
                  "Design for this problem (T1, ktune JSON or Kernel Tuner cache): scored on its own earlier results "
                  "if they can be, else on the --spaces most like it");
  sub->add_option("--earlier-results", r.earlier_results, "With --for: caches of earlier runs of the problem");
  sub->add_option("--similar", r.similar, "With --for: how many of the --spaces most like the problem")
      ->capture_default_str()->check(whole_number(1, 10000));
  sub->add_option("--tune-budget", o->tune_evaluations,
                  "With --for: then tune the problem with the best strategy for this many evaluations (simulated "
                  "from a cache, else live)")
      ->check(whole_number(1, kLargeCount));
  sub->add_option("--tune-time-limit", o->tune_seconds, "With --for: then tune for this many seconds")
      ->check(real_number(0, 1e12, true));
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_flag("--quiet", o->quiet, "No progress lines");
  return {sub, [o] { return run_design(*o); }};
}

}  // namespace ktune::cli
