#pragma once
// ktune's public API in one include. Start with the jobs: each does what a `ktune` verb does and returns what the
// verb prints.
//   TuneJob          ktune tune        a tuning run, live or simulated (jobs/tune_job.hpp)
//   ComparisonJob    ktune compare     strategies scored by the methodology (jobs/comparison_job.hpp)
//   Hypertuning      ktune hypertune   a strategy's hyperparameters tuned (jobs/hypertuning.hpp)
//   analyse_pareto   ktune pareto      a true Pareto front, runs scored against it (jobs/pareto_analysis.hpp)
//   SpaceSummary     ktune space       a problem's search space (jobs/space_summary.hpp)
//   DesignJob        ktune design      strategies designed by a language model (jobs/design_job.hpp)
//   run_export       ktune export      headers and wisdom from any results (jobs/export_job.hpp)
// Below them: Problem and SearchSpace (the space and its neighbourhoods), Strategy and CostFunction (write a
// strategy), Evaluator (live backends or simulation), tune() (the loop), and the readers and writers of io/.
#include "ktune/version.hpp"

#include "ktune/evaluation_record.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/status.hpp"
#include "ktune/uniform_sample_stream.hpp"
#include "ktune/value.hpp"

#include "ktune/tuning/budget.hpp"
#include "ktune/tuning/concurrent_evaluator.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/evaluator.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/objective.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/trace.hpp"
#include "ktune/tuning/tune.hpp"

#include "ktune/io/input_error.hpp"
#include "ktune/io/problem_file.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/kernel_tuner_results_file.hpp"
#include "ktune/io/results_csv.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/t1_reader.hpp"

#include "ktune/multiobjective/front_normalisation.hpp"
#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/pareto.hpp"

#include "ktune/jobs/comparison_job.hpp"
#include "ktune/jobs/comparison_reports.hpp"
#include "ktune/jobs/design_job.hpp"
#include "ktune/jobs/export_job.hpp"
#include "ktune/jobs/hypertuning.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/jobs/pareto_analysis.hpp"
#include "ktune/jobs/space_summary.hpp"
#include "ktune/jobs/tune_job.hpp"
