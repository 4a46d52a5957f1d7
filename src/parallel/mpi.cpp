#include "ktune/parallel/mpi.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef KTUNE_HAVE_MPI
#include <mpi.h>
#endif

namespace ktune::parallel {
namespace {

// Started by an MPI launcher: OpenMPI's mpirun, PMI(x) (srun, MPICH's hydra).
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

#ifdef KTUNE_HAVE_MPI
class MpiRunPartition final : public methodology::RunPartition {
 public:
  MpiRunPartition(int rank, int size, bool every_rank_scores)
      : rank_(rank), size_(size), every_rank_scores_(every_rank_scores) {}
  bool owns(std::size_t run) const override { return static_cast<int>(run % static_cast<std::size_t>(size_)) == rank_; }
  bool scores_here() const override { return every_rank_scores_ || rank_ == 0; }

  // Each rank sends its finished runs as [u64 run][u64 points][points as (time, value) doubles]...
  void gather(std::vector<methodology::Run>& runs, std::vector<char>& finished) override {
    std::vector<double> mine;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (!owns(i) || !finished[i]) continue;
      mine.push_back(static_cast<double>(i));
      mine.push_back(static_cast<double>(runs[i].size()));
      for (const auto& p : runs[i]) {
        mine.push_back(p.time_s);
        mine.push_back(p.value);
      }
    }
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
    for (std::size_t at = 0; at < all.size();) {
      const auto run = static_cast<std::size_t>(all[at]);
      const auto points = static_cast<std::size_t>(all[at + 1]);
      at += 2;
      methodology::Run r(points);
      for (auto& p : r) {
        p.time_s = all[at];
        p.value = all[at + 1];
        at += 2;
      }
      if (run < runs.size()) {
        runs[run] = std::move(r);
        finished[run] = 1;
      }
    }
  }

 private:
  int rank_, size_;
  bool every_rank_scores_;
};
#endif

}  // namespace

bool mpi_built() {
#ifdef KTUNE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

MpiSession::MpiSession(int& argc, char**& argv) {
#ifdef KTUNE_HAVE_MPI
  if (!launched_by_mpi()) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  initialized_ = true;
  serialized_ = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
#else
  (void)argc;
  (void)argv;
  (void)launched_by_mpi;
#endif
}

MpiSession::~MpiSession() {
#ifdef KTUNE_HAVE_MPI
  if (initialized_ && !leave_without_finalize_) MPI_Finalize();
#endif
}

void MpiSession::barrier() const {
#ifdef KTUNE_HAVE_MPI
  if (initialized_) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void MpiSession::abort(int status) const {
#ifdef KTUNE_HAVE_MPI
  if (initialized_) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::_Exit(status);
}

std::shared_ptr<methodology::RunPartition> mpi_run_partition(const MpiSession& session, bool every_rank_scores) {
#ifdef KTUNE_HAVE_MPI
  if (session.active()) return std::make_shared<MpiRunPartition>(session.rank(), session.size(), every_rank_scores);
#endif
  (void)session;
  (void)every_rank_scores;
  throw std::logic_error("mpi_run_partition: no MPI session with several ranks");
}

}  // namespace ktune::parallel
