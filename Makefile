# Top-level entry points. Every target installs what it needs first (scripts/setup.sh is idempotent).
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= 2
SHARED     ?= $(abspath ../shared)

.PHONY: setup build run test bench asan clean

setup:
	@bash scripts/setup.sh

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DKTUNE_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)

# A real tuning job, simulated until live tuning exists: random search on the dedispersion kernel, replaying the
# measurements of every configuration on an A100 (a brute-forced Kernel Tuner cache).
run: build
	./$(BUILD)/ktune tune $(SHARED)/data/benchmark_hub/t1/dedispersion_milo.json \
	  --simulate $(SHARED)/data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz \
	  --strategy random_sample --max-fevals 200 --seed 1

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	./$(BUILD)/ktune_bench --benchmark_min_time=0.2

asan: setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKTUNE_WERROR=ON -DKTUNE_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
