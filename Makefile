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

# A real job on a real problem. Until the tuning core exists this constructs and summarises the Hotspot search space.
run: build
	./$(BUILD)/ktune space $(SHARED)/data/searchspaces/realworld/hotspot.json

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
