# Top-level entry points. Every target installs what it needs first (scripts/setup.sh is idempotent).
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
JOBS       ?= 2
SHARED     ?= $(abspath ../shared)
PREFIX     ?= /usr/local
PYTHON     ?= /usr/bin/python3
PYTHON_SITE ?=

.PHONY: setup configure build run test bench asan fuzz faults install python python-examples clean

setup:
	@bash scripts/setup.sh

CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DKTUNE_WERROR=ON

configure: setup
	$(CONFIGURE)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# A real tuning job, live on this machine: the tiled OpenCL matrix multiply of examples/matmul, compiled and run per
# configuration by PoCL on the CPU, verified against its reference configuration, searched by the genetic algorithm
# for 60 seconds of wall clock. It prints progress and the best configuration. Builds only the ktune program (make
# test builds the tests), after the packages it needs (not the fuzzing and browser-test ones).
run:
	@bash scripts/setup.sh run
	$(CONFIGURE)
	cmake --build $(BUILD) --target ktune -j $(JOBS)
	./$(BUILD)/ktune tune examples/matmul/matmul_opencl.json --strategy genetic_algorithm --time-limit 60 --seed 1

# ctest, and if a test fails, the failed ones once more at the end, one at a time with their output: a CI log's tail
# then says why (the first output is far above it), and whether the failure repeats. Still a failure either way.
CTEST = ctest --output-on-failure -j $(JOBS) || \
  { echo '--- the failed tests once more, one at a time:'; ctest --rerun-failed --output-on-failure -j 1; exit 1; }

test: build
	cd $(BUILD) && $(CTEST)

# The CLI, libktune.a, the headers, the CMake package and ktune.pc under PREFIX (docs/library.md).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Python module (package ktune) into the user site of Debian's python3, or into PYTHON_SITE (a folder on
# sys.path, e.g. a virtual environment's site-packages); docs/python.md.
python: build
	cmake --install $(BUILD) --component python --prefix "$(or $(PYTHON_SITE),$(shell $(PYTHON) -m site --user-site))"

# Every Kernel Tuner example script with ktune, the long ones too (make test runs the short ones): minutes on PoCL.
python-examples: build
	KTUNE_LONG_EXAMPLES=1 KTUNE_SHARED_DIR=$(SHARED) PYTHONPATH=$(BUILD)/python $(PYTHON) -m pytest -v \
	  -p no:cacheprovider python/tests/test_kernel_tuner_examples.py

bench: build
	./$(BUILD)/ktune_bench --benchmark_min_time=0.2
	PYTHONPATH=$(BUILD)/python KTUNE_SHARED_DIR=$(SHARED) $(PYTHON) python/bench/simulation_overhead.py $(BUILD)/ktune

asan: setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKTUNE_WERROR=ON -DKTUNE_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && $(CTEST)

# libFuzzer targets (fuzz/, docs/fuzzing.md), built with clang and ASan+UBSan, run one after another for FUZZ_SECONDS
# each on a scratch copy of the committed corpus; non-zero if any finds a crash, hang, leak or sanitizer report.
fuzz: setup
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DKTUNE_FUZZ=ON
	cmake --build $(FUZZ_BUILD) --target ktune_fuzzers -j $(JOBS)
	bash scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Fault injection for every writer (tests/faults/fault_injection.py): FAULT_POINTS (20) random points each of kill -9,
# a file-size limit and a full disk (a private mount namespace: as root); prints the counts (docs/running.md).
FAULT_POINTS ?= 20
faults: build
	$(PYTHON) tests/faults/fault_injection.py --ktune $(BUILD)/ktune --shared $(SHARED) --points $(FAULT_POINTS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
