#pragma once
// `mpirun -np N ktune tune T1FILE ...` (or under srun): rank 0 runs the strategy, writes the cache and reports; every
// other rank opens the kernel on its own device and measures what rank 0 sends it, one configuration at a time. On
// rank 0 the ranks are the devices of a ConcurrentEvaluator, so the strategy's batches are measured on all of them
// at once and the results are those of one process with the same seed (timings aside).
//
// A rank that dies (a node lost, a driver crash, kill -9) loses only the configuration it was measuring: rank 0
// notices its silence (a measuring rank sends a heartbeat every second) after `rank_timeout_seconds` and gives that
// configuration to another rank; the run finishes on the remaining ones. The launcher must let the others live on:
// OpenMPI 4 `mpirun --mca orte_enable_recovery 1`, OpenMPI 5 `mpirun --with-ft ulfm`, Slurm `srun --no-kill
// --kill-on-bad-exit=0`.
//
// Every rank builds the same space from the same arguments; a rank whose space differs (another device limit, a
// different file) is left out. Rank 0 probes its own device for the implicit block-size limit unless --max-threads
// is given.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ktune/jobs/tune_job.hpp"
#include "ktune/parallel/mpi.hpp"

namespace ktune::parallel {

struct MpiTuneOptions {
  // A rank silent for this long (no result, no heartbeat) is taken for dead.
  double rank_timeout_seconds = 60;
  // What rank 0 learns about the other ranks ("rank 2 cannot measure: ...").
  std::function<void(const std::string&)> on_note;
};

// Rank 0: the other ranks as the run's devices, for TuneRequest::remote_devices. The function waits for every rank
// to open its device; one that cannot, or that built another space, is left out with a note; with none left it
// throws std::runtime_error. Throws std::logic_error without an active session, and std::runtime_error when this
// MPI cannot be called from several threads (MPI_THREAD_SERIALIZED).
std::function<std::vector<RemoteDevice>(const SearchSpace&, const std::vector<Objective>&)> mpi_rank_devices(
    const MpiSession& session, MpiTuneOptions options = {});

// Rank 0: tells every other rank that the run is over, whatever happened (call it after the job is destroyed, so
// that what the ranks had in flight has come back). Ranks that died are skipped by MPI itself.
void release_ranks(const MpiSession& session);

// Every other rank: opens the job (`open`, a measure_only TuneJob; in a thread, while this one keeps rank 0 informed)
// and measures what rank 0 sends until rank 0 releases it. A job that cannot be opened is reported to rank 0, which
// goes on without this rank; this rank still waits for the release (a rank that ends early, or with an error
// status, makes the launcher end them all). Returns the exit status, 0. If rank 0 dies, the launcher must end the
// job (with recovery enabled it waits).
int serve_rank(const MpiSession& session, const std::function<std::unique_ptr<TuneJob>()>& open);

}  // namespace ktune::parallel
