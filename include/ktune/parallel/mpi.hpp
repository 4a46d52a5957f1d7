#pragma once
// MPI, optional at build time (OpenMPI from Debian: libopenmpi-dev; KTUNE_HAVE_MPI when found). `mpirun -np N ktune
// compare ...` (or under srun) splits the comparison's runs over the ranks: every rank runs its share, the runs are
// gathered, and rank 0 scores all of them, giving the result one process would have computed, and prints it. Without MPI, or outside mpirun, everything runs in one process as before.
#include <memory>
#include <stdexcept>

#include "ktune/methodology/comparison.hpp"

namespace ktune::parallel {

// Whether this ktune was built with MPI.
bool mpi_built();

// MPI for the life of the process, when it was started by an MPI launcher (mpirun, srun: their environment says
// so); otherwise a single process. Create one, first thing in main(); it finalizes MPI when destroyed.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  bool active() const { return size_ > 1; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The rank among the ranks on this node (0 outside MPI): which local device a rank takes.
  int local_rank() const { return local_rank_; }
  // Whether several threads may call MPI, one at a time (MPI_THREAD_SERIALIZED): rank 0 of a live tune needs it.
  bool serialized_threads() const { return serialized_; }
  // After a rank died, MPI_Finalize can wait for it forever (OpenMPI 4's closing fence): the survivors then leave
  // without it (under a launcher that lets them: mpi_tuning.hpp).
  void leave_without_finalize() const { leave_without_finalize_ = true; }
  // Waits until every rank is here.
  void barrier() const;
  // Ends every rank at once (an error on one rank would leave the others waiting in a collective).
  [[noreturn]] void abort(int status) const;

 private:
  bool initialized_ = false, serialized_ = false;
  mutable bool leave_without_finalize_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

// Runs dealt round-robin over the ranks (run i to rank i mod size), gathered with MPI_Allgatherv; rank 0 scores, or
// every rank with `every_rank_scores` (hypertuning: each rank's meta-strategy needs the scores to choose the same
// next settings). Throws std::logic_error without an active session.
std::shared_ptr<methodology::RunPartition> mpi_run_partition(const MpiSession& session, bool every_rank_scores = false);

}  // namespace ktune::parallel
