#include "ktune/jobs/design_job.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/design/design_log.hpp"
#include "ktune/design/resembling_spaces.hpp"
#include "ktune/design/reply_parser.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/problem_file.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/rng.hpp"
#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using design::CandidateScore;
using design::PromptKind;
using Clock = std::chrono::steady_clock;

constexpr int kLogVersion = 1;

void write_text(const fs::path& path, const std::string& text) {
  try {
    io::write_file_atomically(path.string(), text);
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
}

// A file-name-safe form of a strategy name.
std::string slug(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.size() > 40) s.resize(40);
  return s.empty() ? "candidate" : s;
}

// [[space, score], ...]
json pairs_json(const std::vector<std::pair<std::string, double>>& pairs) {
  json out = json::array();
  for (const auto& [space, value] : pairs) out.push_back({space, value});
  return out;
}

json score_json(const CandidateScore& s) {
  return {{"ok", s.ok},
          {"stage", s.stage},
          {"error", s.error},
          {"declared_name", s.declared_name},
          {"compile_log", s.compile_log},
          {"score", s.ok ? json(s.score) : json(nullptr)},
          {"per_space", pairs_json(s.per_space)},
          {"settings", s.settings},
          {"default_score", s.default_score ? json(*s.default_score) : json(nullptr)},
          {"settings_scored", s.settings_scored},
          {"compile_seconds", s.compile_seconds},
          {"run_seconds", s.run_seconds},
          {"scoring_seconds", s.scoring_seconds},
          {"wall_seconds", s.wall_seconds}};
}

CandidateScore score_of(const json& j) {
  CandidateScore s;
  s.ok = j.value("ok", false);
  s.stage = j.value("stage", "");
  s.error = j.value("error", "");
  s.declared_name = j.value("declared_name", "");
  s.compile_log = j.value("compile_log", "");
  if (s.ok) s.score = j.at("score").get<double>();
  for (const auto& e : j.value("per_space", json::array())) s.per_space.emplace_back(e[0].get<std::string>(), e[1].get<double>());
  s.settings = j.value("settings", std::vector<std::string>{});
  if (j.contains("default_score") && j["default_score"].is_number()) s.default_score = j["default_score"].get<double>();
  s.settings_scored = j.value("settings_scored", std::size_t{0});
  s.compile_seconds = j.value("compile_seconds", 0.0);
  s.run_seconds = j.value("run_seconds", 0.0);
  s.scoring_seconds = j.value("scoring_seconds", 0.0);
  s.wall_seconds = j.value("wall_seconds", 0.0);
  return s;
}

// `text` with the output directory's path taken out of the file names in it ("candidates/c001_x.cpp:3: error"):
// what the model is shown does not depend on where the run writes, so the same replies give the same prompts.
std::string without_directory(std::string text, const fs::path& dir) {
  for (const std::string& prefix : {fs::absolute(dir).lexically_normal().string() + "/", dir.string() + "/"}) {
    for (std::size_t at; prefix.size() > 1 && (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  }
  return text;
}

// Better first: scored before failed, higher score, then older.
bool better(const DesignCandidate& a, const DesignCandidate& b) {
  if (a.result.ok != b.result.ok) return a.result.ok;
  if (a.result.ok && a.result.score != b.result.score) return a.result.score > b.result.score;
  return a.id < b.id;
}

// What the run's log must agree on to be resumed: everything that decides prompts, candidates and scores.
json run_identity(const DesignRequest& r, const std::vector<std::string>& spaces) {
  json mutations = json::array();
  for (PromptKind k : r.mutations) mutations.push_back(design::to_string(k));
  json identity = {{"version", kLogVersion},
                  {"spaces", spaces},
                  {"for_problem", r.for_problem},
                  {"problem_info", r.problem_info},
                  {"space_info", r.space_info},
                  {"parents", r.parents},
                  {"offspring", r.offspring},
                  {"elitism", r.elitism},
                  {"selection", to_string(r.selection)},
                  {"mutations", mutations},
                  {"max_repairs", r.max_repairs},
                  {"repeats", r.repeats},
                  {"seed", r.seed},
                  {"baseline", r.baseline == methodology::BaselineKind::exact ? "exact" : "reference"}};
  // Only when searched, so that the logs of runs without it still resume.
  if (r.hyperparameter_settings > 1) identity["hyperparameter_settings"] = r.hyperparameter_settings;
  return identity;
}

}  // namespace

const char* to_string(ParentSelection selection) {
  switch (selection) {
    case ParentSelection::random: return "random";
    case ParentSelection::tournament: return "tournament";
    case ParentSelection::roulette: return "roulette";
  }
  return "?";
}

struct DesignJob::Prepared {
  std::optional<methodology::Comparison> training, validation;
  std::vector<std::string> training_paths;
  std::string space_choice;
  std::string task;  // the task prompt, problem included
  bool problem_is_cache = false;
};

DesignJob::DesignJob(DesignRequest request, design::LlmClient& client)
    : request_(std::move(request)), client_(client), prepared_(std::make_unique<Prepared>()) {
  // The API key is in the environment ktune started with, and candidates of other runs may run without a pid
  // namespace on this machine: from here on this process's environ is not theirs to read.
  sandbox::conceal_this_process();
  const DesignRequest& r = request_;
  if (r.spaces.empty() && r.for_problem.empty()) refuse_request("design: no training spaces (--spaces)");
  if (r.parents == 0) refuse_request("design: --parents must be at least 1");
  if (r.offspring == 0) refuse_request("design: --offspring must be at least 1");
  if (r.budget == 0) refuse_request("design: --budget must be at least 1 language-model call");
  if (r.repeats < 1) refuse_request("design: --repeats must be at least 1");
  if (r.similar == 0) refuse_request("design: --similar must be at least 1");
  if (r.mutations.empty()) refuse_request("design: no mutation prompts");
  for (PromptKind k : r.mutations)
    if (k == PromptKind::initial || k == PromptKind::repair)
      refuse_request(fmt::format("design: '{}' is not a mutation (refine, different, simplify)", design::to_string(k)));
  if (r.output_dir.empty()) refuse_request("design: no output directory");
  if (const sandbox::Layers layers = sandbox::effective_layers(r.limits.disabled);
      !layers.no_network() && !r.unsafe_no_sandbox)
    refuse_request(fmt::format("design: the sandbox for candidates cannot keep them off the network here (this system "
                               "gives no {}); give --unsafe-no-sandbox to score them anyway, as your user, with the "
                               "network (docs/design.md, \"Sandbox\")",
                               layers.missing()));
  if (r.tune_budget && r.for_problem.empty()) refuse_request("design: tuning after the design needs --for PROBLEM");
  if (r.tune_budget) {
    try {
      r.tune_budget->validate();
    } catch (const std::invalid_argument& e) {
      refuse_request(fmt::format("design: the tuning budget: {}", e.what()));
    }
  }
  std::string problem_info = r.problem_info;
  if (!problem_info.empty() && !fs::is_regular_file(problem_info))
    refuse_input(fmt::format("design: --problem-info {}: no such file", problem_info));

  methodology::ComparisonOptions options;
  options.repeats = r.repeats;
  options.seed = r.seed;
  options.threads = r.threads;
  options.baseline = r.baseline;
  struct Loaded {
    methodology::Comparison comparison;
    std::vector<methodology::ComparisonSpace> files;
  };
  const auto prepare = [&](const std::vector<std::string>& paths, const char* what) -> Loaded {
    try {
      std::vector<methodology::ComparisonSpace> files = methodology::load_spaces(paths, r.threads);
      methodology::Comparison comparison(files, options);
      return {std::move(comparison), std::move(files)};
    } catch (const io::InputError& e) {
      refuse_input(fmt::format("design: {} spaces: {}", what, e.what()));
    } catch (const std::invalid_argument& e) {
      refuse_input(fmt::format("design: {} spaces: {}", what, e.what()));
    }
  };

  std::optional<Loaded> training;
  std::vector<std::string> paths = r.spaces;
  if (!r.for_problem.empty()) {
    io::ProblemFile problem;
    try {
      problem = io::read_problem_file(r.for_problem);
    } catch (const io::InputError& e) {
      refuse_input(fmt::format("design: --for: {}", e.what()));
    }
    prepared_->problem_is_cache = problem.format == io::ProblemFormat::KernelTunerCache;
    if (problem.format == io::ProblemFormat::T1 && problem_info.empty()) problem_info = r.for_problem;
    // Its own earlier results first: they are the problem itself.
    std::vector<std::string> own = r.earlier_results;
    if (prepared_->problem_is_cache) own.insert(own.begin(), r.for_problem);
    std::string why_not;
    if (!own.empty()) {
      try {
        training.emplace(prepare(own, "earlier results'"));
        paths = own;
        prepared_->space_choice = fmt::format("its own earlier results ({})", own.size());
      } catch (const JobError& e) {
        why_not = e.what();
      }
    }
    if (!training) {
      if (r.spaces.empty())
        refuse_request(fmt::format("design: --for {}: {}; give training spaces (--spaces) to choose from",
                                   r.for_problem, own.empty() ? "no earlier results" : why_not));
      std::vector<design::Resemblance> ranked;
      try {
        ranked = design::rank_by_resemblance(problem.problem, r.spaces);
      } catch (const io::InputError& e) {
        refuse_input(fmt::format("design: training spaces: {}", e.what()));
      }
      ranked.resize(std::min(ranked.size(), r.similar));
      paths.clear();
      std::string names;
      for (const auto& x : ranked) {
        paths.push_back(x.path);
        names += fmt::format("{}{} ({:.2f})", names.empty() ? "" : ", ", methodology::space_name_from_path(x.path),
                             x.similarity);
      }
      prepared_->space_choice = fmt::format("the {} of {} training spaces most like it{}: {}", paths.size(),
                                            r.spaces.size(), why_not.empty() ? "" : " (" + why_not + ")", names);
    }
  }
  if (!training) training.emplace(prepare(paths, "training"));
  prepared_->training_paths = paths;
  prepared_->training.emplace(std::move(training->comparison));
  if (!r.validation_spaces.empty()) prepared_->validation.emplace(prepare(r.validation_spaces, "validation").comparison);
  // The spaces' statistics only when the prompt shows them.
  try {
    prepared_->task = design::task_prompt(
        !problem_info.empty() || r.space_info
            ? design::problem_information(methodology::space_statistics(training->files, options), training->files,
                                          problem_info)
            : "",
        r.hyperparameter_settings);
  } catch (const io::InputError& e) {
    refuse_input(fmt::format("design: {}", e.what()));
  }
}

DesignJob::~DesignJob() = default;

DesignResult DesignJob::run() {
  const DesignRequest& r = request_;
  const auto start = Clock::now();
  const auto say = [&](const std::string& line) {
    if (r.progress) r.progress(line);
  };
  DesignResult result;
  result.output_dir = r.output_dir;
  result.training_spaces = prepared_->training_paths;
  result.space_choice = prepared_->space_choice;
  result.for_problem = r.for_problem;
  const fs::path dir(r.output_dir);
  std::error_code ec;
  fs::create_directories(dir / "candidates", ec);
  if (ec) refuse_input(fmt::format("design: cannot create {}: {}", (dir / "candidates").string(), ec.message()));
  result.log_path = (dir / "design.jsonl").string();
  if (r.restart) fs::remove(result.log_path, ec);

  // What an earlier run of the same design left: prompts, replies, scored candidates and validations by call.
  std::map<std::size_t, json> logged_prompts, logged_replies, logged_candidates, logged_validations;
  std::vector<json> records;
  try {
    records = design::DesignLog::read(result.log_path);
  } catch (const std::runtime_error& e) {
    refuse_input(fmt::format("design: {} (use --restart to start over)", e.what()));
  }
  const json identity = run_identity(r, prepared_->training_paths);
  if (!records.empty()) {
    if (records.front().value("event", "") != "start" || records.front().value("identity", json()) != identity)
      refuse_request(fmt::format("design: {} was written by a design run with other settings (spaces, seed, "
                                 "parents, offspring, selection, mutations, repeats, problem); use another --output "
                                 "or --restart",
                                 result.log_path));
    for (const auto& rec : records) {
      const std::string event = rec.value("event", "");
      if (!rec.contains("call")) continue;
      const std::size_t call = rec["call"].get<std::size_t>();
      if (event == "prompt") logged_prompts[call] = rec;
      if (event == "reply") logged_replies[call] = rec;
      if (event == "candidate") logged_candidates[call] = rec;
      if (event == "validation") logged_validations[call] = rec;
    }
  }
  design::DesignLog log(result.log_path);
  if (records.empty()) {
    log.append({{"event", "start"}, {"identity", identity}, {"model", r.model}, {"budget", r.budget}});
  } else {
    log.append({{"event", "resume"}, {"candidates_done", logged_candidates.size()}, {"budget", r.budget}});
    say(fmt::format("resuming from {}: {} candidates done", result.log_path, logged_candidates.size()));
  }

  Rng rng(r.seed);
  std::vector<DesignCandidate>& all = result.candidates;
  std::vector<std::size_t> population, generation_members;
  std::size_t generation = 0;
  std::map<std::size_t, int> repair_depth;
  // Candidates are compiled in the run's own scratch folder, each in a folder removed once it is scored; what a
  // killed run left there is removed here.
  const fs::path scratch = dir / "scratch";
  fs::remove_all(scratch, ec);
  const design::CandidateScorer scorer(*prepared_->training, r.limits, scratch.string(),
                                       {r.hyperparameter_settings, r.seed});

  const auto view_of = [&](const DesignCandidate& c) {
    design::CandidateView v;
    v.name = c.name;
    v.description = c.description;
    if (c.result.ok) {
      v.score = c.result.score;
      v.feedback = design::score_feedback(c.result.score, c.result.per_space);
      if (!c.result.settings.empty())  // what the search found: better defaults for the next version
        v.feedback += fmt::format("\nIt scored best with {} (its defaults: {}).", fmt::join(c.result.settings, ", "),
                                  c.result.default_score ? fmt::format("{:.3f}", *c.result.default_score)
                                                         : std::string("no score"));
    } else {
      v.feedback = c.result.error;
    }
    if (!c.code_path.empty()) v.code = io::read_file_text(c.code_path);
    return v;
  };
  const auto ranked = [&](std::vector<std::size_t> ids) {
    std::sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) { return better(all[a], all[b]); });
    return ids;
  };
  const auto select_parent = [&]() -> std::size_t {
    switch (r.selection) {
      case ParentSelection::random:
        return population[rng.below(population.size())];
      case ParentSelection::tournament: {
        const std::size_t a = population[rng.below(population.size())], b = population[rng.below(population.size())];
        return better(all[a], all[b]) ? a : b;
      }
      case ParentSelection::roulette: {
        double lowest = 0;
        for (std::size_t id : population)
          if (all[id].result.ok) lowest = std::min(lowest, all[id].result.score);
        std::vector<double> weights;
        double total = 0;
        for (std::size_t id : population) {
          weights.push_back(all[id].result.ok ? all[id].result.score - lowest + 0.05 : 0.01);
          total += weights.back();
        }
        double x = rng.uniform01() * total;
        for (std::size_t i = 0; i < population.size(); ++i) {
          if (x < weights[i]) return population[i];
          x -= weights[i];
        }
        return population.back();
      }
    }
    return population.front();
  };
  const auto close_generation = [&]() {
    std::vector<std::size_t> pool = generation_members;
    if (r.elitism || generation == 0) pool.insert(pool.end(), population.begin(), population.end());
    std::vector<std::size_t> survivors = ranked(pool);
    if (survivors.size() < r.parents && !r.elitism) {  // too few offspring: the best parents fill up
      for (std::size_t id : ranked(population))
        if (survivors.size() < r.parents && std::find(survivors.begin(), survivors.end(), id) == survivors.end())
          survivors.push_back(id);
    }
    if (survivors.size() > r.parents) survivors.resize(r.parents);
    population = survivors;
    generation_members.clear();
    log.append({{"event", "generation"}, {"generation", generation}, {"population", population}});
    if (!all.empty()) {
      const DesignCandidate& best = all[population.front()];
      say(fmt::format("generation {}: best {} ({})", generation, best.name,
                      best.result.ok ? fmt::format("{:.3f}", best.result.score) : std::string("failed")));
    }
    ++generation;
  };

  for (std::size_t call = 0; call < r.budget; ++call) {
    if (stop_requested()) {
      result.interrupted = true;
      break;
    }
    DesignCandidate c;
    c.id = call;
    c.generation = generation;
    std::string user;
    int depth = 0;
    if (!all.empty() && !all.back().result.ok && repair_depth[all.back().id] < r.max_repairs) {
      c.kind = PromptKind::repair;
      c.parent = all.back().id;
      depth = repair_depth[all.back().id] + 1;
    } else if (generation == 0) {
      c.kind = PromptKind::initial;
    } else {
      c.parent = select_parent();
      c.kind = r.mutations[rng.below(r.mutations.size())];
    }
    repair_depth[c.id] = depth;
    if (c.kind == PromptKind::initial) {
      user = prepared_->task;
    } else {
      // The population; in the first generation, which has none yet, the candidates made so far.
      std::vector<design::CandidateView> shown;
      for (std::size_t id : population.empty() ? ranked(generation_members) : population) shown.push_back(view_of(all[id]));
      user = design::mutation_prompt(c.kind, prepared_->task, shown, view_of(all[*c.parent]));
    }
    const std::vector<design::ChatMessage> messages = {{"system", design::system_prompt()}, {"user", user}};
    json prompt_messages = json::array();
    for (const auto& m : messages) prompt_messages.push_back({{"role", m.role}, {"content", m.content}});

    // The reply: from the log when this call was answered before (it must have been asked the same), else asked.
    std::string reply_text;
    if (auto it = logged_replies.find(call); it != logged_replies.end()) {
      const auto p = logged_prompts.find(call);
      if (p == logged_prompts.end() || p->second.value("messages", json()) != prompt_messages)
        refuse_request(fmt::format("design: {} does not match this run (call {} was asked something else); use "
                                   "another --output or --restart",
                                   result.log_path, call));
      reply_text = it->second.value("content", "");
    } else {
      log.append({{"event", "prompt"}, {"call", call}, {"kind", design::to_string(c.kind)},
                  {"parent", c.parent ? json(*c.parent) : json(nullptr)}, {"generation", generation},
                  {"messages", prompt_messages}});
      say(fmt::format("call {}/{}: {} prompt{}", call + 1, r.budget, design::to_string(c.kind),
                      c.parent ? fmt::format(" (from #{})", *c.parent) : std::string()));
      design::LlmReply reply;
      try {
        reply = client_.complete(messages);
      } catch (const design::LlmError& e) {
        log.append({{"event", "llm_error"}, {"call", call}, {"error", e.what()}});
        if (stop_requested()) {
          result.interrupted = true;
          break;
        }
        throw;
      }
      ++result.llm_calls;
      result.llm_seconds += reply.seconds;
      if (reply.prompt_tokens > 0) result.prompt_tokens += reply.prompt_tokens;
      if (reply.completion_tokens > 0) result.completion_tokens += reply.completion_tokens;
      reply_text = reply.content;
      log.append({{"event", "reply"}, {"call", call}, {"content", reply.content}, {"model", reply.model},
                  {"prompt_tokens", reply.prompt_tokens}, {"completion_tokens", reply.completion_tokens},
                  {"attempts", reply.attempts}, {"seconds", reply.seconds}});
    }

    // The candidate: parsed, written, scored (or taken from the log).
    std::optional<design::ParsedReply> parsed;
    std::string reply_error;
    try {
      parsed = design::parse_reply(reply_text);
    } catch (const design::ReplyError& e) {
      reply_error = e.what();
    }
    if (parsed) {
      c.name = parsed->name;
      c.description = parsed->description;
      c.code_path = (dir / "candidates" / fmt::format("c{:03d}_{}.cpp", call, slug(parsed->name))).string();
      write_text(c.code_path, parsed->code);
    }
    if (auto it = logged_candidates.find(call); it != logged_candidates.end()) {
      c.result = score_of(it->second.at("result"));
      c.resumed = true;
      ++result.resumed;
    } else {
      if (!parsed) {
        c.result.stage = "reply";
        c.result.error = reply_error;
      } else {
        try {
          c.result = scorer.score(c.code_path);
          c.result.error = without_directory(c.result.error, dir);
        } catch (const Interrupted&) {
          result.interrupted = true;
          break;
        }
        result.scoring_seconds += c.result.wall_seconds;
      }
      log.append({{"event", "candidate"}, {"call", call}, {"kind", design::to_string(c.kind)},
                  {"parent", c.parent ? json(*c.parent) : json(nullptr)}, {"generation", generation},
                  {"name", c.name}, {"description", c.description}, {"code_file", c.code_path},
                  {"code", parsed ? parsed->code : std::string()}, {"result", score_json(c.result)}});
    }
    if (!c.result.declared_name.empty()) c.name = c.result.declared_name;
    if (c.name.empty()) c.name = fmt::format("candidate_{}", call);
    const std::string tuned =
        c.result.settings.empty() ? "" : fmt::format(" with {}", fmt::join(c.result.settings, " "));
    say(c.result.ok ? fmt::format("  #{} {}: {:.3f} (compile {:.2f} s, runs {:.2f} s){}{}", call, c.name,
                                  c.result.score, c.result.compile_seconds, c.result.run_seconds, tuned,
                                  c.resumed ? " [from the log]" : "")
                    : fmt::format("  #{} {}: failed ({}): {}{}", call, c.name, c.result.stage,
                                  c.result.error.substr(0, c.result.error.find('\n')),
                                  c.resumed ? " [from the log]" : ""));
    all.push_back(std::move(c));
    generation_members.push_back(call);
    if (generation_members.size() == (generation == 0 ? r.parents : r.offspring)) close_generation();
  }
  if (!generation_members.empty()) close_generation();
  result.population = population;

  std::vector<std::size_t> scored;
  for (const auto& c : all)
    if (c.result.ok) scored.push_back(c.id);
  result.leaderboard = ranked(scored);

  // The best, written out and (with validation spaces) scored on them.
  if (!result.interrupted) {
    fs::create_directories(dir / "best", ec);
    std::optional<design::CandidateScorer> validator;
    if (prepared_->validation) validator.emplace(*prepared_->validation, r.limits, scratch.string());
    for (std::size_t rank = 0; rank < result.leaderboard.size() && rank < r.keep; ++rank) {
      DesignCandidate& c = all[result.leaderboard[rank]];
      const std::string code = io::read_file_text(c.code_path);
      const fs::path path = rank == 0 ? dir / "best.cpp" : dir / "best" / fmt::format("{}_{}.cpp", rank + 1, slug(c.name));
      write_text(path, code);
      if (rank == 0) write_text(dir / "best" / fmt::format("1_{}.cpp", slug(c.name)), code);
      result.best_paths.push_back(path.string());
      if (!validator) continue;
      CandidateScore v;
      if (auto it = logged_validations.find(c.id); it != logged_validations.end()) {
        v = score_of(it->second.at("result"));
      } else {
        try {
          v = validator->score(c.code_path, c.result.settings);  // the settings found on the training spaces
          v.error = without_directory(v.error, dir);
        } catch (const Interrupted&) {
          result.interrupted = true;
          break;
        }
        log.append({{"event", "validation"}, {"call", c.id}, {"result", score_json(v)}});
      }
      if (v.ok) {
        c.validation_score = v.score;
        c.validation_per_space = v.per_space;
        say(fmt::format("validation: #{} {} {:.3f}", c.id, c.name, v.score));
      }
    }
  }
  // In the loop: tune the problem with the best strategy.
  if (!result.interrupted && r.tune_budget && !result.best_paths.empty()) {
    TuneRequest t;
    t.problem_path = r.for_problem;
    if (prepared_->problem_is_cache) t.simulate_path = r.for_problem;
    else t.cache_path = (dir / "tune-cache.json").string();
    t.strategy = result.best_paths.front();
    t.settings = all[result.leaderboard.front()].result.settings;
    t.isolate_strategy = true;  // nobody reviewed it: loaded and run only in a sandboxed worker
    t.budget = *r.tune_budget;
    t.seed = r.seed;
    say(fmt::format("tuning {} with {}", r.for_problem, t.strategy));
    try {
      TuneJob job(t);
      const TuneOutcome outcome = job.run();
      result.tuned = tune_report_json(job, outcome, false);
      std::ostringstream summary;
      write_tune_summary(summary, job, outcome);
      result.tuned_summary = summary.str();
      result.interrupted = outcome.result.stop_reason == StopReason::interrupted;
      log.append({{"event", "tuned"}, {"strategy", t.strategy}, {"report", *result.tuned}});
    } catch (const JobError& e) {
      refuse_input(fmt::format("design: tuning {} with {}: {}", r.for_problem, t.strategy, e.what()));
    }
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  json board = design_result_json(result);
  log.append({{"event", result.interrupted ? "interrupted" : "finished"}, {"leaderboard", result.leaderboard},
              {"population", result.population}});
  write_text(dir / "leaderboard.json", board.dump(2) + "\n");
  fs::remove(scratch, ec);  // empty by now (each candidate's folder went when it was scored)
  return result;
}

json design_result_json(const DesignResult& result) {
  json candidates = json::array();
  for (const auto& c : result.candidates) {
    json entry = {{"id", c.id},
                  {"generation", c.generation},
                  {"kind", design::to_string(c.kind)},
                  {"parent", c.parent ? json(*c.parent) : json(nullptr)},
                  {"name", c.name},
                  {"description", c.description},
                  {"code_file", c.code_path},
                  {"resumed", c.resumed}};
    entry["result"] = score_json(c.result);
    entry["validation_score"] = c.validation_score ? json(*c.validation_score) : json(nullptr);
    entry["validation_per_space"] = pairs_json(c.validation_per_space);
    candidates.push_back(std::move(entry));
  }
  return {{"output_dir", result.output_dir},
          {"log", result.log_path},
          {"candidates", candidates},
          {"population", result.population},
          {"leaderboard", result.leaderboard},
          {"best", result.best_paths},
          {"llm_calls", result.llm_calls},
          {"resumed", result.resumed},
          {"prompt_tokens", result.prompt_tokens},
          {"completion_tokens", result.completion_tokens},
          {"llm_seconds", result.llm_seconds},
          {"scoring_seconds", result.scoring_seconds},
          {"wall_seconds", result.wall_seconds},
          {"interrupted", result.interrupted},
          {"training_spaces", result.training_spaces},
          {"space_choice", result.space_choice},
          {"tuned", result.tuned ? *result.tuned : json(nullptr)}};
}

void write_design_report(std::ostream& out, const DesignResult& result) {
  std::size_t failed = 0;
  for (const auto& c : result.candidates) failed += c.result.ok ? 0 : 1;
  out << fmt::format("{} candidates ({} failed; {} from the log), {} language-model calls in {:.0f} s, scoring {:.0f} s, "
                     "{:.0f} s in all{}\n",
                     result.candidates.size(), failed, result.resumed, result.llm_calls, result.llm_seconds,
                     result.scoring_seconds, result.wall_seconds, result.interrupted ? " (interrupted)" : "");
  if (result.leaderboard.empty()) {
    out << "no candidate could be scored; the errors are in " << result.log_path << "\n";
    return;
  }
  const bool validated = std::any_of(result.candidates.begin(), result.candidates.end(),
                                     [](const DesignCandidate& c) { return c.validation_score.has_value(); });
  out << fmt::format("{:>4}  {:<32} {:>8}{}  {}\n", "id", "strategy", "score", validated ? "  validation" : "",
                     "description");
  for (std::size_t id : result.leaderboard) {
    const DesignCandidate& c = result.candidates[id];
    out << fmt::format("{:>4}  {:<32} {:>8.3f}{}  {}\n", c.id, c.name.substr(0, 32), c.result.score,
                       validated ? (c.validation_score ? fmt::format("  {:>10.3f}", *c.validation_score)
                                                       : std::string(12, ' '))
                                 : std::string(),
                       c.description.substr(0, 80));
  }
  if (!result.best_paths.empty()) {
    const CandidateScore& best = result.candidates[result.leaderboard.front()].result;
    std::string settings;
    for (const std::string& s : best.settings) settings += " --set " + s;
    out << "best: " << result.best_paths.front() << "\n";
    if (best.default_score)
      out << fmt::format("its hyperparameters tuned over {} settings: {:.3f} (defaults {:.3f})\n", best.settings_scored,
                         best.score, *best.default_score);
    out << "adopt it: ktune tune " << (result.for_problem.empty() ? "PROBLEM" : result.for_problem) << " --strategy "
        << result.best_paths.front() << settings << "\n";
  }
  out << "log: " << result.log_path << "\n";
  if (!result.space_choice.empty()) out << "scored on " << result.space_choice << "\n";
  if (!result.tuned_summary.empty()) out << "tuned with the best:\n" << result.tuned_summary;
}

}  // namespace ktune
